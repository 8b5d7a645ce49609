"""The viewer in a real browser (Debian's chromium through Playwright): every game's page
loads and steps through its versions, a live game shows a move made through the API within
a second, and a spectator's page never shows what a seat's page does. One screenshot per
game is kept in test-artifacts/ (ignored by git)."""

from __future__ import annotations

import time
from typing import Any

import httpx
import psycopg
import pytest

from service.settings import Settings
from tests.api.test_tamper import flips_a_value, inside_data
from tests.browser.conftest import ARTIFACTS
from tests.conftest import LiveServer
from tests.support.api import Api

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

GAMES = ["puerto-rico", "caylus", "plus-ultra", "santa-maria"]


def _player(client: httpx.Client, name: str) -> dict[str, str]:
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, str] = r.json()
    return body


def _auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['api_key']}"}


def _create(client: httpx.Client, player: dict[str, str], game: str, **body: Any) -> Any:
    r = client.post("/v1/games", json={"game": game, **body}, headers=_auth(player))
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_steps_through_every_version(
    server: LiveServer, open_page: Any, game: str
) -> None:
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        bots = {str(s): "random" for s in range(3)}
        created = _create(client, alice, game, seats=3, bots=bots)
        finished = Api(client).settled(created["id"])  # the bots play after the request
        assert finished["status"] == "finished"
    last = finished["version"]
    p = open_page()
    p.open_game(f"{server.url}/games/{created['id']}")
    page = p.page
    assert p.version() == p.last() == last
    assert page.locator("#events li").count() == last
    final = p.board()
    assert 'class="board game-' + game in final
    ARTIFACTS.mkdir(exist_ok=True)

    page.click("#first")
    p.wait_board()
    assert p.version() == 1
    assert "not started" in p.board()
    page.click("#last")
    p.wait_board()
    middle = last // 2
    page.locator(f'#events button[data-version="{middle}"]').click()
    p.wait_board()
    assert p.version() == middle
    at_middle = p.board()
    assert at_middle != final
    page.keyboard.press("ArrowRight")
    p.wait_board()
    assert p.version() == middle + 1
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    p.wait_board()
    assert p.version() == middle - 1
    page.click("#next")
    p.wait_board()
    assert p.version() == middle and p.board() == at_middle
    page.locator("#slider").fill(str(last - 1))
    p.wait_board()
    assert p.version() == last - 1
    assert page.locator("#events li.current").get_attribute("data-version") == str(last - 1)

    # every seat's perspective and the spectator's
    page.select_option("#perspective", "1")
    p.ready()
    assert p.version() == last
    page.locator(f'#events button[data-version="{middle}"]').click()
    p.wait_board()
    assert any(f"/board?version={middle}&seat=1" in url for url in p.urls)
    if game != "santa-maria":  # its view is the same for everyone and names no viewer
        assert "(you)" in p.board()
    page.select_option("#perspective", "")
    p.ready()
    assert "(you)" not in p.board()

    # the audit panel and the export
    page.wait_for_selector("#verdict", timeout=15_000)
    assert page.text_content("#verdict").startswith("Verified")
    assert page.locator('#audit [data-check="chain_intact"]').text_content().endswith("yes")
    assert page.text_content("#verify-cmd") == f"tabletop verify game-{created['id']}.ndjson"
    assert page.get_attribute("#export", "href") == f"/v1/games/{created['id']}/export"
    page.screenshot(path=str(ARTIFACTS / f"{game}.png"), full_page=True)
    assert p.errors == []


def test_a_live_game_shows_a_move_within_a_second(server: LiveServer, open_page: Any) -> None:
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        created = _create(client, alice, "santa-maria", seats=2, seat=0, bots={"1": "random"})
        gid = created["id"]
        p = open_page()
        p.open_game(f"{server.url}/games/{gid}")
        page = p.page
        page.wait_for_function("document.body.dataset.live === 'on'")
        before = p.last()
        for _ in range(3):
            Api(client).settled(gid, alice)  # the bot moves on its own: until alice's turn
            legal = client.get(f"/v1/games/{gid}/legal-moves", headers=_auth(alice)).json()
            move = {"expected_version": legal["version"], "move": legal["moves"][0]}
            headers = {**_auth(alice), "Idempotency-Key": f"k{legal['version']}"}
            r = client.post(f"/v1/games/{gid}/moves", json=move, headers=headers)
            assert r.status_code == 200, r.text
            version = r.json()["version"]
            moved = time.monotonic()
            # the move's line is on the page within a second of the API's answer ...
            page.wait_for_selector(f'#events li[data-version="{version}"]', timeout=1_000)
            assert time.monotonic() - moved < 1.0
            # ... and the board, drawn by the server from the replay, follows it (and the
            # bot's decision after it, when the move left the game to the bot)
            page.wait_for_function(
                f"Number(document.getElementById('board').dataset.version) >= {version}",
                timeout=5_000,
            )
            assert p.version() >= version
        assert p.last() > before
        now = Api(client).settled(gid, alice)["version"]  # nothing moves until alice does
        page.wait_for_function(
            f"document.getElementById('board').dataset.version === '{now}'", timeout=5_000
        )
        assert p.version() == p.last() == now  # it followed the game
        assert page.is_hidden("#audit")
        # looking back, a new move lengthens the list without moving the board
        page.click("#first")
        p.wait_board()
        r = client.post(f"/v1/games/{gid}/resign", headers=_auth(alice))
        assert r.status_code == 200, r.text
        end = r.json()["version"]
        page.wait_for_selector("#verdict", timeout=10_000)  # the game ended: audited
        assert p.last() == end
        assert page.text_content("#title") == "santa-maria (finished)"
        assert page.text_content("#verdict").startswith("Verified")
        assert p.errors == []


def test_the_lobby_and_a_profile(server: LiveServer, open_page: Any) -> None:
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        finished = _create(client, alice, "caylus", seats=2, seat=0, bots={"1": "random"})
        client.post(f"/v1/games/{finished['id']}/resign", headers=_auth(alice))
        waiting = _create(client, alice, "puerto-rico", seats=3, seat=0)
    p = open_page()
    page = p.page
    page.goto(f"{server.url}/games")
    page.wait_for_selector("table.games >> nth=2")
    page.wait_for_function(
        f"document.querySelector('a[href=\"/games/{waiting['id']}\"]') !== null",
        timeout=10_000,
    )  # the read model trails the log by milliseconds
    assert "Open games" in page.inner_text("main")
    page.click(f'a[href="/games/{waiting["id"]}"]')
    p.ready()
    assert p.board().count("not started") == 1
    assert page.text_content("#title") == "puerto-rico (open)"
    with httpx.Client(base_url=server.url) as client:  # the others sit down: it starts
        for seat in (1, 2):
            bob = _player(client, f"p{seat}")
            r = client.post(f"/v1/games/{waiting['id']}/join", headers=_auth(bob))
            assert r.status_code == 200, r.text
    page.wait_for_function(
        "document.getElementById('title').textContent === 'puerto-rico (active)'",
        timeout=5_000,
    )
    # the title comes from the game's summary, the board from the event stream, which may
    # deliver the join and the start's events in separate chunks: wait for the board too
    page.wait_for_function(
        "!document.getElementById('board').innerHTML.includes('not started')", timeout=10_000
    )
    p.wait_board()
    assert "Status" in p.board()
    page.click(f'#info a[href="/players/{alice["id"]}"]')
    page.wait_for_selector("table.records")
    page.wait_for_function("document.querySelector('h1').textContent === 'alice'")
    assert "caylus" in page.inner_text("table.records")
    assert p.errors == []


def test_a_spectator_never_sees_what_a_seat_sees(server: LiveServer, open_page: Any) -> None:
    """Plus Ultra: a seat's characters and the cards offered to it are on its own page and
    nowhere on a spectator's; the key never appears in a URL."""
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        created = _create(
            client, alice, "plus-ultra", seats=3, seat=0, bots={"1": "random", "2": "random"}
        )
        gid = created["id"]
        secret: list[str] = []
        for _ in range(30):  # until seat 0 holds secrets (characters picked, cards offered)
            mine = Api(client).settled(gid, alice)  # the bots decide first, on their own
            public = client.get(f"/v1/games/{gid}").json()
            view, seen = mine["view"], public["view"]
            secret = [*(view["offered"] or [])]
            if seen["players"][0]["characters"] is None:
                secret += view["players"][0]["characters"] or []
            if seen["players"][0]["estates"] is None:
                secret += view["players"][0]["estates"] or []
            if len(secret) >= 2 or mine["status"] != "active":
                break
            legal = client.get(f"/v1/games/{gid}/legal-moves", headers=_auth(alice)).json()
            move = {"expected_version": legal["version"], "move": legal["moves"][0]}
            headers = {**_auth(alice), "Idempotency-Key": f"s{legal['version']}"}
            assert client.post(f"/v1/games/{gid}/moves", json=move, headers=headers).is_success
        assert secret, "seat 0 never held a secret"
        words = {s.replace("_", " ") for s in secret}

        spectator = open_page()
        spectator.open_game(f"{server.url}/games/{gid}")
        seen_text = spectator.page.inner_text("body")

        seat = open_page()
        seat.open_game(f"{server.url}/games/{gid}")
        seat.sign_in(alice["api_key"])
        seat_text = seat.page.inner_text("body")
        assert "you hold seat 0" in seat_text
        for word in words:
            assert word in seat_text, word
            assert word not in seen_text, word
        assert "hidden" in spectator.page.inner_text('[data-part="players.0"]')
        for page in (spectator, seat):
            assert page.errors == []
            assert not any(alice["api_key"] in url for url in page.urls)
        assert seat.page.evaluate("sessionStorage.getItem('tabletop-key')") == alice["api_key"]


def test_the_verify_panel_names_the_first_broken_version(
    server: LiveServer, open_page: Any, pg_settings: Settings, pg_url: str
) -> None:
    """One digit of one stored event changed in Postgres: the page's audit says so."""
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        bots = {str(s): "random" for s in range(2)}
        created = _create(client, alice, "caylus", seats=2, bots=bots)
        created = Api(client).settled(created["id"])  # the bots play after the request
        assert created["status"] == "finished"
    gid = created["id"]
    assert pg_settings.database_url is not None
    schema = pg_settings.database_url.split("schema=")[1].split("&")[0]
    table = f'"{schema}".tabletop_events'
    with psycopg.connect(pg_url, autocommit=True) as conn:
        where = "WHERE originator_id = %s AND originator_version = %s"
        # the first record from mid-game on whose changed byte is a value, so it still reads
        for version in range(created["version"] // 2, created["version"]):
            row = conn.execute(f"SELECT state FROM {table} {where}", (gid, version)).fetchone()
            assert row is not None
            text = bytes(row[0])
            if flips_a_value(text):
                break
        else:
            pytest.fail("no record from mid-game on holds a number to change")
        at = inside_data(text)  # a byte of the event's own data, in either stored form
        changed = text[:at] + bytes([text[at] ^ 1]) + text[at + 1 :]
        conn.execute(f"UPDATE {table} SET state = %s {where}", (changed, gid, version))
    p = open_page()
    p.open_game(f"{server.url}/games/{gid}")
    page = p.page
    page.wait_for_selector("#verdict", timeout=15_000)
    assert page.text_content("#verdict").startswith("NOT verified")
    assert page.locator('#audit [data-check="chain_intact"]').text_content().endswith("NO")
    assert f"First broken version: {version}" in page.inner_text("#audit")
    assert p.errors == []


def test_the_event_list_shows_a_takeback_and_the_board_goes_back(
    server: LiveServer, open_page: Any
) -> None:
    """Alice takes back her decision in a casual Caylus game against a bot (it accepts at
    once): the page lists the request, the acceptance and the revert with their lines, and
    its board shows the game as it was before her decision."""
    with httpx.Client(base_url=server.url) as client:
        alice = _player(client, "alice")
        created = _create(client, alice, "caylus", seats=2, seat=0, bots={"1": "random"})
        gid = created["id"]
        p = open_page()
        p.open_game(f"{server.url}/games/{gid}")
        page = p.page
        page.wait_for_function("document.body.dataset.live === 'on'")
        before = Api(client).settled(gid, alice)
        legal = client.get(f"/v1/games/{gid}/legal-moves", headers=_auth(alice)).json()
        move = {"expected_version": legal["version"], "move": legal["moves"][0]}
        moved = client.post(f"/v1/games/{gid}/moves", json=move,
                            headers={**_auth(alice), "Idempotency-Key": "m"})  # fmt: skip
        assert moved.status_code == 200, moved.text
        Api(client).settled(gid, alice)
        r = client.post(f"/v1/games/{gid}/undo", headers={**_auth(alice), "Idempotency-Key": "u"})
        assert r.status_code == 200, r.text
        end = r.json()["version"]
        page.wait_for_selector(f'#events li[data-version="{end}"]', timeout=5_000)
        lines = [page.text_content(f'#events li[data-version="{v}"]') or ""
                 for v in range(end - 2, end + 1)]  # fmt: skip
        assert "asked to take back" in lines[0], lines
        assert "accepted the takeback" in lines[1], lines
        assert f"from version {before['version']}" in lines[2], lines
        page.wait_for_function(
            f"document.getElementById('board').dataset.version === '{end}'", timeout=5_000
        )
        after_revert = p.board()
        page.locator(f'#events button[data-version="{before["version"]}"]').click()
        p.wait_board()
        assert p.version() == before["version"]
        assert p.board() == after_revert  # the game as it was before her decision
        page.locator(f'#events button[data-version="{end - 3}"]').click()
        p.wait_board()
        assert p.board() != after_revert  # (her decision, taken back, had changed it)
        assert p.errors == []

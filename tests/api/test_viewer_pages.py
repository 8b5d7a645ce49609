"""The viewer's server side: the pages, the board (the game's render of exactly the replay's
view), event lines, and seeing a finished game through any seat's eyes."""

from __future__ import annotations

import random

from tests.support.api import Api


def test_pages_are_served_with_a_strict_policy(pg_api: Api) -> None:
    alice = pg_api.player("alice")
    game = pg_api.create(alice, "caylus", 2, bots={0: "random", 1: "random"})
    for path in ("/games", f"/games/{game['id']}", f"/players/{alice['id']}"):
        r = pg_api.client.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert '<script src="/static/viewer.js" defer></script>' in r.text
        assert "<script>" not in r.text
    assert pg_api.client.get("/static/viewer.js").status_code == 200
    assert pg_api.client.get("/static/viewer.css").status_code == 200
    assert pg_api.client.get("/games/not-a-uuid").status_code in (404, 400)


def test_events_have_readable_lines_and_the_board_is_the_replay_view(pg_api: Api) -> None:
    alice = pg_api.player("alice")
    game = pg_api.create(alice, "puerto-rico", 3, bots={0: "random", 1: "random", 2: "random"})
    gid = game["id"]
    assert pg_api.settled(gid)["status"] == "finished"  # the bots play it after the request
    events = pg_api.client.get(f"/v1/games/{gid}/events?limit=10000").json()["events"]
    assert all(e["text"] for e in events)
    assert events[0]["text"].startswith("Game of puerto-rico created")
    assert events[-1]["type"] == "game_finished" and "seed is revealed" in events[-1]["text"]
    for version in (1, 10, len(events) // 2, len(events)):
        board = pg_api.client.get(f"/games/{gid}/board?version={version}").json()
        replay = pg_api.client.get(f"/v1/games/{gid}/replay?version={version}").json()
        assert board["version"] == replay["version"] == version
        if replay["view"] is None:
            assert "not started" in board["board"]
        else:
            assert board["board"].startswith('<div class="board game-puerto-rico"')


def test_a_finished_game_seen_by_each_seat(pg_api: Api) -> None:
    alice = pg_api.player("alice")
    created = pg_api.create(alice, "plus-ultra", 3, bots={0: "random", 1: "random", 2: "random"})
    gid = created["id"]
    game = pg_api.settled(gid)  # the bots play it after the request, on their own
    assert game["status"] == "finished"
    middle = game["version"] // 2
    public = pg_api.client.get(f"/v1/games/{gid}/replay?version={middle}").json()
    before = pg_api.client.get(f"/v1/games/{gid}/replay?version={middle}&seat=1").json()
    assert public["state"] is not None and before["state"] == public["state"]
    assert public["view"]["viewer"] is None and before["view"]["viewer"] == 1
    # lines as seat 1 saw them: its own picks named, the others' not
    mine = pg_api.client.get(f"/v1/games/{gid}/events?limit=10000&seat=1").json()["events"]
    picks = [e for e in mine if e["type"] == "character_picked"]
    assert any(e["text"].startswith("You picked the ") for e in picks)
    assert any(e["text"].endswith("picked a character.") for e in picks)
    assert pg_api.client.get(f"/v1/games/{gid}/replay?version=5&seat=7").status_code == 422


def test_a_running_game_is_seen_from_ones_own_seat_only(pg_api: Api) -> None:
    alice, bob = pg_api.player("alice"), pg_api.player("bob")
    game = pg_api.create(alice, "santa-maria", 2, bots={1: "random"}, seat=0)
    gid = game["id"]
    v = game["version"]
    assert pg_api.client.get(f"/v1/games/{gid}/replay?version={v}&seat=0").status_code == 403
    mine = pg_api.client.get(
        f"/v1/games/{gid}/replay?version={v}&seat=0", headers=pg_api.auth(alice)
    )
    assert mine.status_code == 200 and mine.json()["view"] is not None
    other = pg_api.client.get(f"/games/{gid}/board?version={v}&seat=1", headers=pg_api.auth(bob))
    assert other.status_code == 403
    assert pg_api.client.get(f"/v1/games/{gid}/events?seat=1").status_code == 403
    pg_api.play_out(gid, {0: alice}, random.Random(3))
    assert pg_api.client.get(f"/games/{gid}/board?version={v}&seat=1").status_code == 200

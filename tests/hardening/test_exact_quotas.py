"""Quotas are exact under concurrency: 80 concurrent creates and joins by one player, spread
over the two worker processes of `tabletop serve --workers 2` (a new connection each), get
exactly the open-games cap, however they interleave; the rest are refused 429
`too_many_open_games`. And the player's games in the read model afterwards are the cap."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.faults.conftest import Server, server_env

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("quotas")]

CAP = 50
REQUESTS = 80


def _register(url: str, name: str) -> dict[str, Any]:
    answer = httpx.post(f"{url}/v1/players", json={"name": name}, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['api_key']}"}


def _open_games(url: str, creator: dict[str, Any], count: int) -> list[str]:
    body = {"game": "secret-duel", "seats": 2, "seat": 0}
    made = [httpx.post(f"{url}/v1/games", json=body, headers=_auth(creator), timeout=30)
            for _ in range(count)]  # fmt: skip
    assert all(r.status_code == 201 for r in made), [r.text for r in made if r.is_error][:3]
    return [r.json()["id"] for r in made]


def test_concurrent_creates_and_joins_get_exactly_the_cap(
    pg_settings: Settings, tmp_path: Path
) -> None:
    assert pg_settings.database_url is not None
    env = server_env(
        pg_settings.database_url,
        TABLETOP_LIMIT_OPEN_GAMES=str(CAP),
        TABLETOP_LIMIT_REGISTER="1000/60",
        TABLETOP_LIMIT_BOT_GAMES="1000/60",
    )
    server = Server(env, tmp_path / "serve.log", workers=2)
    server.start()
    try:
        url = server.url
        ada, bob = _register(url, "ada"), _register(url, "bob")
        joinable = _open_games(url, bob, REQUESTS // 2)  # bob's: ada may join each

        def create(_: int) -> httpx.Response:
            body = {"game": "secret-duel", "seats": 2, "seat": 0}
            with httpx.Client(base_url=url, timeout=60) as client:  # a connection of its own
                return client.post("/v1/games", json=body, headers=_auth(ada))

        def join(game: str) -> httpx.Response:
            with httpx.Client(base_url=url, timeout=60) as client:
                return client.post(f"/v1/games/{game}/join", headers=_auth(ada))

        with ThreadPoolExecutor(REQUESTS) as pool:
            creates = [pool.submit(create, i) for i in range(REQUESTS // 2)]
            joins = [pool.submit(join, game) for game in joinable]
            answers = [f.result() for f in creates + joins]

        made = [r for r in answers if r.status_code in (200, 201)]
        refused = [r for r in answers if r.status_code == 429]
        others = [(r.status_code, r.text) for r in answers if r not in made + refused]
        assert not others, others[:3]
        assert len(made) == CAP, f"{len(made)} admitted against a cap of {CAP}"
        assert {r.json()["code"] for r in refused} == {"too_many_open_games"}
        print(f"{REQUESTS} concurrent: {len(made)} admitted, {len(refused)} refused (cap {CAP})")

        # every process counts the same: one more is refused, wherever it lands
        for _ in range(4):
            with httpx.Client(base_url=url, timeout=30) as client:
                again = client.post(
                    "/v1/games",
                    json={"game": "secret-duel", "seats": 2, "seat": 0},
                    headers=_auth(ada),
                )
            assert again.status_code == 429, again.text
        listed = httpx.get(
            f"{url}/v1/games", params={"player": ada["id"], "limit": 100}, timeout=30
        ).json()["games"]
        assert len(listed) == CAP
    finally:
        server.stop()


def test_per_player_rates_hold_exactly_across_workers(
    pg_settings: Settings, tmp_path: Path
) -> None:
    """The per-player rates live in the database: 80 concurrent games with a bot and 80
    concurrent challenges by one player, over two workers, get exactly their rate's burst."""
    assert pg_settings.database_url is not None
    burst = 12
    env = server_env(
        pg_settings.database_url,
        TABLETOP_LIMIT_OPEN_GAMES="0",
        TABLETOP_LIMIT_REGISTER="1000/60",
        TABLETOP_LIMIT_BOT_GAMES=f"{burst}/3600",
        TABLETOP_LIMIT_COMPETITION=f"{burst}/3600",
    )
    server = Server(env, tmp_path / "serve.log", workers=2)
    server.start()
    try:
        url = server.url
        ada, bob = _register(url, "ada"), _register(url, "bob")

        def post(path: str, body: dict[str, Any]) -> httpx.Response:
            with httpx.Client(base_url=url, timeout=60) as client:  # a connection of its own
                return client.post(path, json=body, headers=_auth(ada))

        with_bot = {"game": "secret-duel", "seats": 2, "seat": 0, "bots": {"1": "random"}}
        challenge = {"players": [bob["id"]], "game": "secret-duel", "seats": 2}
        with ThreadPoolExecutor(REQUESTS) as pool:
            games = list(pool.map(lambda _: post("/v1/games", with_bot), range(REQUESTS)))
            asked = list(pool.map(lambda _: post("/v1/challenges", challenge), range(REQUESTS)))
        for answers, code in ((games, "bot_games_limited"), (asked, "competition_limited")):
            made = [r for r in answers if r.status_code == 201]
            refused = [r for r in answers if r.status_code == 429]
            assert len(made) + len(refused) == REQUESTS, [r.text for r in answers][:3]
            assert len(made) == burst, f"{code}: {len(made)} made against a burst of {burst}"
            assert {r.json()["code"] for r in refused} == {code}
            assert all(int(r.headers["retry-after"]) >= 1 for r in refused)
    finally:
        server.stop()

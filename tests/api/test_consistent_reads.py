"""Reads consistent across API processes: two apps on one Postgres (as `serve --workers 2`
runs them) each keep a cache; after a write answered by one, the other never reads less:
the game, its legal moves (never a 403 to a seated player), and a finished game always
reads as finished, with its export and audit."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from api.app import Tabletop, create_app
from api.main import build
from service.settings import Settings
from service.store import open_store
from tests.support.api import Api


@pytest.fixture
def two(pg_settings: Settings) -> Iterator[tuple[Api, Api]]:
    with TestClient(build(pg_settings)) as first:
        second_app = create_app(Tabletop(open_store(pg_settings), create_tables=False))
        with TestClient(second_app) as second:
            yield Api(first), Api(second)


def test_a_write_through_one_process_is_read_by_the_other(two: tuple[Api, Api]) -> None:
    a, b = two
    rng = random.Random(3)
    ada, bob = a.player("ada"), a.player("bob")
    game = a.create(ada, "caylus", 2, seat=0)
    assert b.game(game["id"], ada)["status"] == "open"  # b caches the open game
    assert a.client.post(f"/v1/games/{game['id']}/join", headers=a.auth(bob)).is_success
    seated = {0: ada, 1: bob}
    on_loop = b.client.app.state.tabletop.game_reads.heads  # type: ignore[attr-defined]
    asked = on_loop.queries
    moves = 0
    while (state := b.game(game["id"], ada))["status"] == "active":
        writer, reader = (a, b) if moves % 2 else (b, a)
        seat = state["awaiting"][0]
        legal = reader.legal(game["id"], seated[seat])  # never 403, never behind
        assert legal["version"] == state["version"]
        answer = writer.move(game["id"], seated[seat], legal["version"], rng.choice(legal["moves"]))
        assert answer.status_code == 200, answer.text
        after = answer.json()["version"]
        assert reader.game(game["id"], ada)["version"] == after  # read your writes
        assert writer.game(game["id"], ada)["version"] == after
        moves += 1
    assert moves > 50 and on_loop.queries > asked  # reads were answered on the loop
    for api in (a, b):
        assert api.game(game["id"])["status"] == "finished"
        assert api.client.get(f"/v1/games/{game['id']}/audit").json()["verified"]
        assert api.client.get(
            f"/v1/games/{game['id']}/replay", params={"version": state["version"]}
        ).is_success

"""Logs: JSON lines off a terminal, a request id on every line of a request, and every
applied move logged with game id, version, seat and duration."""

from __future__ import annotations

import io
import json
import random

from litestar.testing import TestClient

from api.main import build
from service.logs import configure
from service.settings import Settings
from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def test_request_id_and_moves_in_json_logs(sqlite_settings: Settings) -> None:
    buffer = io.StringIO()
    with TestClient(build(sqlite_settings)) as client:
        configure(json=True, stream=buffer)  # after build(), which configures stderr
        try:
            api = Api(client)
            ada = api.player("ada")
            game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)
            api.settled(game["id"], ada)  # the bot commits after the request, on its own
            legal = api.legal(game["id"], ada)
            rng = random.Random(f"{base_seed()}/logs")
            answer = client.post(
                f"/v1/games/{game['id']}/moves",
                json={"expected_version": legal["version"], "move": rng.choice(legal["moves"])},
                headers={**Api.auth(ada, "k1"), "X-Request-ID": "req-42"},
            )
            assert answer.status_code == 200
            assert answer.headers["x-request-id"] == "req-42"
        finally:
            configure()
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == "req-42"]
    assert {line["event"] for line in mine} >= {"move_applied", "request"}
    move = next(line for line in mine if line["event"] == "move_applied")
    assert move["game_id"] == game["id"] and move["seat"] == 0
    assert move["version"] == answer.json()["version"] and move["ms"] >= 0
    assert all("timestamp" in line and "level" in line for line in lines)
    others = {line.get("request_id") for line in lines} - {"req-42"}
    assert None not in others, "every line logged during a request carries its request id"

"""No clock runs while the service cannot act, under a Fischer 60+0 clock:

- `kill -9` of `tabletop serve` during a player's turn, the server down for a while, then
  started again. The timekeeper that takes over credits the player's clock for the outage
  before anything else (`clock_credit`), so the player's time left is what it was at the
  kill (to within the heartbeat's period and the test's own reads), the credit is in the
  export, the audit verifies it and the independent clock oracle accepts it.
- Postgres stopped during a player's turn while the server runs: the move sent meanwhile
  is answered 503; once the database is back, the same move (sent again) is charged only
  the time the player had used before the outage, not the outage."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.faults.clients import export
from tests.faults.conftest import SCALE, Server
from tests.support import clock_oracle
from tests.support.api import Api
from tests.support.cluster import Cluster
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]

OUTAGE_S = 3.0 * SCALE  # how long the server stays down: the scenario itself, not a wait
FISCHER_60 = {"kind": "fischer", "initial_s": 60, "increment_s": 0}


def _left(api: Api, game: str, player: dict[str, str]) -> int:
    seat = api.game(game, player)["clock"]["seats"][0]
    assert seat["running"]
    left: int = seat["remaining_ms"]
    return left


def _credits(api: Api, game: str) -> list[dict[str, Any]]:
    page = api.client.get(f"/v1/games/{game}/events", params={"limit": 1000}).json()
    return [e for e in page["events"] if e["type"] == "clock_credit"]


def _resign_and_finish(http: httpx.Client, game: str, headers: dict[str, str]) -> None:
    """She resigns, and the bots play her seat out (the export then shows the seed). Right
    after an outage a request may still meet a 503 (Retry-After): it is sent again."""

    def answered(method: str, path: str, **kwargs: Any) -> httpx.Response:
        answers: list[httpx.Response] = []
        wait_until(lambda: answers.append(http.request(method, path, **kwargs))
                   or answers[-1].status_code != 503, 60, f"{method} {path} answered")  # fmt: skip
        return answers[-1]

    resigned = answered("POST", f"/v1/games/{game}/resign", headers=headers)
    assert resigned.status_code == 200, resigned.text
    wait_until(lambda: answered("GET", f"/v1/games/{game}").json()["status"] == "finished",
               120, "the game played out")  # fmt: skip


def test_a_kill_9_during_a_turn_costs_the_player_no_time(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        api = Api(http)
        ada = api.player("ada")
        bots = {1: "random", 2: "random"}
        game = api.create(ada, "puerto-rico", 3, bots, seat=0, clock=FISCHER_60)["id"]
        api.settled(game, ada)  # the bots before ada have moved: her clock runs
        before = _left(api, game, ada)
    server.kill()
    time.sleep(OUTAGE_S)  # the outage
    url = server.start()
    with httpx.Client(base_url=url, timeout=30) as http:
        api = Api(http)
        wait_until(lambda: _credits(api, game), 30, "the clock credited for the outage")
        after = _left(api, game, ada)
        # Without the credit she would have lost the outage and the restart (over 3 s).
        assert abs(after - before) <= 1000, (before, after)
        (credit,) = _credits(api, game)
        assert credit["data"]["seats"] == [0] and credit["data"]["reason"] == "outage"
        assert credit["data"]["ms"] >= OUTAGE_S * 1000
        resigned = http.post(f"/v1/games/{game}/resign", headers=api.auth(ada))
        assert resigned.status_code == 200, resigned.text
        api.settled(game, ada, timeout=120)  # the bots play her seat out: the seed is shown
        lines = export(url, game)
        assert any(line.get("type") == "clock_credit" for line in lines)
        assert clock_oracle.check(lines) == []
        audit = http.get(f"/v1/games/{game}/audit").json()
        assert audit["verified"], audit


def test_a_move_answered_503_during_a_store_outage_is_never_charged(
    server: Server, cluster: Cluster
) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as http:
        api = Api(http)
        ada = api.player("ada")
        bots = {1: "random", 2: "random"}
        game = api.create(ada, "puerto-rico", 3, bots, seat=0, clock=FISCHER_60)["id"]
        shown = api.settled(game, ada)
        move = api.client.get(f"/v1/games/{game}/legal-moves", headers=api.auth(ada))
        body = {"expected_version": shown["version"], "move": move.json()["moves"][0]}
        headers = api.auth(ada, key="during-the-outage")

        def send() -> httpx.Response:
            return http.post(f"/v1/games/{game}/moves", json=body, headers=headers)

        cluster.stop("immediate")
        try:
            wait_until(lambda: http.get("/health").status_code == 503, 30, "the outage seen")
            time.sleep(OUTAGE_S)  # the outage, during her turn
            refused = send()
            assert refused.status_code == 503, refused.text
        finally:
            cluster.start()
        answers: list[httpx.Response] = []
        wait_until(lambda: answers.append(send()) or answers[-1].status_code == 200, 60,
                   "the move accepted once the database is back")  # fmt: skip
        assert answers[-1].headers.get("idempotent-replayed") != "true"  # decided now
        held = {a.json()["code"] for a in answers if a.status_code == 503}
        assert held <= {"unavailable", "store_unavailable", "clocks_resuming"}, held
        _resign_and_finish(http, game, api.auth(ada, key="resign"))
        lines = export(server.url, game)
        assert clock_oracle.check(lines) == []
        charged = next(e for e in lines if e.get("clock") and e["seat"] == 0)
        assert any(e.get("type") == "clock_credit" for e in lines)
        # the outage (over 3 s) was the service's: she is charged well under it
        assert charged["clock"]["used_ms"] < 1500, charged

"""Postgres stopped at once (`pg_ctl stop -m immediate`, a crash as the database sees it)
while clients play: every request is answered while it is down, and promptly (503
`unavailable` with Retry-After; /health 503), even with many requests in flight; the server
recovers by itself when the database is back; and nothing acknowledged is lost.

The time bounds are generous multiples of what is required (503 from /health within 2 s,
from any route within a few seconds, recovery within 2 s of the database's return), so that
a loaded machine does not fail them while a hang (the 37 s, 120 s of the audit) does."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.faults.clients import Move, Table, Target, check_exactly_once, wait_for_acks
from tests.faults.conftest import SCALE, Server
from tests.support.cluster import Cluster
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]

HEALTH_BOUND = 4.0  # seconds for /health's 503 (required: 2)
ANSWER_BOUND = 15.0  # seconds for any request's 503 (required: a few; before, 37-120)
RECOVERY_BOUND = 6.0  # seconds from the database's return to /health 200 (required: 2)
OUTAGE = 3.0 * SCALE  # seconds the database stays down
IN_FLIGHT = 60  # requests sent at once while it is down


def _timed(call: Any, *args: Any, **kwargs: Any) -> tuple[httpx.Response, float]:
    """`call(*args, **kwargs)`'s answer, and how long it took."""
    started = time.monotonic()
    answer = call(*args, **kwargs)
    return answer, time.monotonic() - started


def _unavailable(answer: httpx.Response, took: float, bound: float) -> None:
    """A 503 problem `unavailable` with Retry-After, within `bound` seconds."""
    what = f"{answer.request.method} {answer.request.url.path}"
    assert took < bound, f"{what} took {took:.1f} s"
    assert answer.status_code == 503, f"{what}: {answer.status_code} {answer.text}"
    assert answer.headers["content-type"].startswith("application/problem+json"), what
    assert answer.json()["code"] in ("unavailable", "store_unavailable"), answer.text
    assert "retry-after" in answer.headers, f"{what}: 503 without Retry-After"


def test_an_immediate_postgres_stop_under_load(server: Server, cluster: Cluster) -> None:
    target = Target(server.url)
    http = httpx.Client(base_url=server.url, timeout=60)
    probe = Table(target, games=0)
    probe.run()  # registers its two players
    game = probe.new_game()
    tables = [Table(target, games=SCALE, seed=i, patience=30 + 2 * OUTAGE) for i in range(4)]
    for table in tables:
        table.start()
    figures: dict[str, float] = {}
    for _ in range(SCALE):
        wait_for_acks(tables, 40, seconds=30)
        move = Move(probe, game)
        cluster.stop("immediate")
        down = time.monotonic()

        with ThreadPoolExecutor(IN_FLIGHT) as pool:  # each on a connection of its own
            read = f"{server.url}/v1/games/{game}"
            reads = [pool.submit(_timed, httpx.get, read, timeout=60) for _ in range(IN_FLIGHT)]
            health, took = _timed(http.get, "/health")
            figures["health_503_s"] = max(figures.get("health_503_s", 0), took)
            assert health.status_code == 503 and took < HEALTH_BOUND, (health.text, took)
            _unavailable(*_timed(move.send, server.url, 60), ANSWER_BOUND)
            for done in reads:
                _unavailable(*done.result(), ANSWER_BOUND)
            slowest = max(took for _, took in (r.result() for r in reads))
            figures["read_503_s"] = max(figures.get("read_503_s", 0), slowest)
        time.sleep(max(0.0, down + OUTAGE - time.monotonic()))
        cluster.start()
        up = time.monotonic()
        wait_until(lambda: http.get("/health").status_code == 200, RECOVERY_BOUND, "recovery")
        figures["recovery_s"] = max(figures.get("recovery_s", 0), time.monotonic() - up)
        # the refused write, sent again as it was, is applied once
        again = move.send(server.url, 60)
        probe.acks.append(move.ack(again))
        assert move.send(server.url, 60).json() == again.json()
    for table in tables:
        table.finish(60 * SCALE)
    print("postgres stop:", {k: round(v, 2) for k, v in figures.items()})
    assert sum(t.seen.unavailable for t in tables) > 0, "no client met the outage"
    assert sum(t.seen.without_retry_after for t in tables) == 0, "a 503 without Retry-After"
    probe.play(game)
    assert check_exactly_once(server.url, [*tables, probe]) > 40 * SCALE

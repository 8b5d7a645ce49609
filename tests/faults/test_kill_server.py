"""`kill -9` of `tabletop serve` while clients play, then a restart: every move a client
was answered for is stored exactly once (its retries, same Idempotency-Key, answered as the
first time), the store holds no move nobody was answered for, and every game verifies."""

from __future__ import annotations

import pytest

from tests.faults.clients import Table, Target, check_exactly_once, wait_for_acks
from tests.faults.conftest import SCALE, Server

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]


def test_acknowledged_moves_survive_kill_9_exactly_once(server: Server) -> None:
    target = Target(server.url)
    tables = [Table(target, games=SCALE, seed=i) for i in range(4)]
    for table in tables:
        table.start()
    for _ in range(SCALE):  # a kill while moves are in flight, a restart, play goes on
        wait_for_acks(tables, 40, seconds=30)
        server.kill()
        target.url = server.start()
    for table in tables:
        table.finish(60 * SCALE)
    resent = sum(t.seen.resent for t in tables)
    assert resent > 0, "no client request met the kill: the test proved nothing"
    assert check_exactly_once(server.url, tables) > 40 * SCALE

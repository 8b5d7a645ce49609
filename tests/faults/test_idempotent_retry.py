"""A client that gives up on a move (its timeout passes before the answer) and sends it again
with the same Idempotency-Key gets it applied exactly once, and the answer of the first:
while the first is still being saved, and after the server was killed with the first's
save waiting in the database (which commits it once the server is gone).

The save is held up by the test itself, taking the lock that every save takes on the events
table; reads go on meanwhile."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import psycopg
import pytest

from tests.faults.clients import Move, Table, Target, check_exactly_once, stored_version
from tests.faults.conftest import Server
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]

GIVE_UP = 0.5  # seconds the client waits for the first answer


@contextmanager
def saves_held(database_url: str) -> Iterator[psycopg.Connection[Any]]:
    """Every save waits while this is open (the events table locked as a save locks it)."""
    with psycopg.connect(database_url) as conn:
        conn.execute("LOCK TABLE tabletop_events IN EXCLUSIVE MODE")
        yield conn


def _waiting_saves(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query ILIKE '%saved(id)%'"
        ).fetchone()
        return int(row[0]) if row else 0


def _moves_under_way(url: str) -> int:
    """Move requests the server has begun and not answered (its in-progress gauge)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    found = re.search(
        r'^tabletop_http_requests_in_progress{method="POST",route="/v1/games/{game_id}/moves"}'
        r" (\S+)$",
        text,
        re.M,
    )
    return int(float(found.group(1))) if found else 0


def _given_up(move: Move, url: str) -> None:
    with pytest.raises(httpx.TimeoutException):
        move.send(url, GIVE_UP)


def test_a_move_sent_again_after_a_timeout_is_applied_once(server: Server, database: str) -> None:
    target = Target(server.url)
    table = Table(target, games=0)
    table.run()
    game = table.new_game()

    # 1. given up while its save waits; sent again before that save ends
    move = Move(table, game)
    again: list[httpx.Response] = []
    with saves_held(database):
        _given_up(move, server.url)
        wait_until(lambda: _waiting_saves(database) > 0, 10, "the first save waiting")
        retry = threading.Thread(target=lambda: again.append(move.send(server.url, 30)))
        retry.start()
        wait_until(lambda: _moves_under_way(server.url) == 2, 10, "the retry waiting too")
        wait_until(lambda: stored_version(database, game) == move.expected, 1, "held")
    retry.join(30)
    first = move.ack(again[0])
    assert move.send(server.url, 30).json() == again[0].json()  # and a third time: the same
    assert stored_version(database, game) == first.versions[-1]
    table.acks.append(first)

    # 2. given up, then the server killed while the save waits in the database; the save
    #    commits there after the server is gone; a new server answers the retry
    move = Move(table, game)
    with saves_held(database):
        _given_up(move, server.url)
        wait_until(lambda: _waiting_saves(database) > 0, 10, "the save waiting")
        server.kill()
    wait_until(lambda: stored_version(database, game) > move.expected, 10, "the save committed")
    committed = stored_version(database, game)
    target.url = server.start()
    second = move.ack(move.send(server.url, 30))
    assert second.versions[-1] == committed == stored_version(database, game)
    table.acks.append(second)

    table.play(game)  # to the end, so that the export and the audit check it all
    assert check_exactly_once(server.url, [table]) == len(table.acks)

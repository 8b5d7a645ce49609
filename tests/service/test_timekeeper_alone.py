"""`tabletop timekeeper run`, a process of its own (serve then runs with
TABLETOP_TIMEKEEPER=elsewhere): a timeout it writes that leaves a seat to a bot is played
by the bot runner beside it at once, not seconds later by another process's sweep, and it
stops when asked."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

import pytest

from projections.runner import GamesRunner, view_for
from service import timekeeper
from service.audit import stored_lines
from service.bot_runner import GRACE_US
from service.clocks import micros
from service.players import Players
from service.settings import Settings
from service.store import EventStoreApp
from tests.support.games import GameService
from tests.support.waits import wait_until

pytestmark = pytest.mark.postgres

CLOCK = {"kind": "fischer", "initial_s": 1, "increment_s": 0}


def test_a_timekeeper_of_its_own_plays_the_bot_its_timeout_leaves_awaited(
    pg_settings: Settings, store: EventStoreApp
) -> None:
    projections = GamesRunner(pg_settings)  # the read model: the deadlines it reads
    stop = threading.Event()
    keeping = threading.Thread(
        target=timekeeper.run_forever, args=(pg_settings, view_for, stop), daemon=True
    )
    try:
        players = Players(store)
        ada, bob = players.register("ada")[0], players.register("bob")[0]
        api = GameService(store, bots=False)  # serve's process: no runner hears this game
        created = api.create(ada, "puerto-rico", 2, {}, {}, 0, CLOCK, "bot:random")
        api.join(bob, created.id, 1)
        keeping.start()
        # Whoever is to move lets the 1 s pass: the timekeeper times the seat out, and its
        # runner (not this process, which has none) makes the policy bot's decision.
        wait_until(lambda: len(_after_timeout(store, created.id)) >= 2, 30, "the bot's move")
        timed_out, decision = _after_timeout(store, created.id)[:2]
        seat = timed_out["data"]["seat"]
        assert decision["seat"] == seat and decision["command"] is not None
        thought = micros(decision["at"]) - micros(timed_out["at"])
        assert thought < GRACE_US, f"the bot moved {thought} µs after the timeout: a sweep's"
    finally:
        stop.set()
        if keeping.ident is not None:
            keeping.join(30)
        projections.close()
    assert not keeping.is_alive(), "the timekeeper did not stop"


def _after_timeout(store: EventStoreApp, game_id: UUID) -> list[dict[str, Any]]:
    """The game's first timeout and the events after it."""
    lines = stored_lines(store, game_id)
    first = next((i for i, line in enumerate(lines) if line["type"] == "timed_out"), None)
    return [] if first is None else lines[first:]

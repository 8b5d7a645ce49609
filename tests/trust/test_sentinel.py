"""The sentinel on both stores: a pass finds a game whose record is not its leaf, keeps the
finding where another process reads it, clears it once the record is restored, and reads
the store within its budget."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from service.findings import Findings
from service.players import Players
from service.role_lock import RoleLock
from service.sentinel import Pace, Sentinel
from service.settings import Settings
from service.store import EventStoreApp, open_store
from service.transparency import log_of
from tests.support.games import GameService, close_over
from tests.trust.rewrite import rewrite_game


def _ended_games(store: EventStoreApp, settings: Settings, count: int) -> list[str]:
    """`count` games of bots played to their end, and logged."""
    games = GameService(store)
    player = Players(store).register("ada")[0]
    created = [
        games.create(player, "secret-duel", 2, {}, {0: "random", 1: "random"}) for _ in range(count)
    ]
    for fold in created:
        assert games.settled(fold.id).status == "finished"
    logged = log_of(store)
    assert logged.take(RoleLock(settings, "transparency"))
    logged.sync()
    return [str(fold.id) for fold in created]


def test_a_pass_finds_keeps_and_clears_a_tampered_game(any_settings: Settings) -> None:
    store, other = open_store(any_settings), open_store(any_settings)
    try:
        ended = _ended_games(store, any_settings, 3)
        sentinel = Sentinel(store, Pace(period_s=0))
        assert sentinel.sweep() == [] and sentinel.checked == 3
        original = {}

        def keep_and_change(version: int, event: dict[str, Any]) -> None:
            if event["type"] == "game_finished":
                original["at"] = event["at"]
                event["at"] = "2000-01-01T00:00:00.000000Z"

        rewrite_game(any_settings, UUID(ended[1]), keep_and_change)
        found = sentinel.sweep()
        assert [(t.game, t.what) for t in found] == [(ended[1], "final_hash_differs")]
        # another process (its own store) reads the finding
        assert list(Findings(other).tampered()) == [ended[1]]
        assert sentinel.sweep() == found  # found again, recorded once
        assert len(Findings(other).tampered()) == 1

        def restore(version: int, event: dict[str, Any]) -> None:
            if event["type"] == "game_finished":
                event["at"] = original["at"]

        rewrite_game(any_settings, UUID(ended[1]), restore)
        assert sentinel.sweep() == []
        assert Findings(other).tampered() == {}
    finally:
        close_over(store)
        store.close()
        other.close()


def test_a_pass_reads_within_its_budget(sqlite_settings: Settings) -> None:
    store = open_store(sqlite_settings)
    try:
        _ended_games(store, sqlite_settings, 3)
        events = sum(len(list(store.recorder.select_events(UUID(leaf.subject))))
                     for leaf in log_of(store).held(0, 10))  # fmt: skip
        budget = events / 0.5  # events a second: the pass must take half a second at least
        began = time.monotonic()
        Sentinel(store, Pace(events_per_s=budget, period_s=0)).sweep()
        assert time.monotonic() - began >= 0.45
        began = time.monotonic()  # the period shares the pass out when it is the longer
        Sentinel(store, Pace(events_per_s=1e9, period_s=0.6)).sweep()
        assert time.monotonic() - began >= 0.55
    finally:
        close_over(store)
        store.close()

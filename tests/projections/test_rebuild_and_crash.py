"""The read models are a pure function of the log: a rebuild from zero equals the models
kept current while the games were played, and a runner killed between two events and
restarted applies every event exactly once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

from projections.runner import GamesRunner, rebuild, view_for
from service.clocks import micros
from service.settings import Settings
from service.store import open_store
from service.wakeup import ring
from tests.projections.conftest import BOTS, bot_games
from tests.support.games import GameService, close_over


def _check_exactly_once(snapshot: dict[str, list[tuple[object, ...]]]) -> None:
    for row in snapshot["games"]:
        names = ("game_id", "seq", "game", "status", "version", "last_activity", "applied")
        game = dict(zip(names, row, strict=False))
        assert game["applied"] == game["version"], game


def test_rebuild_equals_the_incremental_build(any_settings: Settings) -> None:
    count = 300 if any_settings.database_url else 60
    store = open_store(any_settings)
    runner = GamesRunner(any_settings)  # incremental: runs while the games are played
    try:
        games = GameService(store)
        games.games.writes.listen(lambda *_: ring())  # what the app does: wake the runner
        bot_games(games, count, random.Random(7))
        # and games whose bots no runner plays: they await a bot (rm_bot_turns) at the end
        unplayed = GameService(store, bots=False)
        unplayed.games.writes.listen(lambda *_: ring())
        stalled = [
            unplayed.create(BOTS, "secret-duel", 2, {}, {0: "random", 1: "random"})
            for _ in range(3)
        ]
        # timed games of bots (their seats' clocks run): a deadline while they play, none
        # once over; and one that stalls with its clock running
        clock = {"kind": "fischer", "initial_s": 600, "increment_s": 0}
        timed = [
            games.create(BOTS, "secret-duel", 2, {}, {0: "random", 1: "random"}, None, clock)
            for _ in range(3)
        ]
        stalled_timed = unplayed.create(
            BOTS, "secret-duel", 2, {}, {0: "random", 1: "random"}, None, clock
        )
        for game in timed:
            assert games.settled(game.id).status == "finished"
        runner.caught_up(timeout=60)
        view = view_for(store)
        incremental = view.snapshot()
    finally:
        runner.close()
        close_over(store)  # its bot runner stops before the store closes
    try:
        stalled.append(stalled_timed)
        assert len(incremental["games"]) == count + len(stalled) + len(timed)
        statuses = {r[0]: r[3] for r in incremental["games"]}
        assert {statuses.pop(str(g.id)) for g in stalled} == {"active"}
        assert set(statuses.values()) == {"finished"}
        awaiting = {str(g.id): micros(g.last_at) for g in stalled}
        assert dict(incremental["bot_turns"]) == awaiting  # since: when they began to wait
        deadline = micros(stalled_timed.last_at) + 600_000_000  # its first seat's
        assert incremental["deadlines"] == [(str(stalled_timed.id), deadline)]
        _check_exactly_once(incremental)
        rebuild(any_settings)
        assert view.snapshot() == incremental
    finally:
        store.close()


def _tracked(view: object, name: str) -> int:
    return view.max_tracking_id(name) or 0  # type: ignore[attr-defined]


def test_a_runner_killed_between_events_applies_each_exactly_once(pg_settings: Settings) -> None:
    store = open_store(pg_settings)
    try:
        bot_games(GameService(store), 100, random.Random(11))
        close_over(store)  # every game is over: nothing more is written
        view = view_for(store)
        view.create_table()
        latest = store.recorder.max_notification_id() or 0
        env = {
            **os.environ,
            "DATABASE_URL": pg_settings.database_url or "",
            "TABLETOP_PROJECTION_BATCH": "3",  # many small commits: the kill lands mid-stream
        }
        command = [sys.executable, "-m", "api.cli", "projections", "run"]
        kills = 0
        deadline = time.monotonic() + 60
        while _tracked(view, store.name) < latest and kills < 3:
            process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
            start = _tracked(view, store.name)
            while _tracked(view, store.name) <= start + 200 and time.monotonic() < deadline:
                time.sleep(0.01)
            process.send_signal(signal.SIGKILL)
            process.wait()
            kills += 1
            assert _tracked(view, store.name) > 0, "the runner made no progress"
        assert _tracked(view, store.name) < latest, "the runner finished before the kill"
        process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        try:
            while _tracked(view, store.name) < latest:
                assert time.monotonic() < deadline, "the restarted runner did not catch up"
                time.sleep(0.05)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(10)
        resumed = view.snapshot()
        _check_exactly_once(resumed)
        rebuild(pg_settings)
        assert view.snapshot() == resumed
    finally:
        store.close()

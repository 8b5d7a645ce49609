"""Projection lag stays bounded while bots play 50 games at once (Postgres): every game
event reaches the read model within a few seconds of its append, most far sooner.

Each game has a bot client in seat 0 moving through GameService.move (random legal moves)
and server-side bots in the other seats, as games are played in production: many small
commits from many games at once, for a fixed time. The server's bots answer each move
after it (the bot runner's own writes): the client waits for them by hearing the commits
(`BotsDone`), which reads nothing from the store, so the load is the games' alone."""

from __future__ import annotations

import contextlib
import random
import statistics
import threading
import time
import uuid
from uuid import UUID

import pytest

from domain.registry import GAMES
from projections.runner import GamesRunner, lag, view_for
from service.errors import Problem
from service.fold import Fold
from service.players import Player
from service.settings import Settings
from service.store import open_store
from tests.projections.conftest import BOTS
from tests.support.games import GameService, close_over

GAMES_AT_ONCE = 50
PLAY_FOR = 8.0  # seconds
P99_BOUND = 5.0  # seconds


class BotsDone:
    """Waits until no bot is to move in a game, by hearing the write driver's commits (each
    commit hands over the game's new fold): no read of the store per wait or per commit."""

    def __init__(self, games: GameService) -> None:
        self._games = games
        self._lock = threading.Lock()
        self._waiting: dict[UUID, tuple[threading.Event, list[Fold]]] = {}
        games.games.writes.listen(self._heard)

    def _heard(self, stream: UUID, version: int, fold: Fold | None) -> None:
        if fold is None or fold.bot_turn() is not None:
            return
        with self._lock:
            waiter = self._waiting.get(stream)
        if waiter is not None:
            waiter[1].append(fold)
            waiter[0].set()

    def wait(self, game_id: UUID, timeout: float = 60) -> Fold:
        done: tuple[threading.Event, list[Fold]] = (threading.Event(), [])
        with self._lock:
            self._waiting[game_id] = done
        try:
            fold = self._games.get(game_id)  # heard from here on: no commit is missed
            if fold.bot_turn() is None:
                return fold
            assert done[0].wait(timeout), f"the bots of {game_id} did not move in {timeout} s"
            return done[1][-1]
        finally:
            with self._lock:
                del self._waiting[game_id]


def _bot_client(
    games: GameService, bots: BotsDone, name: str, start: threading.Barrier, until: float
) -> None:
    game = GAMES[name]
    seats = max(game.min_players, 3)
    me = Player(uuid.uuid4().hex, "client", "2026-01-01T00:00:00Z")
    rng = random.Random(name)
    fold = games.create(BOTS, name, seats, {}, dict.fromkeys(range(1, seats), "random"))
    start.wait()
    fold = bots.wait(games.join(me, fold.id, 0).id)
    while fold.status == "active" and time.monotonic() < until:
        _, moves = games.legal_moves(fold, 0, 0, 50)
        with contextlib.suppress(Problem):  # a move refused (none expected): try another
            games.move(me, fold.id, fold.version, rng.choice(moves), uuid.uuid4().hex)
        fold = bots.wait(fold.id)  # the server's bots answer after the move


def test_lag_stays_bounded_while_bots_play_50_games(
    pg_settings: Settings, record_property: pytest.RecordProperty
) -> None:
    store = open_store(pg_settings)
    runner = GamesRunner(pg_settings)
    try:
        games = GameService(store)
        bots = BotsDone(games)
        view = view_for(store)
        real = sorted(name for name in GAMES if name != "secret-duel")
        start = threading.Barrier(GAMES_AT_ONCE)
        until = time.monotonic() + PLAY_FOR

        samples: list[tuple[int, float]] = []
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                samples.append(lag(store, view))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        players = [
            threading.Thread(
                target=_bot_client, args=(games, bots, real[i % len(real)], start, until)
            )
            for i in range(GAMES_AT_ONCE)
        ]
        sampler.start()
        for t in players:
            t.start()
        for t in players:
            t.join()
        runner.caught_up(timeout=60)
        done.set()
        sampler.join()
    finally:
        runner.close()
        close_over(store)
        store.close()

    delays = sorted(runner.projection.delays)
    p99 = delays[int(len(delays) * 0.99)]
    figures = {
        "events": len(delays),
        "p50_s": round(statistics.median(delays), 3),
        "p99_s": round(p99, 3),
        "max_s": round(delays[-1], 3),
        "max_events_behind": max(s[0] for s in samples),
        "max_seconds_behind": round(max(s[1] for s in samples), 3),
    }
    record_property("projection_lag", figures)
    print(f"projection lag with {GAMES_AT_ONCE} concurrent bot games: {figures}")
    assert len(delays) > GAMES_AT_ONCE * 100
    assert p99 < P99_BOUND, figures

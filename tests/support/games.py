"""The game service as a test's thread uses it: every write waits for its answer (it runs on
the write driver's loop, service/writes.py), reads are the service's, and a bot runner plays
the bots' seats; `settled` waits, on the commits themselves, until no bot is to move."""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any
from uuid import UUID

from service.bot_runner import BotRunner
from service.fold import Fold
from service.games import Games
from service.store import EventStoreApp

OPEN: list[GameService] = []  # closed after each test (tests/conftest.py)


class GameService:
    def __init__(
        self, store: EventStoreApp, now: Callable[[], str] | None = None, bots: bool = True
    ) -> None:
        self.games = Games(store, now=now) if now is not None else Games(store)
        self.store = store
        self.reads = self.games.reads
        self._commits = threading.Condition()
        self.games.writes.listen(self._heard)
        self.bots: BotRunner | None = None
        self._running: Future[None] | None = None
        if bots:
            self.start_bots()
        OPEN.append(self)

    def start_bots(self, *games: UUID) -> BotRunner:
        """Start the bot runner (of an adapter made with `bots=False`: until now the bots'
        seats waited); it looks at `games` first, and hears of every later commit."""
        assert self.bots is None, "the bot runner runs already"
        self.bots = BotRunner(self.games)
        for game_id in games:
            self.bots.look_at(game_id)
        self._running = self.games.writes.spawn(self.bots.run())
        return self.bots

    def _heard(self, stream: UUID, version: int, fold: Fold | None) -> None:
        with self._commits:
            self._commits.notify_all()

    def __getattr__(self, name: str) -> Any:
        for owner in (self.games, self.reads):
            found = getattr(owner, name, None)
            if found is None:
                continue
            if inspect.iscoroutinefunction(found):
                return lambda *args, **kwargs: self.games.blocking(found(*args, **kwargs))
            return found
        raise AttributeError(name)

    def settled(self, game_id: UUID, timeout: float = 60.0) -> Fold:
        """The game once no bot is to move in it (over, or awaiting a person)."""
        deadline = time.monotonic() + timeout
        with self._commits:
            while True:
                fold = self.reads.get(game_id)
                if fold.bot_turn() is None:
                    return fold
                left = deadline - time.monotonic()
                assert left > 0, (
                    f"the bots of {game_id} did not move in {timeout} s: "
                    f"{fold.bot_turn()} at version {fold.version}"
                )
                self._commits.wait(min(left, 0.5))

    def close(self) -> None:
        if self.bots is not None and self._running is not None:
            self.bots.stop()
            self._running.result(30)
            self._running = None
        self.games.writes.close()


def close_over(store: EventStoreApp) -> None:
    """Close every open adapter over `store`: their bot runners and loops stop before the
    store closes (a store closed under a running write fails it, and SQLite may crash)."""
    for service in [s for s in OPEN if s.store is store]:
        OPEN.remove(service)
        service.close()

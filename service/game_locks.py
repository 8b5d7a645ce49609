"""Per-game locks that exist only while someone holds one or waits for it.

A lock kept for every game id ever asked about would grow with every request naming a game,
real or not (a move or a join on an id that does not exist); these are forgotten as soon as
their last user releases them.
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID


class GameLocks:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held: dict[UUID, GameLock] = {}

    def __call__(self, game_id: UUID) -> GameLock:
        """The game's lock, counted as used until it is released (or fails to acquire):
        acquire it at once."""
        with self._guard:
            lock = self._held.get(game_id)
            if lock is None:
                lock = self._held[game_id] = GameLock(self, game_id)
            lock.users += 1
            return lock

    def _done(self, lock: GameLock) -> None:
        with self._guard:
            lock.users -= 1
            if not lock.users:
                del self._held[lock.game_id]

    def __len__(self) -> int:
        return len(self._held)


class GameLock:
    __slots__ = ("_lock", "_locks", "game_id", "users")

    def __init__(self, locks: GameLocks, game_id: UUID) -> None:
        self._locks = locks
        self._lock = threading.Lock()
        self.game_id = game_id
        self.users = 0

    def acquire(self, blocking: bool = True) -> bool:
        if self._lock.acquire(blocking):
            return True
        self._locks._done(self)
        return False

    def release(self) -> None:
        self._lock.release()
        self._locks._done(self)

    def __enter__(self) -> GameLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

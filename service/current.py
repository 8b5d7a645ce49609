"""The games as they stand: a process's cache of folds and seeds, caught up from the store.

Writes decide on the cached fold first (the usual case: nothing to read), and on the fold
caught up from the store when the cached one may trail another process. Reads catch the
cached fold up with whatever another process appended (one indexed read), so no read shows
less than a write any client was answered for. The cache is bounded by memory
(service/fold_cache.py); a game's seed is dropped with its fold.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

import structlog

from service import snapshots
from service.bounded import BoundedMap
from service.errors import Conflict, NotFound
from service.fold import GAME_CREATED, UNREADABLE, Fold
from service.fold_cache import FoldCache
from service.reader import read_events
from service.records import seed_stream
from service.settings import Limits
from service.store import EventStoreApp, SeedKept

log = structlog.get_logger("tabletop.games")

# The cache's bounds: TABLETOP_CACHE_MB of folds by their deep size (service/fold_cache.py),
# and TABLETOP_CACHE_GAMES games.
_LIMITS = Limits.from_env()
CACHE_BYTES = int(_LIMITS.cache_mb * 2**20)
CACHE_SIZE = _LIMITS.cache_games


class Current:
    def __init__(self, store: EventStoreApp) -> None:
        self.store = store
        self._cache = FoldCache(CACHE_BYTES, CACHE_SIZE)
        self._seeds: BoundedMap[UUID, bytes] = BoundedMap(CACHE_SIZE)
        # per game being read: (its lock, when its last store read began, readers)
        self._read_locks: dict[UUID, tuple[threading.Lock, list[float], int]] = {}
        self._locks_lock = threading.Lock()

    def cached(self, game_id: UUID) -> Fold | None:
        """The cached fold, as this process last wrote or read it (it may trail the store)."""
        return self._cache.get(game_id)

    def cached_seed(self, game_id: UUID) -> bytes | None:
        return self._seeds.get(game_id)

    def __contains__(self, game_id: UUID) -> bool:
        return game_id in self._cache

    def fresh(self, game_id: UUID) -> Fold:
        """The fold with every stored event applied (reads only what the cache lacks). It
        waits on the store: call it in a worker thread.

        Many reads of one game at once read the store once: they queue on the game's lock,
        and a read that finds the game read from the store after it arrived takes that fold
        (a read begun later holds everything stored before this one arrived). Without
        that, a few hundred readers of a game not in the cache each fold it from the store,
        and hold the pool's every connection for seconds."""
        arrived = time.monotonic()
        with self._reading(game_id) as last_read:
            fold = self._cache.get(game_id)
            if fold is not None and last_read[0] >= arrived:
                return fold
            began = time.monotonic()
            with readable(game_id):
                if fold is None:
                    loaded = snapshots.load(self.store, game_id)
                    if loaded is None:
                        raise NotFound("game_not_found", f"no game {game_id}")
                    fold = loaded
                else:
                    newer = read_events(self.store, game_id, gt=fold.version)
                    if newer:
                        fold = fold.advance(newer)
            self.remember(fold)
            last_read[0] = began
            return fold

    @contextmanager
    def _reading(self, game_id: UUID) -> Iterator[list[float]]:
        """Hold the game's read lock; yields the (mutable) time its last store read began,
        kept while some reader holds or waits on the lock."""
        with self._locks_lock:
            lock, last_read, users = self._read_locks.get(game_id, (threading.Lock(), [0.0], 0))
            self._read_locks[game_id] = (lock, last_read, users + 1)
        try:
            with lock:
                yield last_read
        finally:
            with self._locks_lock:
                lock, last_read, users = self._read_locks[game_id]
                if users == 1:
                    del self._read_locks[game_id]
                else:
                    self._read_locks[game_id] = (lock, last_read, users - 1)

    def remember(self, fold: Fold, seed: bytes | None = None) -> None:
        """Keep `fold` (the newest this process knows of its game), and its seed if given."""
        if seed is not None:
            self._seeds.put(fold.id, seed)
        for dropped in self._cache.keep(fold):
            self._seeds.pop(dropped)

    def seed(self, game_id: UUID) -> bytes:
        """The game's secret seed (read from its stream when it is not held)."""
        seed = self._seeds.get(game_id)
        if seed is None:
            kept = next(iter(self.store.events.get(seed_stream(game_id), limit=1)))
            assert isinstance(kept, SeedKept), "a game's seed stream holds its SeedKept"
            seed = bytes.fromhex(kept.seed)
            self._seeds.put(game_id, seed)
        return seed

    def exists(self, game_id: UUID) -> bool:
        """Whether the store holds that game."""
        if game_id in self._cache:
            return True
        first = list(self.store.events.get(game_id, limit=1))
        return bool(first) and getattr(first[0], "type", None) == GAME_CREATED


@contextmanager
def readable(game_id: UUID) -> Iterator[None]:
    """A stored record that no longer reads, or no longer folds, is damage to that game, not
    a fault of the server: the game is refused with a stable code until it is repaired, and
    its audit (which reads the raw records) names the damaged version."""
    try:
        yield
    except UNREADABLE as error:
        log.error("game_damaged", game_id=str(game_id), error=repr(error))
        raise Conflict(
            "game_damaged",
            f"a stored event of this game cannot be read; GET /v1/games/{game_id}/audit names it",
        ) from None

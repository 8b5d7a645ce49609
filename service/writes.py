"""The write driver: every write of the service, of a game or a tournament, in one path.

    read the current state -> decide (a function of it, service/decisions.py) -> append at
    the expected version -> on a conflict, read the store and decide again -> once
    committed, keep the new folds and tell the listeners registered at start-up

Writes are optimistic: each decided event carries its version, and the store's unique
(stream, version) key refuses a stale one, which means another process wrote first. The
first attempt decides on the cached fold when there is one (nothing to read); a refusal or a
conflict then re-reads the store, since a refusal must not depend on how far this process
trails. A per-stream lock keeps the writes of one process from racing each other for
nothing.

The driver runs on one event loop: the first that runs a write, or (for callers in other
threads, or without a loop: the timekeeper, the tournament director, the command line) one
of its own in a thread (`blocking`). Decisions are cheap and run on the loop unless a write
asks for a worker thread (a tournament's, which reads its games); reading a fold from the
store and, on SQLite, saving run in worker threads. On Postgres, saves go through the loop
writer (service/loop_writer.py) with no thread hop. A write runs to its end as one task
once begun: a client that goes away cannot leave a commit unannounced.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

import anyio
import anyio.from_thread
import structlog
from eventsourcing.persistence import RecordConflictError

from service.current import Current, readable
from service.errors import Conflict, Problem, Unavailable
from service.fold import Fold
from service.group_commit import GroupCommit
from service.loop_writer import LoopWriter
from service.pg_recorder import LockedFunctionRecorder
from service.store import EventStoreApp, Recorded

log = structlog.get_logger("tabletop.writes")

ATTEMPTS = 5  # decisions per write: a game that changes more often than this answers 409
WRITE_THREADS = 8  # worker threads of the writes' own (reads from the store, SQLite saves)
_T = TypeVar("_T")

# Told of each commit, after it: (stream id, its new version, the game's fold or None).
Listener = Callable[[UUID, int, Fold | None], None]


@dataclass(frozen=True)
class Decided:
    """A write decided and not saved yet: the events to save in one transaction, what the
    write answers (made once it is saved), the games' folds the events make (kept and
    announced once saved) with new games' seeds, and other streams written (announced)."""

    events: list[Any]
    answer: Callable[[], Any]
    folds: tuple[Fold, ...] = ()
    seeds: dict[UUID, bytes] = field(default_factory=dict)
    streams: tuple[tuple[UUID, int], ...] = ()


@dataclass(frozen=True)
class Answered:
    """A write with nothing to save: its answer is known already."""

    answer: Any


@dataclass
class _Lock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class Writes:
    """The driver. `run` is the one path; `blocking` runs it from a thread."""

    def __init__(self, store: EventStoreApp, current: Current, now: Callable[[], str]) -> None:
        self.store = store
        self.current = current
        self.now = now  # the server's time as an `at` stamp (tests inject a fake clock)
        self.group = GroupCommit(store)
        pg = isinstance(store.recorder, LockedFunctionRecorder)
        self.loop_writer = LoopWriter(store) if pg else None
        self._locks: dict[UUID, _Lock] = {}
        self._listeners: list[Listener] = []
        self._inflight: set[asyncio.Task[Any]] = set()  # writes begun and not ended
        self._threads: anyio.CapacityLimiter | None = None  # made on the loop (`in_thread`)
        self._draining = False  # set by `drain`: no write begins after it
        self._loop: asyncio.AbstractEventLoop | None = None
        self._portal: Any = None  # the context of a loop of our own, for `blocking`
        self._start = threading.Lock()
        self.committed = 0  # writes committed by this process (tests, metrics)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the writes on `loop` (the server's, at start-up)."""
        if self._loop is None:
            self._loop = loop

    def listen(self, listener: Listener) -> None:
        """Tell `listener` of every commit from now on (registered at start-up)."""
        self._listeners.append(listener)

    async def run(
        self,
        key: UUID,
        read: Callable[[bool], Awaitable[Any]],
        decide: Callable[[Any, str], Decided | Answered],
        fresh_first: bool = False,
        decide_in_thread: bool = False,
    ) -> Any:
        """Write to the stream `key`: `read(fresh)` gives what `decide` needs (fresh: as the
        store holds it now; else the cached state may do), `decide(it, at)` what to write.
        A refusal (Problem) on the cached state is checked again on the store's; a conflict
        reads the store and decides again, ATTEMPTS times at most (then 409 `busy`)."""
        if self._draining:
            raise Unavailable("stopping", "the server is stopping: try again in a moment")
        running = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = running
        if running is not self._loop:  # another thread's loop: the write runs on ours
            coroutine = self.run(key, read, decide, fresh_first, decide_in_thread)
            return await asyncio.wrap_future(_submit(coroutine, self._loop))
        task = asyncio.ensure_future(
            self._attempts(key, read, decide, fresh_first, decide_in_thread)
        )
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        task.add_done_callback(_observed)
        return await asyncio.shield(task)

    async def _attempts(
        self,
        key: UUID,
        read: Callable[[bool], Awaitable[Any]],
        decide: Callable[[Any, str], Decided | Answered],
        fresh_first: bool,
        decide_in_thread: bool,
    ) -> Any:
        held = self._locks.setdefault(key, _Lock())
        held.users += 1
        try:
            async with held.lock:
                for attempt in range(ATTEMPTS):
                    fresh = fresh_first or attempt > 0
                    current = await read(fresh)
                    at = self.now()
                    try:
                        if decide_in_thread:
                            outcome = await self.in_thread(decide, current, at)
                        else:
                            outcome = decide(current, at)
                    except Problem:
                        if fresh:
                            raise
                        continue  # the cache may trail another process: ask the store
                    if isinstance(outcome, Answered):
                        return outcome.answer
                    if await self._saved(outcome.events):
                        self._commit(outcome)
                        return outcome.answer()
        finally:
            held.users -= 1
            if not held.users:
                del self._locks[key]
        raise Conflict("busy", "the game changed too often; try again")

    async def _saved(self, events: list[Any]) -> bool:
        """Save `events` atomically; False when another writer took one of their versions
        first (a save whose answer was lost meets its own events: True)."""
        try:
            if self.loop_writer is not None and self.loop_writer.takes(events):
                await self.loop_writer.save(events)
            else:
                await self.in_thread(lambda: self.group.save(*events))
        except RecordConflictError:
            return bool(await self.in_thread(self._stored_already, events))
        return True

    async def in_thread(self, call: Callable[..., _T], *args: Any) -> _T:
        """`call` in a worker thread of the driver's own: callers that wait for a write from
        worker threads of the shared pool (`blocking`) can never take every thread the
        write itself needs."""
        if self._threads is None:
            self._threads = anyio.CapacityLimiter(WRITE_THREADS)
        return await anyio.to_thread.run_sync(call, *args, limiter=self._threads)

    def _stored_already(self, events: list[Any]) -> bool:
        """Whether the store holds these events' first: its hash covers its time and its
        whole chain, so only this very write can have stored it."""
        first = next(e for e in events if isinstance(e, Recorded))
        version = first.originator_version
        with readable(first.originator_id):
            stored = list(self.store.events.get(first.originator_id, gt=version - 1, lte=version))
        return bool(stored) and getattr(stored[0], "hash", None) == first.hash

    def _commit(self, outcome: Decided) -> None:
        self.committed += 1
        for kept in outcome.folds:
            self.current.remember(kept, outcome.seeds.get(kept.id))
        told: list[tuple[UUID, int, Fold | None]] = [(f.id, f.version, f) for f in outcome.folds]
        told += [(stream, version, None) for stream, version in outcome.streams]
        for stream, version, fold in told:
            for listener in self._listeners:
                try:
                    listener(stream, version, fold)
                except Exception:  # a listener's fault must not undo a commit's answer
                    log.exception("listener_failed", stream=str(stream))

    # ---- reading a game ------------------------------------------------------------------

    def game(self, game_id: UUID) -> Callable[[bool], Awaitable[tuple[Fold, bytes]]]:
        """A `read` for a game's writes: (fold, seed), from memory when both are held and
        the cached fold may do, else caught up from the store in a worker thread."""

        async def read(fresh: bool) -> tuple[Fold, bytes]:
            if not fresh:
                fold, seed = self.current.cached(game_id), self.current.cached_seed(game_id)
                if fold is not None and seed is not None:
                    return fold, seed

            def from_store() -> tuple[Fold, bytes]:
                return self.current.fresh(game_id), self.current.seed(game_id)

            return await self.in_thread(from_store)

        return read

    # ---- callers without the loop --------------------------------------------------------

    def blocking(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run a write's coroutine from a thread that is not the driver's loop's, and wait
        for its answer."""
        loop = self._loop or self._own_loop()
        try:
            mine = asyncio.get_running_loop()
        except RuntimeError:
            mine = None
        if mine is loop:
            coroutine.close()
            raise RuntimeError("blocking() called on the driver's own loop: await instead")
        return _submit(coroutine, loop).result()

    def spawn(self, coroutine: Coroutine[Any, Any, _T]) -> Future[_T]:
        """Run `coroutine` on the driver's loop, in the background (a bot runner beside the
        writes of a process without a server: the tests, the command line)."""
        return _submit(coroutine, self._loop or self._own_loop())

    def _own_loop(self) -> asyncio.AbstractEventLoop:
        with self._start:
            if self._loop is None:
                self._portal = anyio.from_thread.start_blocking_portal()
                portal = self._portal.__enter__()
                self._loop = portal.call(asyncio.get_running_loop)
            return self._loop

    async def drain(self) -> None:
        """Let the writes begun end, and the loop writer close its connection (before the
        store closes). Writes asked for from now on are refused (503 `stopping`)."""
        self._draining = True
        while self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        if self.loop_writer is not None:
            await self.loop_writer.close()

    def close(self) -> None:
        """Stop the driver's own loop, if it started one (after `drain` on it)."""
        if self._portal is not None:
            loop = self._loop
            if loop is not None:
                _submit(self.drain(), loop).result()
            self._portal.__exit__(None, None, None)
            self._portal = None
            self._loop = None


def _submit(coroutine: Coroutine[Any, Any, _T], loop: asyncio.AbstractEventLoop) -> Future[_T]:
    return asyncio.run_coroutine_threadsafe(coroutine, loop)


def _observed(task: asyncio.Future[Any]) -> None:
    """A write whose caller went away: its error is not "never retrieved"."""
    if not task.cancelled():
        task.exception()

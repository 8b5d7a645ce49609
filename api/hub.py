"""The live hub: wakes the waiters on a game (its live streams and long polls) when its log
grows: at once for commits of this process (a listener of the write driver), and through a
subscription to the log for other processes (LISTEN/NOTIFY on Postgres). It follows the log
only while someone waits: with no one, a commit costs this process nothing.

It also holds the fan-out (api/handoff.py), started with the first game stream that can be
handed over to it, and stopped with the hub.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

import anyio
import structlog

from api.live_pace import GATHER
from service.store import EventStoreApp
from service.wakeup import subscribe

if TYPE_CHECKING:
    from api.handoff import Handoff

log = structlog.get_logger("tabletop.live")

ANY_GAME = UUID(int=0)  # watching it wakes on every game's commits (the player streams)


_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]


class LiveHub:
    """Wakes the open streams of a game. It follows the log (for other processes' commits)
    only while some stream is open: with none, a commit costs this process nothing."""

    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._waiters: dict[UUID, set[_Waiter]] = {}
        self._lock = threading.Lock()
        self._following: object | None = None  # the token of the current follower thread
        self._subscription: Any = None
        self._commits: dict[UUID, int] = {}  # per watched game: commits heard so far
        # reads in flight, by (game, seat, after): (commits heard when it began, its result)
        self._reads: dict[tuple[UUID, int | None, int], tuple[int, asyncio.Future[Any]]] = {}
        self._handoff: Handoff | None = None

    @property
    def handoff(self) -> Handoff:
        """The fan-out of the game streams, made on first use (it starts on its own first
        use: api/handoff.py)."""
        from api.handoff import Handoff  # (not in the fan-out's process, which has no API)

        with self._lock:
            if self._handoff is None:
                self._handoff = Handoff(self._store, self)
            return self._handoff

    def stop(self) -> None:
        """Stop following the log and the fan-out (the app stops; streams still open end
        with it)."""
        with self._lock:
            subscription = self._unfollow()
            handoff = self._handoff
        if subscription is not None:
            subscription.stop()
        if handoff is not None:
            handoff.stop()

    def _unfollow(self) -> Any:
        """(lock held) Forget the follower; returns its subscription, to stop outside the
        lock. Not the subscription's __exit__, which joins threads that may be retrying a lost
        database for a minute: they end on their own once stopped."""
        self._following = None
        subscription, self._subscription = self._subscription, None
        return subscription

    def _tail(self, token: object) -> None:
        """The follower thread: subscribe from the log's end, then wake every open stream
        once (a commit may have come between a stream's first read and this start)."""
        try:
            recorder = self._store.recorder
            subscription = subscribe(recorder, recorder.max_notification_id())
            subscription.__enter__()
        except Exception as error:  # no store now: /health says 503; this process still wakes
            log.warning("live_hub_not_started", error=repr(error))
            with self._lock:
                if self._following is token:
                    self._following = None
            return
        with self._lock:
            current = self._following is token
            if current:
                self._subscription = subscription
            games = list(self._waiters)
        if not current:  # every stream closed meanwhile
            subscription.stop()
            return
        for game_id in games:
            self.publish(game_id)
        try:
            for notification in subscription:
                self.publish(cast(UUID, notification.originator_id))  # the store's ids: UUIDs
        except Exception as error:  # the store went away: in-process commits still wake
            log.warning("live_hub_stopped", error=repr(error))

    def publish(self, game_id: UUID, version: int = 0) -> None:
        with self._lock:
            if game_id in self._commits:
                self._commits[game_id] += 1
            waiters = [*self._waiters.get(game_id, ()), *self._waiters.get(ANY_GAME, ())]
        _wake(waiters)

    def wake_all(self) -> None:
        """Wake every waiter, whatever its game (they read again, and go on waiting)."""
        with self._lock:
            waiters = [waiter for waiting in self._waiters.values() for waiter in waiting]
        _wake(waiters)

    def commits(self, game_id: UUID) -> int:
        """How many commits of a watched game this hub has heard (it only grows)."""
        with self._lock:
            return self._commits.get(game_id, 0)

    async def shared_read(
        self, key: tuple[UUID, int | None, int], since: int, read: Any, *args: Any
    ) -> Any:
        """`read(*args)` in a worker thread, shared by every stream asking for `key` while
        it runs, if it began once `since` commits of the game were heard: it then sees
        everything that woke the caller."""
        running = self._reads.get(key)
        if running is None or running[0] < since:
            future = asyncio.ensure_future(anyio.to_thread.run_sync(read, *args))
            running = self._reads[key] = (self.commits(key[0]), future)

            def forget(key: Any = key, running: Any = running) -> None:
                if self._reads.get(key) is running:
                    del self._reads[key]

            # kept for the streams woken by the same commits a little later (see `follow`)
            loop = asyncio.get_running_loop()
            future.add_done_callback(lambda _: loop.call_later(GATHER, forget))
        return await asyncio.shield(running[1])

    @contextmanager
    def watching(self, game_id: UUID) -> Iterator[asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            if self._following is None:
                self._following = token = object()
                threading.Thread(target=self._tail, args=(token,), daemon=True).start()
            self._waiters.setdefault(game_id, set()).add(entry)
            self._commits.setdefault(game_id, 0)
        try:
            yield entry[1]
        finally:
            closing = None
            with self._lock:
                waiters = self._waiters.get(game_id)
                if waiters is not None:
                    waiters.discard(entry)
                    if not waiters:
                        del self._waiters[game_id]
                        self._commits.pop(game_id, None)
                if not self._waiters:
                    closing = self._unfollow()
            if closing is not None:
                closing.stop()  # the last stream closed


def _wake(waiters: list[_Waiter]) -> None:
    """One call per event loop, not one per waiter."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
    for loop, woken in waiters:
        by_loop.setdefault(loop, []).append(woken)
    for loop, events in by_loop.items():
        with suppress(RuntimeError):  # that loop is closed
            loop.call_soon_threadsafe(_set_all, events)


def _set_all(events: list[asyncio.Event]) -> None:
    for event in events:
        event.set()

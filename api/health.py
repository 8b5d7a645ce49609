"""GET /health, and the watch that knows when the store is down.

/health is answered on the event loop, never from a worker thread (they may all be waiting
on a lost store): on Postgres it asks `SELECT 1` on a connection of its own, on SQLite it
reads the store in a thread of its own, and it waits no longer than HEALTH_TIMEOUT. Checks
arriving while a probe runs share its answer.

The watch (Postgres) turns a lost database into prompt 503s and a prompt recovery:

- a request that met the store's error, or that has waited SUSPECT_AFTER without an answer,
  asks for a probe; a probe that fails (or takes HEALTH_TIMEOUT) marks the store down. Then
  the API requests still waiting are answered 503 at once, whatever their worker threads are
  stuck in (a frozen server never answers a statement: their late results are dropped), the
  next ones too (api/guard.py), and the library's pool waits no longer than DOWN_WAIT for a
  connection, so that threads give up within seconds instead of retrying for its patience;
- while down, a probe every PROBE_EVERY sees the database come back. The pool's connections
  (dead after a restart) are then replaced at once, rather than after the pool's own back-off
  (up to a minute after a long outage), and the pool waits as long as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import structlog
from psycopg.rows import tuple_row
from psycopg_pool import PoolTimeout

from service.errors import Unavailable
from service.loop_writer import OwnConnection, own_connection
from service.pg_recorder import LockedFunctionRecorder
from service.store import EventStoreApp

log = structlog.get_logger("tabletop.health")

HEALTH_TIMEOUT = 1.5  # seconds the store has to answer /health (which answers within 2 s)
PROBE_EVERY = 0.2  # seconds between probes while the store is down
SUSPECT_AFTER = 1.0  # seconds an API request waits for its answer before the store is probed
DOWN_WAIT = 0.2  # seconds a request waits for a pooled connection while the store is down


class StoreWatch:
    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        recorder = store.recorder
        postgres = recorder if isinstance(recorder, LockedFunctionRecorder) else None
        connect_args = (
            own_connection(postgres, row_factory=tuple_row) if postgres is not None else None
        )
        self._conn = OwnConnection(connect_args) if connect_args is not None else None
        self._pool = postgres.datastore.pool if postgres is not None else None
        self._wait = self._pool.timeout if self._pool is not None else 0.0
        self._probe: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watching: asyncio.Task[None] | None = None
        self._suspecting: asyncio.Future[None] | None = None
        self.down_since: float | None = None  # monotonic time the store was found down
        # what to call when the store is found down: answer each API request still waiting
        self.waiting: set[Callable[[], None]] = set()
        self.on_down: Callable[[], None] | None = None  # and tell the service, once

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The app's event loop (at startup): where probes run."""
        self._loop = loop

    async def close(self) -> None:
        for task in (self._watching, self._probe):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self._conn is not None:
            await self._conn.close()

    async def check(self, timeout: float = HEALTH_TIMEOUT) -> None:
        """Return when the store answers; raise Unavailable otherwise."""
        if self._probe is None or self._probe.done():
            self._probe = asyncio.ensure_future(self._ask(timeout))
        try:
            await asyncio.wait_for(asyncio.shield(self._probe), timeout)
        except TimeoutError:
            self._found_down()
            raise Unavailable("store_unavailable", "the store does not answer in time") from None
        except Exception as error:  # any failure of the store means "not healthy"
            self._found_down()
            detail = f"the store does not answer: {error}"
            raise Unavailable("store_unavailable", detail) from None
        self._found_up()

    def check_from_thread(self) -> None:
        """`check` from another thread than the app's event loop (the metrics scrape)."""
        if self._loop is None:
            raise Unavailable("store_unavailable", "the app has not started")
        asyncio.run_coroutine_threadsafe(self.check(), self._loop).result()

    def failed(self, error: BaseException) -> None:
        """A request met the store's error (any thread): probe now. If the store answers,
        the error came from a connection the pool still held from before a restart: the
        pool's connections are replaced (not for a pool that was merely all busy)."""
        loop = self._loop
        if self._conn is None or loop is None or self.down:
            return
        renew = not isinstance(error.__cause__, PoolTimeout)
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app stopped
            loop.call_soon_threadsafe(self.suspect, renew)

    def suspect(self, renew: bool = False) -> None:
        """(On the loop) Probe the store now, unless a probe runs or it is known down."""
        if self._conn is None or self.down:
            return
        if self._probe is None or self._probe.done():
            self._suspecting = asyncio.ensure_future(self._quietly())
            if renew:
                self._suspecting.add_done_callback(lambda _: self._drain())

    async def _quietly(self) -> None:
        with contextlib.suppress(Unavailable):
            await self.check()

    async def _ask(self, timeout: float) -> None:
        if self._conn is None:  # SQLite: the store itself, in a thread of its own
            await asyncio.wrap_future(_in_own_thread(self._store.recorder.max_notification_id))
            return
        await self._conn.rows("SELECT 1", None, timeout)

    def _found_down(self) -> None:
        if self._pool is None or self.down:
            return
        self.down_since = time.monotonic()
        self._pool.timeout = DOWN_WAIT
        log.warning("store_down", waiting=len(self.waiting))
        if self.on_down is not None:
            self.on_down()
        self._watching = asyncio.ensure_future(self._watch())
        for answer in list(self.waiting):
            answer()

    def _found_up(self) -> None:
        if not self.down:
            return
        assert self.down_since is not None
        assert self._pool is not None  # only a store with a pool (Postgres) is found down
        log.warning("store_back", down_s=round(time.monotonic() - self.down_since, 2))
        self._pool.timeout = self._wait
        self.down_since = None
        self._drain()

    def _drain(self) -> None:
        """New connections for the pool's idle ones (and its busy ones, when they return)."""
        if self._pool is not None and not self.down:
            threading.Thread(target=self._pool.drain, daemon=True).start()

    async def _watch(self) -> None:
        while self.down:
            await asyncio.sleep(PROBE_EVERY)
            with contextlib.suppress(Unavailable):
                await self.check()


def _in_own_thread(call: Any) -> Future[Any]:
    future: Future[Any] = Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, daemon=True).start()
    return future

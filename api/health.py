"""GET /health's answer, and the watch that knows when the store is down.

The store is probed by a thread of its own (`Prober`), with its own connection and its own
event loop: `SELECT 1` every PROBE_EVERY (Postgres; on SQLite a read of the store), each
bounded by HEALTH_TIMEOUT. Its timeouts are measured on that idle loop, never on the app's,
which a few hundred requests at once may keep busy for seconds: a busy server is not a lost
store. /health then answers from the last probe, at once, whatever the load on the pool
that reads wait on; only when the prober has fallen behind (its last probe older than
STALE) does it wait for the next one, HEALTH_TIMEOUT at most.

The watch (Postgres) turns a lost database into prompt 503s and a prompt recovery:

- a probe that fails (or takes HEALTH_TIMEOUT) marks the store down. Then the API requests
  still waiting are answered 503 at once, whatever their worker threads are stuck in (a
  frozen server never answers a statement: their late results are dropped), the next ones
  too (api/guard.py), and the library's pool waits no longer than DOWN_WAIT for a
  connection, so that threads give up within seconds instead of retrying for its patience;
- the next probe that succeeds marks it up. The pool's connections (dead after a restart)
  are then replaced at once, rather than after the pool's own back-off (up to a minute
  after a long outage), and the pool waits as long as before.
- a request that met the store's error (not a pool that was merely all busy: that is load,
  and answered as such) has a probe made now, and the pool's connections replaced if the
  store answers (the error came from a connection the pool held from before a restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
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

HEALTH_TIMEOUT = 0.8  # seconds a probe may take (so that /health answers within 1 s)
PROBE_EVERY = 0.2  # seconds between probes
STALE = 1.0  # seconds after which /health waits for a new probe rather than the last one
SUSPECT_AFTER = 1.0  # seconds an API request waits for its answer before it is suspect
DOWN_WAIT = 0.2  # seconds a request waits for a pooled connection while the store is down


class Prober:
    """Probes the store from a thread of its own, every PROBE_EVERY and when asked.
    `result` is (when the last probe ended, its error or None); `on_result` is called from
    the prober's thread after each probe."""

    def __init__(
        self,
        probe: Callable[[], Awaitable[None]],
        on_result: Callable[[str | None], None],
        closing: Callable[[], Awaitable[None]],
    ) -> None:
        self._probe = probe  # coroutine functions, run on the prober's loop
        self._closing = closing  # (what it opened there is closed there)
        self._on_result = on_result
        self.result: tuple[float, str | None] | None = None
        self._loop = asyncio.new_event_loop()
        self._asked: asyncio.Event | None = None
        self._next: Future[str | None] = Future()  # the next probe's result
        self._stopping = False
        self._starting = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="store-prober", daemon=True)

    def start(self) -> None:
        with self._starting:
            if not self._thread.is_alive() and not self._stopping:
                self._thread.start()

    def stop(self) -> None:
        with self._starting:
            self._stopping = True
        if self._thread.is_alive():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._wake)
            self._thread.join(HEALTH_TIMEOUT + 1)

    def ask(self) -> Future[str | None]:
        """A probe now (or the one under way): its error, None if the store answered."""
        self.start()
        future = self._next
        try:
            self._loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # stopped: no probe will come
            stopped: Future[str | None] = Future()
            stopped.set_result("the server is stopping")
            return stopped
        return future

    def _wake(self) -> None:
        if self._asked is not None:
            self._asked.set()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._probing())
        finally:
            self._loop.close()

    async def _probing(self) -> None:
        try:
            await self._probes()
        finally:
            with contextlib.suppress(Exception):
                await self._closing()
            self._next.set_result("the server is stopping")

    async def _probes(self) -> None:
        self._asked = asyncio.Event()
        while not self._stopping:
            future, self._next = self._next, Future()
            self._asked.clear()  # asked during this probe: the next one follows at once
            error: str | None = None
            try:
                async with asyncio.timeout(HEALTH_TIMEOUT):
                    await self._probe()
            except TimeoutError:
                error = "the store does not answer in time"
            except Exception as failure:  # any failure of the store means "not healthy"
                error = f"the store does not answer: {failure}"
            self.result = (time.monotonic(), error)
            future.set_result(error)
            self._on_result(error)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PROBE_EVERY):
                    await self._asked.wait()


class StoreWatch:
    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        recorder = store.recorder
        postgres = recorder if isinstance(recorder, LockedFunctionRecorder) else None
        self._pool = postgres.datastore.pool if postgres is not None else None
        self._wait = self._pool.timeout if self._pool is not None else 0.0
        if postgres is not None:
            conn = OwnConnection(own_connection(postgres, row_factory=tuple_row))
            self._conn: OwnConnection | None = conn

            async def probe() -> None:
                await conn.rows("SELECT 1", None, HEALTH_TIMEOUT)

        else:  # SQLite: the store itself, in a thread of its own (its reads block)
            self._conn = None

            async def probe() -> None:
                await asyncio.wrap_future(_in_own_thread(store.recorder.max_notification_id))

        async def closing() -> None:
            if self._conn is not None:
                await self._conn.close()

        self._prober = Prober(probe, self._probed, closing)
        self._renew = False  # replace the pool's connections once the store answers
        self._loop: asyncio.AbstractEventLoop | None = None
        self.down_since: float | None = None  # monotonic time the store was found down
        # what to call when the store is found down: answer each API request still waiting
        self.waiting: set[Callable[[], None]] = set()
        self.on_down: Callable[[], None] | None = None  # and tell the service, once

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The app's event loop (at startup): where the watch's state changes."""
        self._loop = loop
        self._prober.start()

    async def close(self) -> None:
        await asyncio.to_thread(self._prober.stop)

    async def check(self) -> None:
        """Return when the store answers; raise Unavailable otherwise (from the last probe,
        or from the next one when the last is older than STALE)."""
        result = self._prober.result
        if result is None or time.monotonic() - result[0] > STALE:
            try:  # the prober is behind: a probe stuck on the store, or a starved process
                async with asyncio.timeout(HEALTH_TIMEOUT):
                    error = await asyncio.shield(asyncio.wrap_future(self._prober.ask()))
            except TimeoutError:
                error = "the store does not answer in time"
        else:
            error = result[1]
        if error is not None:
            self._found_down()
            raise Unavailable("store_unavailable", error)
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
        if self._conn is None or self.down:
            return
        if not isinstance(error.__cause__, PoolTimeout):
            self._renew = True
        self._prober.ask()

    def suspect(self) -> None:
        """A request waits long for its answer: probe now."""
        if self._conn is not None and not self.down:
            self._prober.ask()

    def _probed(self, error: str | None) -> None:
        """(The prober's thread) the state changes on the app's loop."""
        loop = self._loop
        if loop is None or self._pool is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app stopped
            loop.call_soon_threadsafe(self._found_down if error else self._found_up)

    def _found_down(self) -> None:
        if self._pool is None or self.down:
            return
        self.down_since = time.monotonic()
        self._pool.timeout = DOWN_WAIT
        log.warning("store_down", waiting=len(self.waiting))
        if self.on_down is not None:
            self.on_down()
        for answer in list(self.waiting):
            answer()

    def _found_up(self) -> None:
        renew, self._renew = self._renew, False
        if self.down:
            assert self.down_since is not None
            assert self._pool is not None  # only a store with a pool (Postgres) is found down
            log.warning("store_back", down_s=round(time.monotonic() - self.down_since, 2))
            self._pool.timeout = self._wait
            self.down_since = None
            renew = True
        if renew and self._pool is not None:  # new connections for the pool's (dead) ones
            threading.Thread(target=self._pool.drain, daemon=True).start()


def _in_own_thread(call: Any) -> Future[Any]:
    future: Future[Any] = Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, daemon=True).start()
    return future

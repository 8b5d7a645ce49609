"""Group commit on the event loop (Postgres): saves with no worker thread in between.

A move, a new game or a join whose game is in memory is decided on the event loop (see
GameService._on_loop) and saved here: one task writes everything queued while the previous
write was in flight, in one transaction, over one async connection of its own. One
connection loses nothing, since the table lock lets only one transaction insert at a time
anyway, and keeping it hot (one server process, its statement prepared) makes a lone save
cheaper than from the pool.

A batch that meets a version conflict is retried request by request, as in GroupCommit, so
only the stale request hears of it. A lost connection is replaced and the write retried
(0.2 s apart) for at most SAVE_TIMEOUT in all; a commit whose answer was lost comes back as
a conflict, which the caller resolves by reading the store. A connection that silently
stops answering (a dropped route, a frozen server) is given up when that time is spent, and
TCP keepalives find a dead idle one: the request hears 503 within seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import InterfaceError, OperationalError, RecordConflictError

from service.group_commit import MAX_EVENTS, next_batch
from service.pg_recorder import LockedFunctionRecorder
from service.settings import KEEPALIVES  # (the pool's connections carry them too)
from service.store import EventStoreApp

PAUSE = 0.2  # seconds between attempts
SAVE_TIMEOUT = 5.0  # seconds for all attempts of a save; one normally takes a millisecond


def own_connection(recorder: LockedFunctionRecorder, **extra: Any) -> dict[str, Any]:
    """Arguments for an async connection of a process's own to the store's database (the
    pool's, with keepalives, autocommit and a bounded connect)."""
    pooled = recorder.datastore.pool.kwargs
    assert isinstance(pooled, dict), "the library's pool is built from keyword arguments"
    return {"connect_timeout": 5, **pooled, **KEEPALIVES, "autocommit": True, **extra}


class OwnConnection:
    """An async connection of a process's own (`own_connection`'s arguments), opened when
    first used; a statement that fails or outlasts its timeout drops it, so the next one
    starts on a fresh connection."""

    def __init__(self, connect_args: dict[str, Any]) -> None:
        self._connect_args = connect_args
        self._conn: psycopg.AsyncConnection[Any] | None = None

    async def rows(self, query: Any, params: Any = None, timeout: float = 5.0) -> list[Any]:
        """The rows of `query` (a statement that may run twice: reads, advisory locks). A
        connection opened before the database restarted fails at its first statement; that
        statement is tried once more on a new connection, within the same `timeout`."""
        try:
            async with asyncio.timeout(timeout):
                opened = self._conn is None or self._conn.closed
                if opened:
                    self._conn = await psycopg.AsyncConnection.connect(**self._connect_args)
                assert self._conn is not None
                try:
                    cursor = await self._conn.execute(query, params)
                except psycopg.OperationalError:
                    if opened:
                        raise
                    await self.close()
                    self._conn = await psycopg.AsyncConnection.connect(**self._connect_args)
                    cursor = await self._conn.execute(query, params)
                return await cursor.fetchall() if cursor.description else []
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                await conn.close()


class _Pending:
    __slots__ = ("events", "future")

    def __init__(self, events: Sequence[Any], future: asyncio.Future[None]) -> None:
        self.events = events
        self.future = future


class LoopWriter:
    def __init__(self, store: EventStoreApp) -> None:
        recorder = store.recorder
        assert isinstance(recorder, LockedFunctionRecorder), "the loop writer is for Postgres"
        self._recorder = recorder
        self._mapper = store.mapper
        self._connect_args = own_connection(recorder)
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._queue: list[_Pending] = []
        self._drainer: asyncio.Task[None] | None = None
        self.transactions = 0

    def takes(self, events: Sequence[Any]) -> bool:
        """Whether these events fit one transaction (longer runs go through GroupCommit)."""
        return len(events) <= MAX_EVENTS

    async def save(self, events: Sequence[Any]) -> None:
        """Save `events` atomically; raises RecordConflictError when another writer took one
        of their versions first, or the store's error when it cannot be reached."""
        pending = _Pending(events, asyncio.get_running_loop().create_future())
        self._queue.append(pending)
        if self._drainer is None:
            self._drainer = asyncio.create_task(self._drain())
        # The drainer writes it even if this caller is cancelled meanwhile (it then skips
        # settling the cancelled future): a commit is never cut off halfway.
        await pending.future

    async def close(self) -> None:
        if self._drainer is not None:
            await asyncio.gather(self._drainer, return_exceptions=True)
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch, self._queue = next_batch(self._queue)
                await self._write(batch)
        finally:
            self._drainer = None

    async def _write(self, batch: list[_Pending]) -> None:
        try:
            await self._insert([e for pending in batch for e in pending.events])
        except RecordConflictError as conflict:
            if len(batch) == 1:
                _settle(batch[0], conflict)
                return
            failed: BaseException | None = None
            for pending in batch:
                if failed is not None:  # the store is gone: the rest hear it at once
                    _settle(pending, failed)
                    continue
                try:
                    await self._insert(pending.events)
                except RecordConflictError as error:  # surfaced to the request that owns it
                    _settle(pending, error)
                except Exception as error:
                    failed = error
                    _settle(pending, error)
                else:
                    _settle(pending, None)
        except Exception as error:  # the store failed: every request of the batch hears it
            for pending in batch:
                _settle(pending, error)
        else:
            for pending in batch:
                _settle(pending, None)

    async def _insert(self, events: Sequence[Any]) -> None:
        stored = [self._mapper.to_stored_event(e) for e in events]
        loop = asyncio.get_running_loop()
        give_up = loop.time() + SAVE_TIMEOUT
        while True:
            try:
                async with asyncio.timeout_at(give_up):
                    if self._conn is None or self._conn.closed:
                        self._conn = await psycopg.AsyncConnection.connect(**self._connect_args)
                    await self._recorder.insert_events_async(self._conn, stored)
                self.transactions += 1
                return
            except (
                InterfaceError,
                OperationalError,
                psycopg.OperationalError,
                TimeoutError,
            ) as error:
                await self._drop_connection()
                if loop.time() + PAUSE >= give_up:
                    raise OperationalError(str(error) or "the store did not answer") from error
                await asyncio.sleep(PAUSE)

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                await conn.close()


def _settle(pending: _Pending, error: BaseException | None) -> None:
    if pending.future.done():
        return
    if error is None:
        pending.future.set_result(None)
    else:
        pending.future.set_exception(error)

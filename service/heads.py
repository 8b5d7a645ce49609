"""How far each game's stream goes in the store, asked on the event loop (Postgres).

A process answers a read of a game from its cache only once it knows the cache holds the
store's head: several API processes (and the timekeeper) write the same games, and a read
must never show less than a write some client has already been answered for (read your
writes, monotonic reads, a finished game always finished). Asking is one indexed query on
a connection of this process's own; reads waiting at once share it (one query for many
games), as the loop writer shares its commits.
"""

from __future__ import annotations

import asyncio
from uuid import UUID

from eventsourcing.persistence import OperationalError
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from service.loop_writer import OwnConnection, own_connection
from service.pg_recorder import LockedFunctionRecorder
from service.store import EventStoreApp

TIMEOUT = 5.0  # seconds: a head that does not come is an unavailable store (503)


class Heads:
    def __init__(self, store: EventStoreApp) -> None:
        recorder = store.recorder
        assert isinstance(recorder, LockedFunctionRecorder), "heads are read on Postgres"
        # the library's pool hands out dict rows
        self._conn = OwnConnection(own_connection(recorder, row_factory=tuple_row))
        self._query = SQL(
            "SELECT originator_id, MAX(originator_version) FROM {schema}.{table}"
            " WHERE originator_id = ANY(%s) GROUP BY originator_id"
        ).format(
            schema=Identifier(recorder.datastore.schema),
            table=Identifier(recorder.events_table_name),
        )
        self._waiting: dict[UUID, list[asyncio.Future[int]]] = {}
        self._asking: asyncio.Task[None] | None = None
        self.queries = 0  # for tests and metrics

    async def version(self, game_id: UUID) -> int:
        """The game's last stored version (0 when it has none)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(game_id, []).append(future)
        if self._asking is None:
            self._asking = asyncio.create_task(self._ask())
        return await future

    async def close(self) -> None:
        if self._asking is not None:
            await asyncio.gather(self._asking, return_exceptions=True)
        await self._conn.close()

    async def _ask(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, {}
                try:
                    heads = await self._heads(list(batch))
                except Exception as error:
                    for futures in batch.values():
                        _settle(futures, error=OperationalError(f"no head: {error!r}"))
                    continue
                for game_id, futures in batch.items():
                    _settle(futures, heads.get(game_id, 0))
        finally:
            self._asking = None

    async def _heads(self, games: list[UUID]) -> dict[UUID, int]:
        rows = await self._conn.rows(self._query, (games,), TIMEOUT)
        self.queries += 1
        return {game: int(version) for game, version in rows}


def _settle(
    futures: list[asyncio.Future[int]], value: int = 0, error: Exception | None = None
) -> None:
    for future in futures:
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

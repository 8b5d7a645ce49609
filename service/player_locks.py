"""One admission at a time per player, across every process of a store: what makes a count
quota (the open-games cap) exact when one player sends many requests at once.

A quota counted from the read model and then written is racy: 80 concurrent creates all
count the same games before any of them is written. So a player's admissions queue: in this
process on an asyncio lock of the player's, and across processes (Postgres) on an advisory
lock named for the player. Every process takes the advisory locks on one connection of its
own with `pg_try_advisory_lock`, retried while another process holds it, so that waiting
players cost no pooled connection (a blocking `pg_advisory_lock` would hold one each).

If that connection is lost while a lock is held (or any statement on it fails or times out:
it is then dropped), every lock it held goes with it and another process may admit the same
players meanwhile: the cap may then be passed by the requests of that moment (the next
admission opens a new connection).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any

from service.errors import Unavailable
from service.loop_writer import OwnConnection

RETRY_FIRST = 0.002  # seconds before asking again for a lock another process holds
RETRY_MOST = 0.05


class PlayerLocks:
    def __init__(self, connect_args: dict[str, Any] | None, name: str) -> None:
        """`connect_args`: a connection to the store's Postgres (None on SQLite, where one
        process serves); `name` tells this store's locks from another schema's."""
        self._conn = OwnConnection(connect_args) if connect_args is not None else None
        self._name = name
        self._local: dict[str, tuple[asyncio.Lock, int]] = {}  # player: (lock, users)

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()

    @asynccontextmanager
    async def held(
        self,
        player_id: str,
        timeout: float,
        waiting: Callable[[], AbstractAsyncContextManager[None]] = nullcontext,
    ) -> AsyncIterator[None]:
        """Hold the player's lock (raises Unavailable after `timeout` seconds); `waiting`
        is entered while the lock is waited for."""
        lock, users = self._local.get(player_id, (asyncio.Lock(), 0))
        self._local[player_id] = (lock, users + 1)
        deadline = time.monotonic() + timeout
        key = f"{self._name}/player/{player_id}"
        local = advisory = False  # which of the two this request holds
        try:
            async with waiting():
                try:
                    async with asyncio.timeout(timeout):
                        await lock.acquire()
                except TimeoutError:
                    raise _busy() from None
                local = True
                if self._conn is not None:
                    await self._take(key, deadline)
                    advisory = True
            yield
        finally:
            try:
                if advisory:
                    assert self._conn is not None
                    await self._conn.rows("SELECT pg_advisory_unlock(hashtext(%s))", (key,))
            finally:
                if local:
                    lock.release()
                lock, users = self._local[player_id]
                if users == 1:
                    del self._local[player_id]
                else:
                    self._local[player_id] = (lock, users - 1)

    async def _take(self, key: str, deadline: float) -> None:
        assert self._conn is not None
        wait = RETRY_FIRST
        while True:
            rows = await self._conn.rows("SELECT pg_try_advisory_lock(hashtext(%s))", (key,))
            if rows and rows[0][0]:
                return
            if time.monotonic() + wait > deadline:
                raise _busy()
            await asyncio.sleep(wait)  # another process admits this player now
            wait = min(RETRY_MOST, wait * 2)


def _busy() -> Unavailable:
    return Unavailable(
        "unavailable", "your other new games and joins are still being written: retry"
    )

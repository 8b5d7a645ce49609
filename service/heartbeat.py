"""The service's last sign of life, and the wait for the clocks' credit after a gap.

No clock runs while the service cannot act: every process stopped, or the store out of
reach. The acting timekeeper stamps a heartbeat row in the store's database on every tick
(`tabletop_heartbeat`: one row per role, microseconds since the epoch on the service's
clock). A timekeeper that takes over (it got the role's lock, or the store came back)
reads the last beat first: the time since is time the service could not act, and it
credits every running timed game for it (decisions.credit) before it beats again and
before it applies any timeout (service/timekeeper.py).

A move must not be charged for the gap either, so a process that may have missed one (it
just started, or the store failed under it) holds moves in timed games (503
`clocks_resuming`, Retry-After 1) until it sees a beat newer than that moment: the credit
comes before that beat.
"""

from __future__ import annotations

import time
from typing import Any

import anyio.to_thread
from eventsourcing.persistence import IntegrityError
from eventsourcing.postgres import PostgresDatastore

from service import clocks
from service.errors import Unavailable
from service.store import EventStoreApp

TABLE = "tabletop_heartbeat"
ROLE = "timekeeper"
RECHECK = 0.25  # seconds between reads of the beat while a process waits for it
WAIT = 1.0  # seconds a beat may wait for its connection and its statement
FRESH = 2.0  # seconds: a beat older than this does not end a wait (it may be from the gap)


class Heartbeat:
    """The heartbeat row of the store's database."""

    def __init__(self, store: EventStoreApp) -> None:
        self.datastore: Any = getattr(store.recorder, "datastore", None)
        self.postgres = isinstance(self.datastore, PostgresDatastore)
        schema = getattr(self.datastore, "schema", None) if self.postgres else None
        self.table = f'"{schema}".{TABLE}' if schema else TABLE
        self._made = False

    def _sql(self, text: str) -> str:
        return text.format(table=self.table).replace("?", "%s" if self.postgres else "?")

    def create_table(self) -> None:
        """Made by the timekeeper before its first beat (two timekeepers that start together
        on Postgres may both try: `IF NOT EXISTS` races there, so the loser's error is
        the table made by the other)."""
        sql = "CREATE TABLE IF NOT EXISTS {table} (role TEXT PRIMARY KEY, at_us BIGINT NOT NULL)"
        try:
            with self.datastore.transaction(commit=True) as c:
                c.execute(self._sql(sql))
        except IntegrityError:
            pass
        self._made = True

    def last(self) -> int | None:
        """The last beat (us), None when none was ever stamped (or the table is not there)."""
        if self.datastore is None:
            return None
        try:
            with self.datastore.transaction(commit=False) as c:
                c.execute(self._sql("SELECT at_us FROM {table} WHERE role = ?"), (ROLE,))
                row = c.fetchone()
        except Exception as error:  # no table yet: no beat yet (a store fault is raised)
            if "heartbeat" not in str(error):
                raise
            return None
        if row is None:
            return None
        return int(row["at_us"] if isinstance(row, dict) else row[0])

    def beat(self, at_us: int) -> None:
        """Stamp `at_us`, or fail within about WAIT seconds: a beat that waited out an outage
        and landed after it would date the service's last sign of life inside the gap."""
        if self.datastore is None:
            return
        if not self._made:
            self.create_table()
        upsert = self._sql(
            "INSERT INTO {table} (role, at_us) VALUES (?, ?)"
            " ON CONFLICT (role) DO UPDATE SET at_us = excluded.at_us"
        )
        if not self.postgres:
            with self.datastore.transaction(commit=True) as c:
                c.execute(upsert, (ROLE, at_us))
            return
        with self.datastore.pool.connection(timeout=WAIT) as conn, conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = {round(WAIT * 1000)}")
            conn.execute(upsert, (ROLE, at_us))


class Resuming:
    """A process's hold on moves in timed games after it may have missed a gap: from
    `interrupted` until a heartbeat later than that moment (the timekeeper's credit for
    the gap is written before that beat)."""

    def __init__(self, heartbeat: Heartbeat, now: Any) -> None:
        self.heartbeat = heartbeat
        self.now = now  # the service's clock (an `at` stamp)
        self.since: int | None = None  # the moment from which a beat is awaited (us)
        self._checked = 0.0  # when the beat was last read (monotonic)

    def interrupted(self) -> None:
        """This process may have missed a gap from now back (it starts, or the store failed
        under it): timed moves wait for the next beat."""
        at = clocks.micros(self.now())
        self.since = at if self.since is None else min(self.since, at)

    def beaten(self, at_us: int) -> None:
        """A beat seen: the wait ends when it is later than the moment the wait began, and
        fresh (a beat stamped just before an outage and seen after it must not end it)."""
        fresh = clocks.micros(self.now()) - at_us <= FRESH * 1_000_000
        if self.since is not None and at_us > self.since and fresh:
            self.since = None

    async def check(self) -> None:
        """Raise 503 `clocks_resuming` while the beat awaited has not come."""
        if self.since is None:
            return
        if time.monotonic() - self._checked >= RECHECK:
            self._checked = time.monotonic()
            last = await anyio.to_thread.run_sync(self.heartbeat.last)
            if last is not None:
                self.beaten(last)
            if self.since is None:
                return
        raise Unavailable(
            "clocks_resuming",
            "the service is back from an outage and its timekeeper is crediting the clocks:"
            " try again in a moment",
            retry_after=1,
        )

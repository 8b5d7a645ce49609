"""Token buckets kept in the store's Postgres database, shared by every process that serves
it: the per-player quotas (games with bots, challenges and seeks), which must hold exactly
however many workers or hosts a player's requests land on. Each `take` is one statement
that refills and takes under the bucket row's lock, so concurrent takes of one key are
serialized by the database and never over-spend. (The per-request rate limits stay in
each process, api/limits.py: they shed abuse and cost nothing per request.)

Same contract as api/limits.py's `Buckets.take`: 0 when a token was taken, otherwise the
seconds until one is back. Times are the database's clock, the one clock every process
shares.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.postgres import PostgresDatastore
from psycopg.errors import DuplicateTable, UniqueViolation

from service.settings import Rate

TABLE = "tabletop_buckets"
WAIT = 5.0  # seconds for a pooled connection (then the store is as good as down: 503)

_NOW = "extract(epoch from clock_timestamp())"


class SharedBuckets:
    def __init__(self, datastore: PostgresDatastore, rate: Rate, kind: str) -> None:
        """`kind` keeps this rate's buckets apart from another's in the one table."""
        self.rate = rate
        self._datastore = datastore
        self._kind = kind
        self._table = f'"{datastore.schema}".{TABLE}'
        self._made = False

    def _create_table(self) -> None:
        sql = (f"CREATE TABLE IF NOT EXISTS {self._table} (key TEXT PRIMARY KEY,"
               " tokens DOUBLE PRECISION NOT NULL, at DOUBLE PRECISION NOT NULL)")  # fmt: skip
        try:
            with self._datastore.pool.connection(timeout=WAIT) as conn:
                conn.execute(sql)
        except (UniqueViolation, DuplicateTable):  # another process made it at that moment
            pass
        self._made = True

    def take(self, key: str) -> float:
        """Take a token of `key`'s bucket (a worker thread: it waits on the database)."""
        if not self._made:
            self._create_table()
        count, per_second = float(self.rate.count), self.rate.count / self.rate.seconds
        refilled = f"LEAST(%(count)s, b.tokens + ({_NOW} - b.at) * %(per_second)s)"
        take = (
            f"INSERT INTO {self._table} AS b (key, tokens, at)"
            f" VALUES (%(key)s, %(count)s - 1, {_NOW})"
            f" ON CONFLICT (key) DO UPDATE SET tokens = {refilled} - 1, at = {_NOW}"
            f" WHERE {refilled} >= 1 RETURNING b.tokens"
        )
        left = f"SELECT {refilled} FROM {self._table} b WHERE b.key = %(key)s"
        params: dict[str, Any] = {
            "key": f"{self._kind}/{key}", "count": count, "per_second": per_second
        }  # fmt: skip
        with self._datastore.pool.connection(timeout=WAIT) as conn, conn.transaction():
            if conn.execute(take, params).fetchone() is not None:
                return 0.0
            row = conn.execute(left, params).fetchone()
        tokens = float(next(iter(row.values())) if isinstance(row, dict) else row[0]) if row else 0
        return max(0.0, (1.0 - tokens) / per_second)

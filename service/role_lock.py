"""A role's Postgres session lock, named as service/sole.py names it, held on a connection
of its own so that its holder can ask, before it acts, whether it still holds it: a session
that ended (the database restarted, the connection cut) has lost the lock, and another
process may hold it by now. The transparency log signs heads only under it.

SQLite: one process serves a file; the lock is always held.
"""

from __future__ import annotations

import threading

import psycopg
import structlog

from service.settings import Settings

log = structlog.get_logger("tabletop.role_lock")


class RoleLock:
    def __init__(self, settings: Settings, role: str) -> None:
        self._settings = settings
        schema = settings.eventsourcing_env().get("POSTGRES_SCHEMA", "public")
        self.name = f"tabletop/{schema}/{role}"
        self._conn: psycopg.Connection | None = None
        self._guard = threading.Lock()
        self._unreachable = False

    def take(self) -> bool:
        """Take the lock if no other process holds it; whether this one holds it now."""
        if self._settings.database_url is None:
            return True
        with self._guard:
            if self._conn is not None and not self._conn.closed:
                return self._held()
            try:
                conn = self._connect()
                row = conn.execute(
                    "SELECT pg_try_advisory_lock(hashtext(%s))", (self.name,)
                ).fetchone()
            except psycopg.Error as error:
                if not self._unreachable:  # (once an outage: it is tried every second)
                    log.warning("role_lock_unreachable", role=self.name, error=repr(error))
                self._unreachable = True
                return False
            self._unreachable = False
            if row and row[0]:
                self._conn = conn
                log.info("active", role=self.name)
                return True
            conn.close()
            return False

    def held(self) -> bool:
        """Whether this process still holds the lock: its session alive, the lock in it."""
        if self._settings.database_url is None:
            return True
        with self._guard:
            return self._conn is not None and self._held()

    def release(self) -> None:
        with self._guard:
            if self._conn is not None:
                self._conn.close()  # a session lock ends with its session
                self._conn = None

    def _held(self) -> bool:
        assert self._conn is not None
        try:
            row = self._conn.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
                " AND pid = pg_backend_pid() AND granted)"
            ).fetchone()
        except psycopg.Error as error:
            log.error("role_lock_lost", role=self.name, error=repr(error))
            self._conn.close()
            self._conn = None
            return False
        return bool(row and row[0])

    def _connect(self) -> psycopg.Connection:
        # (the store's hosts, as service/sole.py connects: after a failover, the new primary)
        return psycopg.connect(
            **self._settings.connect_args(),
            autocommit=True,
            connect_timeout=5,
            # a cut connection is found within seconds, not at the kernel's leisure
            keepalives=1,
            keepalives_idle=5,
            keepalives_interval=2,
            keepalives_count=2,
            options="-c statement_timeout=2000",
        )

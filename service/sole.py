"""One process per database in a role (the projection runner, the timekeeper): it holds a
Postgres session lock named for the role and the schema while it runs; another process in
the same role waits on the lock and takes over when the first one's session ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import structlog

from service.settings import CONNECT_TIMEOUT, KEEPALIVES, Settings

log = structlog.get_logger("tabletop.sole")


@contextmanager
def sole(settings: Settings, role: str) -> Iterator[None]:
    """Hold the role's lock while running (SQLite: one process serves, nothing to hold)."""
    if settings.database_url is None:
        yield
        return
    env = settings.eventsourcing_env()
    name = f"tabletop/{env.get('POSTGRES_SCHEMA', 'public')}/{role}"
    # The store's hosts and target_session_attrs: after a failover the lock is taken on the
    # new primary. Keepalives: a waiter whose server vanished (a host lost: no reset comes)
    # hears of it within a minute and connects again, instead of waiting for good.
    with psycopg.connect(
        **settings.connect_args(), **KEEPALIVES, connect_timeout=CONNECT_TIMEOUT, autocommit=True
    ) as conn:
        taken = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (name,)).fetchone()
        if not (taken and taken[0]):
            log.info("standby", role=name)
            conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (name,))
        log.info("active", role=name)
        yield

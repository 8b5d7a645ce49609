"""The Postgres recorder, saving in one round trip, from a thread or from the event loop.

The library's default insert sends a pipeline (lock the table, notify, insert) and then a
separate COMMIT: two round trips and a good deal of Python per save. Its optional database
function (POSTGRES_ENABLE_DB_FUNCTIONS) saves in one autocommitted call, but does not lock the
table, so notification ids may commit out of order and a reader tailing the log (our
projections) could pass over an id that commits later. This recorder installs such a
function with the table lock put back: one round trip per save, and the log stays gap-free.

The function takes four plain arrays (ids, versions, topics, states) rather than an array of
the library's composite type: they travel in binary with no per-row text quoting, and an
async connection needs no composite adapter. The statement is rendered to text once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors
from eventsourcing.persistence import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

TOPIC = "service.pg_recorder:LockedFunctionRecorder"


class LockedFunctionRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        id_type = datastore.originator_id_type
        schema = Identifier(datastore.schema)
        # Named after its table: a second application in the same schema, with events of its
        # own, installs a function of its own instead of replacing ours (whose saves would
        # then land in its table). Postgres truncates names to 63 bytes: the table's name is
        # kept whole by hashing it when it is long.
        function = Identifier(_function_name(self.events_table_name, id_type))
        self.sql_create_statements[self.create_insert_function_statement_index] = SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}"
            "(ids {id_type}[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} "
            "(originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(
            schema=schema,
            function=function,
            id_type=SQL(id_type),
            lock_timeout=datastore.lock_timeout,
            table=Identifier(self.events_table_name),
            channel=Identifier(self.channel_name),
        )
        self.save_statement = (
            SQL("SELECT id FROM {schema}.{function}(%b, %b, %b, %b) AS saved(id)")
            .format(schema=schema, function=function)
            .as_string()
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(self.save_statement, _columns(stored_events), prepare=True)
            return [row[0] for row in cur.fetchall()]

    async def insert_events_async(
        self, conn: psycopg.AsyncConnection[Any], stored_events: Sequence[StoredEvent]
    ) -> list[int]:
        """The same save on an autocommit async connection that the caller owns; psycopg's
        errors become the library's, as on the pooled connections."""
        try:
            async with conn.cursor(row_factory=tuple_row) as cur:
                await cur.execute(self.save_statement, _columns(stored_events), prepare=True)
                return [row[0] for row in await cur.fetchall()]
        except psycopg.IntegrityError as error:
            raise IntegrityError(str(error)) from error
        except psycopg.InterfaceError as error:
            raise InterfaceError(str(error)) from error
        except (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction) as error:
            # a server that cannot take writes now (down, or a standby after a failover)
            raise OperationalError(str(error)) from error
        except psycopg.Error as error:
            raise PersistenceError(str(error)) from error


def _function_name(table: str, id_type: str) -> str:
    name = f"tt_save_{table}_{id_type}"
    if len(name.encode()) <= 63:
        return name
    digest = hashlib.sha256(table.encode()).hexdigest()[:16]
    return f"tt_save_{digest}_{id_type}"


def _columns(events: Sequence[StoredEvent]) -> tuple[list[Any], list[int], list[str], list[bytes]]:
    return (
        [e.originator_id for e in events],
        [e.originator_version for e in events],
        [e.topic for e in events],
        [e.state for e in events],
    )

"""The Postgres recorder, saving in one round trip.

The library's default insert sends a pipeline (lock the table, notify, insert) and then a
separate COMMIT: two round trips and a good deal of Python per save. Its optional database
function (POSTGRES_ENABLE_DB_FUNCTIONS) saves in one autocommitted call, but does not lock the
table, so notification ids may commit out of order and a reader tailing the log (our
projections) could pass over an id that commits later. This recorder installs that function
with the table lock put back: one round trip per save, and the log stays gap-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier

TOPIC = "service.pg_recorder:LockedFunctionRecorder"


class LockedFunctionRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        self.insert_function = f"tt_insert_events_locked_{datastore.originator_id_type}"
        schema, function = Identifier(datastore.schema), Identifier(self.insert_function)
        self.sql_create_statements[self.create_insert_function_statement_index] = SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(events {schema}.{event}[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} "
            "(originator_id, originator_version, topic, state) "
            "SELECT originator_id, originator_version, topic, state FROM unnest(events) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(
            schema=schema,
            function=function,
            event=Identifier(self.stored_event_type_name),
            lock_timeout=datastore.lock_timeout,
            table=Identifier(self.events_table_name),
            channel=Identifier(self.channel_name),
        )
        self.call_insert_function = SQL("SELECT * FROM {schema}.{function}((%s))").format(
            schema=schema, function=function
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        rows = [
            self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
            for e in stored_events
        ]
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.call_insert_function, (rows,), prepare=True)
            return [row[self.insert_function] for row in cursor.fetchall()]

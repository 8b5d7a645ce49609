"""A game's stored events read straight from the events table, for folding.

The library's way (`store.events.get`) selects every column into dicts, builds a
`StoredEvent` per row, decodes its state into a dict and then builds a `Recorded` through its
mapper: about 25 µs per event, more than the fold itself. A fold needs none of that: this
reader selects the version and the state bytes only, as tuples, and decodes each state with
one msgspec decoder straight into an `Envelope` (the attributes `Fold.apply` reads). The
`Recorded` events that the event endpoints and the read models see still come through the
library, unchanged.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from eventsourcing.utils import get_topic
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from service.store import Envelope, EventStoreApp, Recorded, decode_envelope

RECORDED_TOPIC = get_topic(Recorded)


def read_events(
    store: EventStoreApp,
    game_id: UUID,
    gt: int | None = None,
    lte: int | None = None,
    limit: int | None = None,
    first: bool = False,
) -> list[Envelope]:
    """The game's stored events in order (`gt` < version <= `lte`, and its first event too
    when `first`); [] when the stream holds no game (no such id, or another kind of
    stream). A record that no longer decodes raises one of `service.fold.UNREADABLE`, as
    through the library."""
    rows = select(store.recorder, game_id, gt, lte, limit, first)
    if not rows:
        return []
    if (gt is None or first) and rows[0][0] == 1 and rows[0][1] != RECORDED_TOPIC:
        return []
    out = []
    for version, _, state in rows:
        envelope = decode_envelope(state)
        envelope.originator_version = version
        out.append(envelope)
    return out


def select(
    recorder: Any,
    stream: UUID,
    gt: int | None = None,
    lte: int | None = None,
    limit: int | None = None,
    first: bool = False,
    desc: bool = False,
) -> list[tuple[int, str, bytes]]:
    """(version, topic, state) of a stream's records from one of the library's recorders
    (events or snapshots), in one prepared statement."""
    low = -1 if gt is None else gt
    high = 2**62 if lte is None else lte
    count = 2**62 if limit is None else max(limit, 0)
    also = 1 if first else -1
    order = "DESC" if desc else "ASC"
    where = (
        "WHERE originator_id = {p} AND ((originator_version > {p} AND originator_version <= {p})"
        " OR originator_version = {p}) ORDER BY originator_version {order} LIMIT {p}"
    )
    if isinstance(recorder, PostgresAggregateRecorder):
        cached = f"_tabletop_select_{order}"
        statement = getattr(recorder, cached, None)
        if statement is None:
            statement = (
                SQL("SELECT originator_version, topic, state FROM {schema}.{table} ")
                .format(
                    schema=Identifier(recorder.datastore.schema),
                    table=Identifier(recorder.events_table_name),
                )
                .as_string()
            ) + where.format(p="%s", order=order)
            setattr(recorder, cached, statement)
        with (
            recorder.datastore.get_connection() as conn,
            conn.cursor(row_factory=tuple_row, binary=True) as cur,
        ):
            cur.execute(statement, (stream, low, high, also, count), prepare=True)
            return cur.fetchall()
    if isinstance(recorder, SQLiteAggregateRecorder):
        statement = (
            f"SELECT originator_version, topic, state FROM {recorder.events_table_name} "
            + where.format(p="?", order=order)
        )
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(statement, (stream.hex, low, high, also, count))
            return [(r[0], r[1], r[2]) for r in c.fetchall()]
    # another recorder (a test double): the library's own select
    found = recorder.select_events(stream, gt=gt, lte=lte, limit=limit, desc=desc)
    if first and gt is not None and not desc:
        found = [*recorder.select_events(stream, lte=1), *found]
    return [(s.originator_version, s.topic, s.state) for s in found]

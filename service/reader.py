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
) -> list[Envelope]:
    """The game's stored events in order (`gt` < version <= `lte`); [] when the stream holds
    no game (no such id, or another kind of stream). A record that no longer decodes raises
    one of `service.fold.UNREADABLE`, as through the library."""
    rows = _select(store, game_id, gt, lte, limit)
    if not rows:
        return []
    if gt is None and rows[0][1] != RECORDED_TOPIC:
        return []
    out = []
    for version, _, state in rows:
        envelope = decode_envelope(state)
        envelope.originator_version = version
        out.append(envelope)
    return out


def _select(
    store: EventStoreApp, game_id: UUID, gt: int | None, lte: int | None, limit: int | None
) -> list[tuple[int, str, bytes]]:
    recorder = store.recorder
    low = -1 if gt is None else gt
    high = 2**62 if lte is None else lte
    count = 2**62 if limit is None else max(limit, 0)
    if isinstance(recorder, PostgresAggregateRecorder):
        statement = getattr(recorder, "_tabletop_select", None)
        if statement is None:
            statement = (
                SQL(
                    "SELECT originator_version, topic, state FROM {schema}.{table} "
                    "WHERE originator_id = %s AND originator_version > %s "
                    "AND originator_version <= %s ORDER BY originator_version LIMIT %s"
                )
                .format(
                    schema=Identifier(recorder.datastore.schema),
                    table=Identifier(recorder.events_table_name),
                )
                .as_string()
            )
            recorder._tabletop_select = statement  # type: ignore[attr-defined]
        with (
            recorder.datastore.get_connection() as conn,
            conn.cursor(row_factory=tuple_row, binary=True) as cur,
        ):
            cur.execute(statement, (game_id, low, high, count), prepare=True)
            return cur.fetchall()
    if isinstance(recorder, SQLiteAggregateRecorder):
        statement = (
            f"SELECT originator_version, topic, state FROM {recorder.events_table_name} "
            "WHERE originator_id = ? AND originator_version > ? AND originator_version <= ? "
            "ORDER BY originator_version LIMIT ?"
        )
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(statement, (game_id.hex, low, high, count))
            return [(r[0], r[1], r[2]) for r in c.fetchall()]
    # another recorder (a test double): the library's own select
    return [
        (s.originator_version, s.topic, s.state)
        for s in recorder.select_events(game_id, gt=gt, lte=lte, limit=limit)
    ]

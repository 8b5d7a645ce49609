"""The streams of challenges and seeks: reading one (its events and Idempotency-Keys),
chaining new events onto it, the notices a write leaves for players, and the export.

A challenge, a seek and a seek pool (the open seeks of one game, seats, options, clock and
rating; service/seeks.py) are each a stream of hash-chained `Recorded` events beside the
games, like a tournament. What a player must hear of them (`challenge_received`,
`seek_matched`) is a `Noticed` event, saved in the same transaction as the event that
causes it, each in a stream of its own (one event, so a retry can never write it twice).
The read model (projections/competition.py) turns both into rows: the notices into the
games' notice table, with ids from their log positions, and the streams into the lists.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import msgspec
from eventsourcing.domain import DomainEvent
from eventsourcing.utils import get_topic

from service.errors import NotFound
from service.store import EventStoreApp, Recorded

NAMESPACE = uuid.UUID("7b0c2f52-5d1e-4c0b-9a43-2f1d6f0e8c11")
CHALLENGE = "challenge_"
SEEK = "seek_"
POOL = "seek_pool_"
EXPORT_FORMATS = {CHALLENGE: "tabletop-challenge/1", SEEK: "tabletop-seek/1"}


@dataclass(frozen=True)
class Noticed(DomainEvent):
    """What a player is told of a challenge or seek (`kind`), or a line of its lists."""

    player: str
    # challenge_received | seek_matched (challenge_sent and seek_opened: in older logs,
    # from before the lists were read from the read model; ignored)
    kind: str
    subject: str  # the challenge's or seek's id
    data: dict[str, Any]


NOTICED = get_topic(Noticed)


def noticed(player: str, kind: str, subject: UUID, data: dict[str, Any]) -> Noticed:
    """A notice in its own stream (one per player, kind and subject)."""
    stream = uuid.uuid5(NAMESPACE, f"{kind}:{subject}:{player}")
    return Noticed(
        originator_id=stream,
        originator_version=1,
        timestamp=Noticed.create_timestamp(),
        player=player,
        kind=kind,
        subject=str(subject),
        data=data,
    )


class Stream(msgspec.Struct):
    """A stream as stored: its events as (type without prefix, data), where it stands."""

    events: list[tuple[str, dict[str, Any]]]
    version: int
    last_hash: str
    last_at: str
    created_at: str
    keys: dict[str, dict[str, Any]]  # Idempotency-Key -> the first event it wrote
    id: str = ""  # the stream's id

    def first(self) -> dict[str, Any]:
        return self.events[0][1]

    def last(self, kind: str) -> dict[str, Any] | None:
        """The data of the stream's last event of type `kind`."""
        for t, data in reversed(self.events):
            if t == kind:
                found: dict[str, Any] = data
                return found
        return None


def read_stream(store: EventStoreApp, stream_id: UUID, prefix: str, code: str) -> Stream:
    """The stream `stream_id` of events `<prefix>*` (404 `code` when there is none)."""
    events = [e for e in store.events.get(stream_id) if isinstance(e, Recorded)]
    stream = stream_of(events, prefix)
    if stream is None:
        raise NotFound(code, f"no {prefix.rstrip('_').replace('_', ' ')} {stream_id}")
    return stream


def stream_of(events: list[Recorded], prefix: str) -> Stream | None:
    """The stream these stored events (all of one stream, from its first) make, or None
    when they are not a stream of `<prefix>*` events (the read model folds them too)."""
    if (
        not events
        or not events[0].type.startswith(prefix)
        or not events[0].type.endswith("created")
    ):
        return None
    keys: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.idempotency_key is not None and e.idempotency_key not in keys:
            keys[e.idempotency_key] = {"type": e.type[len(prefix) :], **e.data}
    last = events[-1]
    return Stream(
        [(e.type[len(prefix) :], e.data) for e in events],
        last.originator_version,
        last.hash,
        last.at,
        events[0].at,
        keys,
        str(events[0].originator_id),
    )


def found(store: EventStoreApp, stream_id: UUID, prefix: str) -> Stream | None:
    try:
        return read_stream(store, stream_id, prefix, "not_found")
    except NotFound:
        return None


def export(store: EventStoreApp, stream_id: UUID, prefix: str) -> list[dict[str, Any]]:
    """A challenge's or seek's log: a header (its format, id and the created event's data),
    then its hash-chained events as export lines (docs/export-format.md's line format)."""
    from service.audit import stored_lines

    lines = stored_lines(store, stream_id)
    created = lines[0].get("data") or {} if lines else {}
    return [{"format": EXPORT_FORMATS[prefix], "id": str(stream_id), **created}, *lines]

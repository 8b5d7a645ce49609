"""The event store: the `eventsourcing` library's Application over Postgres or SQLite.

Each game is one stream (aggregate id = game id) of `Recorded` events: an envelope of the
game version, the acting seat (or "system"), the command and idempotency key behind it, the
time, the event's own data and the hash chain. Its stored form is the envelope as JSON,
encoded with msgspec (the library's 9.5 release has no msgspec transcoder). Players and game
seeds are streams of their own in the same store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import Transcoder

from service.settings import Settings


@dataclass(frozen=True)
class Recorded(DomainEvent):
    """One stored event of a game. `timestamp` is the library's; `at` is its ISO text."""

    type: str
    seat: int | str
    at: str
    command: Any
    idempotency_key: str | None
    data: Any
    prev_hash: str
    hash: str
    # A timed decision's first event: the time it used (and, on a Fischer clock, the time
    # left after its increment). Absent elsewhere, and then not stored or hashed.
    clock: dict[str, int] | None = None


@dataclass(frozen=True)
class SeedKept(DomainEvent):
    """A game's secret seed (hex), in a stream of its own that no endpoint reads; the game's
    last event reveals it."""

    seed: str


@dataclass(frozen=True)
class PlayerRegistered(DomainEvent):
    name: str
    salt: str
    key_hash: str


class MsgspecTranscoder(Transcoder):
    """Event state dict <-> JSON bytes. A game event keeps its time once, as the `at` text
    that the hash covers; the library's `timestamp` is rebuilt from it on the way back."""

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder(enc_hook=_enc_hook)
        self._decoder = msgspec.json.Decoder()

    def encode(self, obj: Any) -> bytes:
        if "at" in obj:
            obj = {
                k: v
                for k, v in obj.items()
                if k != "timestamp" and not (k == "clock" and v is None)
            }
        return self._encoder.encode(obj)

    def decode(self, data: bytes) -> Any:
        state = self._decoder.decode(data)
        state["timestamp"] = datetime.fromisoformat(state.get("at") or state["timestamp"])
        return state


class Envelope(msgspec.Struct, kw_only=True):
    """One stored game event as a fold reads it: what `Recorded` holds, less the library's
    id and timestamp (service/reader.py decodes stored records straight into it)."""

    originator_version: int = 0
    type: str
    seat: int | str
    at: str
    command: Any
    idempotency_key: str | None
    data: Any
    prev_hash: str
    hash: str
    clock: dict[str, int] | None = None


_envelope_json = msgspec.json.Decoder(Envelope)


def decode_envelope(state: bytes) -> Envelope:
    """A stored game event's state bytes as an `Envelope` (its version left 0)."""
    return _envelope_json.decode(state)


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, UUID):
        return str(obj)
    raise NotImplementedError(f"cannot store {type(obj).__name__}")


class EventStoreApp(Application[UUID]):
    """The library application: recorder, mapper, notification log. No aggregate cache:
    the game service keeps its own cache of decided states."""

    name = "Tabletop"
    # The snapshot table (tabletop_snapshots) keeps folds beside the log: service/snapshots.py.
    # No aggregate of the library's is snapshotted (no intervals).
    is_snapshotting_enabled = True

    def construct_transcoder(self) -> Transcoder:
        return MsgspecTranscoder()


def open_store(settings: Settings) -> EventStoreApp:
    return EventStoreApp(env=settings.eventsourcing_env())

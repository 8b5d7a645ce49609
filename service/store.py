"""The event store: the `eventsourcing` library's Application over Postgres or SQLite.

Each game is one stream (aggregate id = game id) of `Recorded` events: an envelope of the
game version, the acting seat (or "system"), the command and idempotency key behind it, the
time, the event's own data and the hash chain. Its stored form is the envelope packed as a
MessagePack array by msgspec (the library's 9.5 release has no msgspec transcoder); game
events stored earlier as JSON objects read as before. Players and game seeds are streams of
their own in the same store (as JSON).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
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
    """Event state dict <-> bytes. A game event keeps its time once, as the `at` text that
    the hash covers; the library's `timestamp` is rebuilt from it on the way back.

    A game event is stored as a MessagePack array (`PACKED` first, then its fields in a fixed
    order), with what is hex (the hashes, a hex idempotency key) as the bytes it spells and
    an `at` stamp as integer microseconds, each only where it converts back to the very same
    text: 150-200 bytes where its JSON object took 360. Everything else (and every game
    event stored before this format) is a JSON object, told apart by its first byte `{`; both
    decode to the same state, so the export and its hashes are unchanged."""

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder(enc_hook=_enc_hook)
        self._decoder = msgspec.json.Decoder()
        self._packer = msgspec.msgpack.Encoder(enc_hook=_enc_hook)

    def encode(self, obj: Any) -> bytes:
        if "at" in obj:
            obj = {
                k: v
                for k, v in obj.items()
                if k != "timestamp" and not (k == "clock" and v is None)
            }
            if obj.keys() <= _PACKABLE and len(obj) >= len(_PACKED_FIELDS):
                return self._packer.encode(_pack(obj))
        return self._encoder.encode(obj)

    def decode(self, data: bytes) -> Any:
        state = self._decoder.decode(data) if data[:1] == b"{" else unpack(data)
        state["timestamp"] = datetime.fromisoformat(state.get("at") or state["timestamp"])
        return state


PACKED = 1  # the packed format's number, its array's first item
_PACKED_FIELDS = (
    "type",
    "seat",
    "at",
    "command",
    "idempotency_key",
    "data",
    "prev_hash",
    "hash",
)
_PACKABLE = frozenset({*_PACKED_FIELDS, "clock"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _pack(obj: dict[str, Any]) -> list[Any]:
    packed = [
        PACKED,
        obj["type"],
        obj["seat"],
        _pack_at(obj["at"]),
        obj["command"],
        _pack_hex(obj["idempotency_key"]),
        obj["data"],
        _pack_hex(obj["prev_hash"]),
        _pack_hex(obj["hash"]),
    ]
    if "clock" in obj:
        packed.append(obj["clock"])
    return packed


def _pack_hex(value: Any) -> Any:
    """Lowercase hex text as its bytes, where they spell it back exactly."""
    if type(value) is str and value and len(value) % 2 == 0:
        try:
            raw = bytes.fromhex(value)
        except ValueError:
            return value
        if raw.hex() == value:
            return raw
    return value


def _unpack_hex(value: Any) -> Any:
    return value.hex() if type(value) is bytes else value


def _pack_at(at: Any) -> Any:
    """An `at` stamp (now_text's form) as microseconds, where they give the same text back."""
    if type(at) is str and len(at) == 27 and at.endswith("Z"):
        try:
            moment = datetime.fromisoformat(at[:-1] + "+00:00")
        except ValueError:
            return at
        us = (moment - _EPOCH) // timedelta(microseconds=1)
        if _at_text(us) == at:
            return us
    return at


_last_at: tuple[int, str] = (-1, "")  # the last stamp decoded: a batch's events share it


def _at_text(us: int) -> str:
    global _last_at
    last = _last_at  # one read: another thread may replace it meanwhile
    if last[0] == us:
        return last[1]
    try:
        text = (_EPOCH + timedelta(microseconds=us)).isoformat(timespec="microseconds")
    except OverflowError as error:  # damage: read as an unreadable record
        raise ValueError(f"no such time: {us} us") from error
    text = text.replace("+00:00", "Z")
    _last_at = (us, text)
    return text


def _unpack_at(value: Any) -> Any:
    return _at_text(value) if type(value) is int else value


class _Packed(msgspec.Struct, array_like=True):
    format: Literal[1]
    type: str
    seat: int | str
    at: Any
    command: Any
    idempotency_key: Any
    data: Any
    prev_hash: Any
    hash: Any
    clock: Any = msgspec.UNSET


_unpacker = msgspec.msgpack.Decoder(_Packed)


def unpack(data: bytes) -> dict[str, Any]:
    """A packed game event's state, as its JSON object decodes (same keys, same order)."""
    p = _unpacker.decode(data)
    state = {
        "type": p.type,
        "seat": p.seat,
        "at": _unpack_at(p.at),
        "command": p.command,
        "idempotency_key": _unpack_hex(p.idempotency_key),
        "data": p.data,
        "prev_hash": _unpack_hex(p.prev_hash),
        "hash": _unpack_hex(p.hash),
    }
    if p.clock is not msgspec.UNSET:
        state["clock"] = p.clock
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
    if state[:1] == b"{":
        return _envelope_json.decode(state)
    p = _unpacker.decode(state)
    at, key, prev, hash_ = p.at, p.idempotency_key, p.prev_hash, p.hash
    return Envelope(
        type=p.type,
        seat=p.seat,
        at=_at_text(at) if type(at) is int else at,
        command=p.command,
        idempotency_key=key.hex() if type(key) is bytes else key,
        data=p.data,
        prev_hash=prev.hex() if type(prev) is bytes else prev,
        hash=hash_.hex() if type(hash_) is bytes else hash_,
        clock=None if p.clock is msgspec.UNSET else p.clock,
    )


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
    store = EventStoreApp(env=settings.eventsourcing_env())
    bound_waits(store, settings)
    return store


def bound_waits(store: EventStoreApp, settings: Settings) -> None:
    """(Postgres) Bound what the library's pool leaves open: a request waits `store_wait`
    for a pooled connection, a connection attempt gives up after as long (libpq waits
    forever on a server that accepts and never answers), and the server cancels a statement
    after `statement_timeout`. The pool's first connections
    were made while the tables were created: they are replaced by bounded ones."""
    pool = getattr(getattr(store.recorder, "datastore", None), "pool", None)
    if not isinstance(getattr(pool, "kwargs", None), dict):
        return  # SQLite: a file, no waits to bound here
    assert pool is not None
    limits = settings.limits
    pool.timeout = limits.store_wait  # the longest a request waits for a connection
    pool.kwargs.update(
        connect_timeout=max(1, round(limits.store_wait)),
        options=f"-c statement_timeout={round(limits.statement_timeout * 1000)}",
    )
    pool.drain()


def read_model_holds_all(
    store: EventStoreApp, tracked: Callable[[str], int | None], timeout: float
) -> bool:
    """Wait, `timeout` seconds at most, until a read model has applied every event the
    store holds now (`tracked`: its position, given the store's name); whether it has. The
    runner applies them within milliseconds: the looks start often and slow down."""
    latest = store.recorder.max_notification_id() or 0
    deadline = time.monotonic() + timeout
    wait = 0.002
    while (tracked(store.name) or 0) < latest:
        if time.monotonic() > deadline:
            return False
        time.sleep(wait)
        wait = min(0.05, wait * 2)
    return True

"""A game's fold from the store, helped by snapshots kept beside the log.

A snapshot is the fold at a version that is a multiple of `INTERVAL`, taken by whoever folds
the game past that version from the store (a cold load, a replay) and kept in the library's
snapshot table (`tabletop_snapshots`: game id, version, bytes). It is derived from the log,
like a cache: the log stays the only truth (export, audit and the hash chain read the log
alone), and a snapshot that is missing, unreadable or of an older format is folded past
from the log instead. A fold at version v then reads the game's first event, its latest
snapshot at or before v, and fewer than `INTERVAL` events after it.

The snapshot holds the fold's changing fields and the rules state, both as MessagePack
(msgspec; never pickle: the bytes come from the database). The rules state is decoded into
its own type; a game type whose state does not come back equal is never snapshotted
(every snapshot is checked when it is taken).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from typing import Any
from uuid import UUID

import msgspec
import psycopg
import structlog
from eventsourcing.persistence import IntegrityError, PersistenceError, StoredEvent

from domain.contract import Result
from service.clocks import Clock
from service.fold import GAME_CREATED, UNREADABLE, Batch, Fold, ForfeitReason, new_fold
from service.reader import read_events, select
from service.store import Envelope, EventStoreApp
from service.undo import Points

log = structlog.get_logger("tabletop.snapshots")

INTERVAL = 256
TOPIC = "tabletop:fold/1"  # the snapshot format; another one is ignored


class _Snapshot(msgspec.Struct, array_like=True):
    version: int
    last_hash: str
    last_at: str
    players: list[str | None]
    names: list[str | None]
    bots: dict[int, str]
    started: bool
    result: Any
    batches: list[tuple[int, str, int, int, Any]]
    open_batch: tuple[int, str] | None
    clock: tuple[list[int], dict[int, int]] | None
    forfeited: dict[int, ForfeitReason]
    overdue: list[int]
    aborted: bool
    decided: bool
    reserved: list[str | None]
    rematch_of: str | None
    rematch: str | None
    rematch_accepted: list[int]
    state: msgspec.Raw
    client_seeds: list[str | None] = []  # (a /2 game's; absent from older snapshots)
    fixed_seeds: list[str] | None = None
    credited_from: int | None = None  # (absent from older snapshots)
    # Takebacks (service/undo.py; absent from older snapshots): each person's point (seat,
    # to_version, rules state), the decisions since, the request standing, its acceptances,
    # the requester's paused time, and the last decision's mark.
    takeback_points: list[tuple[int, int, msgspec.Raw]] = []
    takeback_log: list[tuple[int, int, Any]] = []
    undo_asked: tuple[int, int] | None = None
    undo_yes: list[int] = []
    undo_paused: int | None = None
    undo_last: list[Any] | None = None
    # Keyed lifecycle requests (resign, abort, leave, takebacks): a retry after a snapshot
    # is still answered again (absent from older snapshots).
    lifecycle_keys: dict[str, tuple[str, str | None]] = {}
    line_breaks: list[tuple[int, int]] = []  # (absent from older snapshots)
    finished_at: str | None = None  # (absent from older snapshots)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Snapshot)
_state_decoders: dict[type, msgspec.msgpack.Decoder[Any]] = {}
_refused: set[str] = set()  # game types whose state does not round-trip
_broken_stores: set[int] = set()  # stores without a usable snapshot table


def load(
    store: EventStoreApp,
    game_id: UUID,
    lte: int | None = None,
    each: Callable[[Fold, Any], None] | None = None,
) -> Fold | None:
    """The game's fold at `lte` (its latest version when None), or None when the store holds
    no such game. Snapshots it folds past are kept (unless `each` is given: a caller that
    watches every event needs them all)."""
    snapshot = None if each is not None else _latest(store, game_id, lte)
    fold: Fold | None = None
    if snapshot is not None:  # the first event (the game's fixed fields) and those after it
        version, data = snapshot
        events = read_events(store, game_id, gt=version, lte=lte, first=True)
        if events and events[0].originator_version == 1:
            fold = _restore(game_id, events[0], version, data)
    if fold is not None:
        events = events[1:]
    else:
        events = read_events(store, game_id, lte=lte)
        if not events or events[0].type != GAME_CREATED:
            return None  # no such game (a tournament's stream is not one)
        fold = new_fold(game_id, events[0])
        events = events[1:]
    taken: list[tuple[int, bytes]] = []
    watch = each
    if each is None and fold.game.name not in _refused and id(store) not in _broken_stores:

        def watch(f: Fold, e: Any) -> None:
            if f.version % INTERVAL == 0 and f.game.name not in _refused:
                data = encode(f)
                if _round_trips(f, data):
                    taken.append((f.version, data))
                else:
                    _refused.add(f.game.name)
                    log.warning("snapshot_refused", game=f.game.name, game_id=str(f.id))

    folded = fold.advance(events, clone=False, each=watch)
    if taken:
        _keep(store, folded, taken)
    return folded


def encode(fold: Fold) -> bytes:
    clock = fold.clock
    return _encoder.encode(
        _Snapshot(
            version=fold.version,
            last_hash=fold.last_hash,
            last_at=fold.last_at,
            players=fold.players,
            names=fold.names,
            bots=fold.bots,
            started=fold.started,
            result=msgspec.to_builtins(fold.result) if fold.result is not None else None,
            batches=[(s, k, b.first, b.last, b.command) for (s, k), b in fold.batches.items()],
            open_batch=fold.open_batch,
            clock=(clock.remaining, clock.since) if clock is not None else None,
            forfeited=fold.forfeited,
            overdue=sorted(fold.overdue),
            aborted=fold.aborted,
            decided=fold.decided,
            reserved=fold.reserved,
            rematch_of=fold.rematch_of,
            rematch=fold.rematch,
            rematch_accepted=sorted(fold.rematch_accepted),
            state=msgspec.Raw(_encoder.encode(fold.state)),
            client_seeds=fold.client_seeds,
            fixed_seeds=fold.fixed_seeds,
            credited_from=fold.credited_from,
            takeback_points=[
                (seat, v, msgspec.Raw(_encoder.encode(st))) for seat, v, st in fold.takeback.points
            ],
            takeback_log=list(fold.takeback.log),
            undo_asked=fold.undo_asked,
            undo_yes=sorted(fold.undo_yes),
            undo_paused=fold.undo_paused,
            undo_last=list(fold.undo_last) if fold.undo_last is not None else None,
            lifecycle_keys=fold.lifecycle_keys,
            line_breaks=list(fold.line_breaks),
            finished_at=fold.finished_at,
        )
    )


def restore(game_id: UUID, created: Envelope, data: bytes) -> Fold:
    """The fold a snapshot holds, on the game's first event (its fixed fields)."""
    snap = _decoder.decode(data)
    fold = new_fold(game_id, created)
    kind = type(fold.state)
    decoder = _state_decoders.get(kind)
    if decoder is None:
        decoder = _state_decoders[kind] = msgspec.msgpack.Decoder(kind)
    fold.state = decoder.decode(snap.state)
    fold.version, fold.last_hash, fold.last_at = snap.version, snap.last_hash, snap.last_at
    fold.players, fold.names, fold.bots = snap.players, snap.names, snap.bots
    fold.started = snap.started
    fold.result = msgspec.convert(snap.result, Result) if snap.result is not None else None
    fold.batches = {(s, k): Batch(first, last, c) for s, k, first, last, c in snap.batches}
    fold.open_batch = snap.open_batch
    if snap.clock is not None:
        if fold.clock_spec is None:
            raise ValueError("a snapshot with a clock of a game without one")
        fold.clock = Clock(fold.clock_spec, fold.seats)
        fold.clock.remaining, fold.clock.since = snap.clock
    fold.forfeited = snap.forfeited
    fold.overdue = frozenset(snap.overdue)
    fold.aborted, fold.decided = snap.aborted, snap.decided
    fold.reserved, fold.rematch_of, fold.rematch = snap.reserved, snap.rematch_of, snap.rematch
    fold.rematch_accepted = frozenset(snap.rematch_accepted)
    fold.client_seeds = snap.client_seeds or [None] * fold.seats
    fold.fixed_seeds = snap.fixed_seeds
    fold.credited_from = snap.credited_from
    points = tuple((seat, v, decoder.decode(st)) for seat, v, st in snap.takeback_points)
    fold.takeback = Points(points, tuple((v, seat, c) for v, seat, c in snap.takeback_log))
    asked = snap.undo_asked
    fold.undo_asked = (asked[0], asked[1]) if asked is not None else None
    fold.undo_yes = frozenset(snap.undo_yes)
    fold.undo_paused = snap.undo_paused
    fold.undo_last = tuple(snap.undo_last) if snap.undo_last is not None else None
    fold.lifecycle_keys = {k: (kind, who) for k, (kind, who) in snap.lifecycle_keys.items()}
    fold.line_breaks = tuple((v, o) for v, o in snap.line_breaks)
    fold.finished_at = snap.finished_at
    return fold


def same(a: Fold, b: Fold) -> bool:
    """Two folds of one game hold the same game (every field but the rules object)."""
    fields = [f for f in a.__dataclass_fields__ if f not in ("game", "clock")]
    if any(getattr(a, f) != getattr(b, f) for f in fields):
        return False
    if (a.clock is None) != (b.clock is None):
        return False
    if a.clock is not None and b.clock is not None:
        return (a.clock.remaining, a.clock.since) == (b.clock.remaining, b.clock.since)
    return True


def _restore(game_id: UUID, created: Envelope, version: int, data: bytes) -> Fold | None:
    try:
        fold = restore(game_id, created, data)
    except (*UNREADABLE, msgspec.DecodeError) as error:
        log.warning("snapshot_unreadable", game_id=str(game_id), error=repr(error))
        return None
    return fold if fold.version == version else None


def _latest(store: EventStoreApp, game_id: UUID, lte: int | None) -> tuple[int, bytes] | None:
    snapshots = store.snapshots
    if snapshots is None or id(store) in _broken_stores:
        return None
    if lte is not None and lte < INTERVAL:
        return None
    try:
        found = select(snapshots.recorder, game_id, lte=lte, limit=4, desc=True)
    except (PersistenceError, psycopg.Error, sqlite3.Error) as error:
        _broken(store, error)
        return None
    return next(((v, state) for v, topic, state in found if topic == TOPIC), None)


def _keep(store: EventStoreApp, fold: Fold, taken: list[tuple[int, bytes]]) -> None:
    snapshots = store.snapshots
    if snapshots is None:
        return
    kept = [StoredEvent(fold.id, version, TOPIC, data) for version, data in taken]
    try:  # all in one transaction; one by one if some were taken already (a race)
        snapshots.recorder.insert_events(kept)
        return
    except IntegrityError:
        pass
    except PersistenceError as error:  # no table
        _broken(store, error)
        return
    for snapshot in kept:
        with contextlib.suppress(IntegrityError):
            snapshots.recorder.insert_events([snapshot])


def _round_trips(fold: Fold, data: bytes) -> bool:
    try:
        snap = _decoder.decode(data)
        kind = type(fold.state)
        return bool(msgspec.msgpack.decode(snap.state, type=kind) == fold.state)
    except (*UNREADABLE, msgspec.DecodeError):
        return False


def _broken(store: EventStoreApp, error: Exception) -> None:
    _broken_stores.add(id(store))
    log.warning("snapshots_off", error=repr(error))

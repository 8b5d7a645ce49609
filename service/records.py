"""How a write's events are made: each stamped with the time its decision was made, chained
to the one before by its hash, and applied to the write's own copy of the fold.

A `Recording` is one write in the making. It starts from a fold (the game as the write
found it), records the service's own events (`note`) and the rules' events of decisions
(`decision`), and closes a game that the rules or a forfeit ended (`close`). Nothing here is
saved: the write driver (service/writes.py) saves `events` and keeps `fold`.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

import msgspec

from service import lifecycle
from service.chain import GENESIS, line_hash
from service.errors import Unprocessable
from service.fold import GAME_FINISHED, SYSTEM, Fold
from service.store import Recorded, SeedKept

SEED_NAMESPACE = UUID("6d1c2a52-4f0e-4b8e-9a57-1f3c8f0d2b11")
KEYED_NAMESPACE = UUID("0b6c8e0e-52a4-4f43-9d8e-3a1f6b7c2d90")


@dataclass(frozen=True)
class Note:
    """One of the service's own events (SERVICE_EVENTS), to record among a write's events."""

    type: str
    data: dict[str, Any]


class Recording:
    """The events of one write, stamped `at` and keyed `key` (a player's Idempotency-Key;
    None for the server's own writes), applied to `fold` as they are made. `fold` must be
    the write's own copy: see `on`."""

    def __init__(self, fold: Fold, at: str, key: str | None = None, own: bool = True) -> None:
        self.fold = fold
        self.at = at
        self.key = key
        self.events: list[Recorded] = []
        self._own_state = own  # whether fold.state is ours to evolve in place

    @classmethod
    def on(cls, fold: Fold, at: str, key: str | None = None) -> Recording:
        """A recording on a copy of `fold`. Its rules state is shared with `fold` (a
        decision that the rules evolved replaces it, never changes it) and cloned only when
        events must be evolved here: a game's setup, or any decision in a game with a clock,
        whose seats are observed after each event."""
        return cls(fold.advance([], clone=False), at, key, own=False)

    def note(self, type_: str, actor: int | str, data: dict[str, Any]) -> Recorded:
        """One of the service's own events."""
        return self._record(type_, actor, None, data, None, None)

    def decision(
        self, actor: int | str, command: Any, events: list[Any], after: Any = None
    ) -> None:
        """The rules' `events` of a decision by `actor` (a seat, or the system for a game's
        setup; `command` as recorded, None for the setup). `after` is the rules state after
        them when the rules evolved it already (`decide_evolve`): taken as it is in a game
        without a clock. A timed decision's first event records the time its seat used."""
        fold = self.fold
        timing = None
        if command is not None and fold.clock is not None and actor in fold.clock.since:
            assert isinstance(actor, int)
            timing = fold.clock.charged(actor, self.at)
        evolved = after if fold.clock is None else None
        rules = any(not isinstance(event, Note) for event in events)
        if rules and evolved is None and not self._own_state and fold.state is not None:
            fold.state = fold.game.clone(fold.state)
            self._own_state = True
        for i, event in enumerate(events):
            if isinstance(event, Note):
                self._record(event.type, actor, command, event.data, None, None)
                continue
            data = msgspec.to_builtins(event)
            type_ = data.pop("type")
            self._record(type_, actor, command, data, timing if i == 0 else None, event, evolved)

    def close(self, seed: bytes) -> None:
        """Record the end of a game that the rules (or a forfeit) ended: its result, with the
        seed revealed."""
        fold = self.fold
        if not fold.started or fold.over:
            return
        result = fold.game.result(fold.state)
        final = None
        if result is not None:
            final = lifecycle.final_result(result, fold.forfeited)
        elif lifecycle.ends_by_forfeit(fold.seats, fold.forfeited):
            final = lifecycle.forfeit_result(fold.seats, fold.forfeited)
        if final is not None:
            data = {"seed": seed.hex(), "result": msgspec.to_builtins(final)}
            self._record(GAME_FINISHED, SYSTEM, None, data, None, None)

    def _record(
        self,
        type_: str,
        actor: int | str,
        command: Any,
        data: Any,
        timing: dict[str, int] | None,
        decided: Any,
        after: Any = None,
    ) -> Recorded:
        fold = self.fold
        e = recorded(
            fold.id, fold.version + 1, fold.last_hash, type_, actor, command, self.key, data,
            self.at, timing,
        )  # fmt: skip
        self.events.append(e)
        fold.apply(e, decided, after)
        return e


def recorded(
    game_id: UUID,
    version: int,
    prev: str,
    type_: str,
    seat: int | str,
    command: Any,
    key: str | None,
    data: Any,
    at: str,
    clock: dict[str, int] | None = None,
) -> Recorded:
    """A stored event, its hash over its export line (chain.line_hash)."""
    line = {
        "version": version,
        "type": type_,
        "seat": seat,
        "at": at,
        "command": command,
        "idempotency_key": key,
        "data": data,
        "prev_hash": prev,
    }
    if clock is not None:  # a timed decision's clock; absent (not null) everywhere else
        line["clock"] = clock
    return Recorded(
        originator_id=game_id,
        originator_version=version,
        timestamp=datetime.fromisoformat(at),
        type=type_,
        seat=seat,
        at=at,
        command=command,
        idempotency_key=key,
        data=data,
        prev_hash=prev,
        hash=line_hash(line),
        clock=clock,
    )


class StreamHead(Protocol):
    """Where a stream of the service's own events stands (a tournament's, a challenge's)."""

    version: int
    last_hash: str
    last_at: str


def chained(
    stream_id: UUID,
    after: StreamHead | None,
    events: list[dict[str, Any]],
    prefix: str,
    at: str,
    key: str | None = None,
) -> list[Recorded]:
    """`events` ({"type": ..., **data}) of a stream of the service's own (a tournament, a
    challenge, a seek) after `after`, their types prefixed, stamped `at` (never before the
    stream's last stamp), keyed `key` (a request's Idempotency-Key) and hash-chained."""
    version = after.version if after else 0
    prev = after.last_hash if after else GENESIS
    at = max(at, after.last_at) if after else at
    out: list[Recorded] = []
    for event in events:
        data = {k: v for k, v in event.items() if k != "type"}
        version += 1
        e = recorded(stream_id, version, prev, prefix + event["type"], SYSTEM, None, key, data, at)
        out.append(e)
        prev = e.hash
    return out


def reused(what: str = "request") -> Unprocessable:
    """422 for an Idempotency-Key that was used for another request (or move)."""
    return Unprocessable(
        "idempotency_key_reused", f"this Idempotency-Key was used for another {what}"
    )


def seed_stream(game_id: UUID) -> UUID:
    """The stream that keeps a game's secret seed."""
    return uuid.uuid5(SEED_NAMESPACE, game_id.hex)


def kept_seed(game_id: UUID, seed: bytes) -> SeedKept:
    """The game's secret seed, in a stream of its own."""
    return SeedKept(
        originator_id=seed_stream(game_id),
        originator_version=1,
        timestamp=SeedKept.create_timestamp(),
        seed=seed.hex(),
    )


def keyed_game_id(player_id: str, key: str) -> UUID:
    """The id of the game a player's create with an Idempotency-Key makes: the same for
    every retry, so the store's unique (id, version) makes the create happen once, in any
    process."""
    return uuid.uuid5(KEYED_NAMESPACE, f"{player_id}:{key}")


def server_client_seed() -> str:
    """The client seed the server gives a seat whose player gave none (and every bot's)."""
    return secrets.token_hex(8)

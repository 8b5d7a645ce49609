"""A game as the fold of its stored events: the envelope metadata, the rules state and the
idempotency index. Folds are copy-on-write: `advance` returns a new fold, so a reader holding
one never sees it change."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import msgspec

from domain.contract import Game, Result
from domain.registry import get as get_game

GAME_CREATED = "game_created"
SEAT_TAKEN = "seat_taken"
GAME_FINISHED = "game_finished"
SERVICE_EVENTS = frozenset({GAME_CREATED, SEAT_TAKEN, GAME_FINISHED})
SYSTEM = "system"
# What a damaged stored record raises when it is decoded or folded (msgspec's errors are
# ValueErrors): damage to one game, refused or skipped as such, never a server fault.
UNREADABLE = (ValueError, LookupError, TypeError, AttributeError)


@dataclass(frozen=True)
class Batch:
    """The events one keyed request appended (its move, then the bot and system events it
    caused): answered again when the same Idempotency-Key comes back."""

    first: int
    last: int
    command: Any  # the move as recorded, to tell a retry from a reuse with another body

    @property
    def expected_version(self) -> int:
        return self.first - 1


@dataclass
class Fold:
    id: UUID
    game: Game[Any, Any]
    options: Any
    seats: int
    seed_commitment: str
    created_at: str
    created_by: str | None
    version: int = 0
    last_hash: str = ""
    last_at: str = ""
    players: list[str | None] = field(default_factory=list)
    names: list[str | None] = field(default_factory=list)
    bots: dict[int, str] = field(default_factory=dict)
    state: Any = None
    started: bool = False
    result: Result | None = None
    batches: dict[tuple[int, str], Batch] = field(default_factory=dict)
    open_batch: tuple[int, str] | None = None

    @property
    def status(self) -> str:
        if self.result is not None:
            return "finished"
        return "active" if self.started else "open"

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat, pid in enumerate(self.players):
            if pid == player_id:
                return seat
        return None

    def free_seats(self) -> list[int]:
        return [s for s, pid in enumerate(self.players) if pid is None and s not in self.bots]

    def awaiting(self) -> list[int]:
        return [] if not self.started or self.result else self.game.awaiting(self.state)

    def decode(self, type_: str, data: Any) -> Any:
        """A stored domain event back to the game's own Struct."""
        return msgspec.convert({"type": type_, **data}, self.game.event_type)

    def advance(self, events: list[Any], clone: bool = True) -> Fold:
        """A new fold with `events` (stored `Recorded` envelopes) applied."""
        new = copy.copy(self)
        new.players, new.names, new.bots = list(self.players), list(self.names), dict(self.bots)
        new.batches = dict(self.batches)
        if clone and self.state is not None:
            new.state = self.game.clone(self.state)
        for event in events:
            new._apply(event)
        return new

    def _apply_decided(self, events: list[Any], state: Any) -> None:
        """Apply envelopes whose rules state the caller already evolved to `state`."""
        for event in events:
            self._apply(event, evolve=False)
        self.state = state

    def _apply(self, e: Any, evolve: bool = True) -> None:
        if e.originator_version != self.version + 1:
            raise ValueError(f"game {self.id}: version {e.originator_version} after {self.version}")
        self.version = e.originator_version
        self.last_hash = e.hash
        self.last_at = e.at
        if e.idempotency_key is not None:
            self._record_batch(e)
        if e.type == SEAT_TAKEN:
            seat = e.data["seat"]
            self.players[seat] = e.data.get("player")
            self.names[seat] = e.data.get("name")
            if e.data.get("bot"):
                self.bots[seat] = e.data["bot"]
        elif e.type == GAME_FINISHED:
            self.result = msgspec.convert(e.data["result"], Result)
        elif e.type != GAME_CREATED:
            self.started = True
            if evolve:
                self.state = self.game.evolve(self.state, self.decode(e.type, e.data))

    def _record_batch(self, e: Any) -> None:
        """Events appended by one request share its key, contiguously from the requester's."""
        v = e.originator_version
        current = self.open_batch
        if current is not None and current[1] == e.idempotency_key:
            batch = self.batches[current]
            if batch.last == v - 1:
                self.batches[current] = Batch(batch.first, v, batch.command)
                return
        if isinstance(e.seat, int):
            self.open_batch = (e.seat, e.idempotency_key)
            self.batches[self.open_batch] = Batch(v, v, e.command)


def new_fold(game_id: UUID, created: Any) -> Fold:
    """The fold of a game's first event (`game_created`)."""
    data = created.data
    game = get_game(data["game"])
    if game is None:
        raise LookupError(f"game type {data['game']!r} is not registered")
    options = msgspec.convert(data["options"], game.options_type)
    seats = data["seats"]
    fold = Fold(
        id=game_id,
        game=game,
        options=options,
        seats=seats,
        seed_commitment=data["seed_commitment"],
        created_at=created.at,
        created_by=data.get("created_by"),
        players=[None] * seats,
        names=[None] * seats,
        state=game.initial(options, seats),
    )
    fold.version = created.originator_version
    fold.last_hash = created.hash
    fold.last_at = created.at
    return fold

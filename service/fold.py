"""A game as the fold of its stored events: the envelope metadata, the rules state and the
idempotency index. Folds are copy-on-write: `advance` returns a new fold, so a reader holding
one never sees it change."""

from __future__ import annotations

import copy
import functools
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

import msgspec

from domain.contract import Game, Result
from domain.registry import get as get_game
from service import undo as takebacks
from service.chain import RANDOMNESS, rules_seed
from service.clocks import Clock
from service.undo import REVERTED, UNDO_ACCEPTED, UNDO_DECLINED, UNDO_REQUESTED

GAME_CREATED = "game_created"
SEAT_TAKEN = "seat_taken"
SEAT_LEFT = "seat_left"  # an open game's seat is free again
TIMED_OUT = "timed_out"  # a seat's deadline passed (the timekeeper)
# The running clocks get back time the service could not act (an outage): {seats, ms, reason}.
CLOCK_CREDIT = "clock_credit"
SEAT_FORFEITED = "seat_forfeited"  # a seat resigned or timed out for good: a bot plays it
GAME_FINISHED = "game_finished"
GAME_ABORTED = "game_aborted"  # cancelled before the first decision: no result
REMATCH_OFFERED = "rematch_offered"
REMATCH_ACCEPTED = "rematch_accepted"
# Every seat is taken: the seats' client seeds, in seat order, fixed into the randomness
# (a /2 game: its game_created names chain.RANDOMNESS).
RANDOMNESS_FIXED = "randomness_fixed"
# The service's own events: the rules never see them.
SERVICE_EVENTS = frozenset(
    {
        GAME_CREATED,
        SEAT_TAKEN,
        SEAT_LEFT,
        TIMED_OUT,
        CLOCK_CREDIT,
        SEAT_FORFEITED,
        GAME_FINISHED,
        GAME_ABORTED,
        REMATCH_OFFERED,
        REMATCH_ACCEPTED,
        RANDOMNESS_FIXED,
        UNDO_REQUESTED,
        UNDO_ACCEPTED,
        UNDO_DECLINED,
        REVERTED,
    }
)
# Events that end a game (its seed is revealed in them).
ENDINGS = frozenset({GAME_FINISHED, GAME_ABORTED})
SYSTEM = "system"
# Where a game stands: seats being taken, being played, over with a result, or cancelled.
GameStatus = Literal["open", "active", "finished", "aborted"]
# Why a seat forfeited: its player resigned, its time ran out (the `forfeit` policy), or it
# withdrew from its tournament.
ForfeitReason = Literal["resigned", "timed_out", "withdrawn"]
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
    # A lifecycle request's Idempotency-Key -> (what it did: its event's type, who asked).
    lifecycle_keys: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    # The lifecycle (service/lifecycle.py): clocks, forfeits, abort, rematch.
    clock_spec: dict[str, Any] | None = None
    on_timeout: str | None = None
    clock: Clock | None = None
    forfeited: dict[int, ForfeitReason] = field(default_factory=dict)
    overdue: frozenset[int] = frozenset()  # timed out: a bot makes their current decision
    aborted: bool = False
    decided: bool = False  # a seated player made a decision (no abort after that)
    reserved: list[str | None] = field(default_factory=list)  # a rematch's seats, by player
    rematch_of: str | None = None
    rematch: str | None = None  # the rematch offered after this game
    rematch_accepted: frozenset[int] = frozenset()  # seats in it (its offerer's too)
    rated: bool = False  # its result moves its players' ratings
    tournament: str | None = None  # the tournament whose table it is
    # Bots' seats run a clock too (games created since decisions are stamped when they are
    # made: a bot's thinking is its own time). Older games keep their rule: bots never wait.
    bot_clocks: bool = False
    # Client seeds (a /2 game): each seat's, and those fixed once every seat was taken.
    seeded: bool = False
    client_seeds: list[str | None] = field(default_factory=list)
    fixed_seeds: list[str] | None = None
    # The version before the clock credits that end the log, if they do: a move made at any
    # version from there is made on the same game (a credit changes no decision).
    credited_from: int | None = None
    # Takebacks (service/undo.py, docs/undo.md): whether the game allows them, each person's
    # take-back point, the request standing (seat, to_version), the seats that accepted it,
    # and the time the requester had used on its running decision when the request paused
    # its clock (us; None: its clock was not running).
    undo: bool = False
    takeback: takebacks.Points = takebacks.NONE
    undo_asked: tuple[int, int] | None = None
    undo_yes: frozenset[int] = frozenset()
    undo_paused: int | None = None
    undo_last: tuple[Any, ...] | None = None  # (seat, command, key, at) of the last decision
    # Versions not on the game's line since its last revert: a revert to v at version r
    # puts the game back at v, so what a position decides by its version (a bot's choice)
    # is decided the same on the line again (`line_version`).
    # Each revert's (version, offset from then on), oldest first.
    line_breaks: tuple[tuple[int, int], ...] = ()
    finished_at: str | None = None  # the stamp of its `game_finished`

    @property
    def line_offset(self) -> int:
        return self.line_breaks[-1][1] if self.line_breaks else 0

    @property
    def line_version(self) -> int:
        """The version this position had when the game first reached it (its version, but
        after a revert: the line version of the position reverted to, and on from there)."""
        return self.version - self.line_offset

    def _line_version_of(self, version: int) -> int:
        offset = next((o for start, o in reversed(self.line_breaks) if start <= version), 0)
        return version - offset

    @property
    def status(self) -> GameStatus:
        if self.aborted:
            return "aborted"
        if self.result is not None:
            return "finished"
        return "active" if self.started else "open"

    @property
    def over(self) -> bool:
        """Finished or aborted: nothing more is played."""
        return self.aborted or self.result is not None

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat, pid in enumerate(self.players):
            if pid == player_id:
                return seat
        return None

    def rules_seed(self, server_seed: bytes) -> bytes:
        """The seed of the rules' randomness: the server's own in a /1 game; in a /2 game
        the server's mixed with the client seeds fixed when the last seat was taken."""
        if self.fixed_seeds is None:
            return server_seed
        return rules_seed(server_seed, str(self.id), self.fixed_seeds)

    def free_seats(self) -> list[int]:
        return [s for s, pid in enumerate(self.players) if pid is None and s not in self.bots]

    def awaiting(self) -> list[int]:
        return [] if not self.started or self.over else self.game.awaiting(self.state)

    def timed_seats(self) -> list[int]:
        """Awaited seats whose clock runs: every seat a person or a bot of its own plays
        (in an older game, only people's: there bots never wait), except a seat that timed
        out, until the bot has made its decision, and a forfeited seat."""
        paused = self.undo_asked[0] if self.undo_asked is not None else None
        if self.bot_clocks:
            return [
                s
                for s in self.awaiting()
                if s not in self.overdue and s not in self.forfeited and s != paused
            ]
        awaited = self.awaiting()
        return [s for s in awaited if s not in self.bots and s not in self.overdue and s != paused]

    def bot_turn(self) -> tuple[int, str] | None:
        """(seat, bot) of the first awaited seat a bot decides for now: one that timed out
        under a `bot:` policy (that bot), then a bot's seat (a forfeited seat's included:
        under the `forfeit` policy a timed-out seat forfeits, and its random bot plays)."""
        if not self.started or self.over:
            return None
        awaited = self.awaiting()
        policy = (self.on_timeout or "bot:random").removeprefix("bot:")
        for seat in awaited:
            if seat in self.overdue and seat not in self.forfeited:
                return seat, policy
        for seat in awaited:
            if seat in self.bots:
                return seat, self.bots[seat]
        return None

    def next_deadline(self) -> int | None:
        """When the first running clock runs out (us since the epoch), if one runs."""
        if self.clock is None or self.over:
            return None
        running = (self.clock.deadline(s) for s in self.clock.since)
        return min((d for d in running if d is not None), default=None)

    def decode(self, type_: str, data: Any) -> Any:
        """A stored domain event back to the game's own Struct: converted to the class its
        tag names (about 1 µs), not to the tagged union (20-80 µs: msgspec works out the
        union's member at every call)."""
        cls = _classes_by_game(self.game.name).get(type_)
        if cls is None or not isinstance(data, dict) or "type" in data:
            return msgspec.convert({"type": type_, **data}, self.game.event_type)
        return msgspec.convert(data, cls)

    def advance(
        self,
        events: list[Any],
        clone: bool = True,
        each: Callable[[Fold, Any], None] | None = None,
    ) -> Fold:
        """A new fold with `events` (stored `Recorded` envelopes) applied; `each(fold,
        event)` is called after each one (the read models' notifications)."""
        new = copy.copy(self)
        new.players, new.names, new.bots = list(self.players), list(self.names), dict(self.bots)
        new.batches, new.forfeited = dict(self.batches), dict(self.forfeited)
        new.lifecycle_keys = dict(self.lifecycle_keys)
        new.client_seeds = list(self.client_seeds)
        new.clock = self.clock.copy() if self.clock is not None else None
        if clone and self.state is not None:
            new.state = self.game.clone(self.state)
        for event in events:
            new.apply(event)
            if each is not None:
                each(new, event)
        return new

    def apply(self, e: Any, decided: Any = None, after: Any = None) -> None:
        """Apply one stored envelope. `decided` is its rules event when the caller already
        has it (a write being decided): no decoding then. `after` is the rules state after
        it when the caller has that too (the rules evolved it while they decided): it is
        taken as it is, not evolved again."""
        if e.originator_version != self.version + 1:
            raise ValueError(f"game {self.id}: version {e.originator_version} after {self.version}")
        if e.type != CLOCK_CREDIT:
            self.credited_from = None
        elif self.credited_from is None:
            self.credited_from = self.version
        resume = None
        if self.undo_asked is not None and e.type not in _UNDO_GOES_ON:
            resume = self._undo_ends(e.type)
        self.version = e.originator_version
        self.last_hash = e.hash
        self.last_at = e.at
        if e.idempotency_key is not None:
            self._record_batch(e)
        if e.type in SERVICE_EVENTS:
            self.undo_last = None
            if e.idempotency_key is not None and e.type in _KEYED_LIFECYCLE:
                asked = _KEYED_LIFECYCLE[e.type](self, e.data)
                self.lifecycle_keys.setdefault(e.idempotency_key, (e.type, asked))
            self._apply_service(e.type, e.data)
        else:
            self.started = True
            if self.undo:
                self._note_decision(e, after is None)
            if after is not None:
                self.state = after
            else:
                event = decided if decided is not None else self.decode(e.type, e.data)
                self.state = self.game.evolve(self.state, event)
            if isinstance(e.seat, int) and e.command is not None:
                self.decided = self.decided or e.seat not in self.bots
                self.overdue = self.overdue - {e.seat}
                if self.clock is not None and getattr(e, "clock", None) is not None:
                    self.clock.decided(e.seat, e.at)  # the first event of a timed decision
        if self.clock is not None:
            timed = self.timed_seats()
            if resume is not None and resume[0] in timed:
                self.clock.resume(resume[0], e.at, resume[1])
            self.clock.observe(e.at, timed)

    def _apply_service(self, type_: str, data: Any) -> None:
        if type_ == SEAT_TAKEN:
            seat = data["seat"]
            self.players[seat] = data.get("player")
            self.names[seat] = data.get("name")
            self.client_seeds[seat] = data.get("client_seed")
            if data.get("bot"):
                self.bots[seat] = data["bot"]
        elif type_ == SEAT_LEFT:
            self.players[data["seat"]] = self.names[data["seat"]] = None
            self.client_seeds[data["seat"]] = None
        elif type_ == TIMED_OUT:
            self.overdue = self.overdue | {data["seat"]}
            self.takeback = takebacks.dropped(self.takeback, data["seat"])  # no undo across it
            if self.clock is not None:
                self.clock.timed_out(data["seat"])
        elif type_ == CLOCK_CREDIT:
            if self.clock is not None:
                self.clock.credit(list(data["seats"]), int(data["ms"]))
        elif type_ == SEAT_FORFEITED:
            self.forfeited[data["seat"]] = data["reason"]
            self.bots[data["seat"]] = data["bot"]
        elif type_ == RANDOMNESS_FIXED:
            self.fixed_seeds = list(data["client_seeds"])
        elif type_ == GAME_FINISHED:
            self.result = msgspec.convert(data["result"], Result)
            self.finished_at = self.last_at
        elif type_ == GAME_ABORTED:
            self.aborted = True
        elif type_ == REMATCH_OFFERED:  # its offerer has accepted it too
            self.rematch = data["game"]
            self.rematch_accepted = self.rematch_accepted | {data["by"]}
        elif type_ == REMATCH_ACCEPTED:
            self.rematch_accepted = self.rematch_accepted | {data["seat"]}
        elif type_ == UNDO_REQUESTED:
            self.undo_asked = (data["seat"], data["to_version"])
            self.undo_yes = frozenset()
            self.undo_paused = None
            if self.clock is not None and data["seat"] in self.clock.since:
                self.undo_paused = self.clock.pause(data["seat"], self.last_at)
        elif type_ == UNDO_ACCEPTED:
            self.undo_yes = self.undo_yes | {data["seat"]}
        elif type_ == REVERTED:
            point = self.takeback.point(data["seat"])
            if point is None or point[0] != data["to_version"]:
                raise ValueError(f"reverted to {data['to_version']}: no such take-back point")
            self.state = self.game.clone(point[1])
            self.takeback = takebacks.reverted(self.takeback, data["to_version"])
            back_to = self._line_version_of(data["to_version"])
            self.line_breaks = (*self.line_breaks, (self.version, self.version - back_to))
            self.overdue = frozenset()

    def _note_decision(self, e: Any, in_place: bool) -> None:
        """A rules event: kept in the takeback log (every event of a decision, so that the
        log is re-run as the audit re-runs a game: a decision, then as many events as it
        made). The first of a person's decision (every event of one carries its seat,
        command, key and stamp; the next decision differs in one of them, for a person's
        key is its request's) moves that person's take-back point (service/undo.py).
        `in_place`: the state is evolved in place next, so the point keeps a copy."""
        mark = (e.seat, e.command, e.idempotency_key, e.at)
        if not isinstance(e.seat, int) or e.command is None:
            self.undo_last = None
            return
        first, self.undo_last = mark != self.undo_last, mark
        # Only a person's own decision is a point: not a bot's, nor the one a timeout's bot
        # makes for a person's seat.
        person = first and e.seat not in self.bots and e.seat not in self.overdue
        before = self.game.clone(self.state) if in_place and person else self.state
        self.takeback = takebacks.noted(
            self.takeback, self.version - 1, e.seat, e.command, before, person
        )

    def _undo_ends(self, type_: str) -> tuple[int, int] | None:
        """The standing request ends at `e` (a decline, a revert, a decision, anything but
        an acceptance or a credit): the requester's paused clock goes on from the time it
        had used (after the event, if it is still awaited), unless the game reverts (its
        decision then starts again at the revert). Returns (seat, used us) to resume."""
        seat, _ = self.undo_asked or (0, 0)
        paused = self.undo_paused
        self.undo_asked, self.undo_yes, self.undo_paused = None, frozenset(), None
        if paused is None or type_ == REVERTED:
            return None
        return seat, paused

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


# The lifecycle events a player's keyed request writes, and who asked (a player's id).
_KEYED_LIFECYCLE: dict[str, Callable[[Fold, Any], str | None]] = {
    SEAT_FORFEITED: lambda fold, data: fold.players[data["seat"]],  # resigned
    SEAT_LEFT: lambda fold, data: data.get("player"),
    GAME_ABORTED: lambda fold, data: data.get("by"),
    UNDO_REQUESTED: lambda fold, data: fold.players[data["seat"]],
    UNDO_ACCEPTED: lambda fold, data: fold.players[data["seat"]],
    UNDO_DECLINED: lambda fold, data: fold.players[data["seat"]],
}
# The events during which a takeback request stands; any other ends it.
_UNDO_GOES_ON = frozenset({UNDO_ACCEPTED, CLOCK_CREDIT})


@functools.cache
def _classes_by_game(name: str) -> dict[str, type]:
    """Keyed by the game's name: a string's hash is kept, a typing union's is recomputed at
    every call (a tenth of a fold's time)."""
    game = get_game(name)
    return event_classes(game.event_type) if game is not None else {}


def event_classes(event_type: Any) -> dict[str, type]:
    """A game's event classes by their tag, from its tagged union of events."""
    members = typing.get_args(event_type) or (event_type,)
    classes: dict[str, type] = {}
    for cls in members:
        config = getattr(cls, "__struct_config__", None)
        if config is not None and isinstance(config.tag, str) and config.tag_field == "type":
            classes[config.tag] = cls
    return classes


def new_fold(game_id: UUID, created: Any) -> Fold:
    """The fold of a game's first event (`game_created`)."""
    data = created.data
    game = get_game(data["game"])
    if game is None:
        raise LookupError(f"game type {data['game']!r} is not registered")
    options = msgspec.convert(data["options"], game.options_type)
    seats = data["seats"]
    clock = data.get("clock")
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
        clock_spec=clock,
        on_timeout=data.get("on_timeout"),
        clock=Clock(clock, seats) if clock is not None else None,
        reserved=list(data.get("reserved") or []),
        rematch_of=data.get("rematch_of"),
        rated=bool(data.get("rated")),
        tournament=data.get("tournament"),
        seeded=data.get("randomness") == RANDOMNESS,
        client_seeds=[None] * seats,
        bot_clocks=bool(data.get("bot_clocks")),
        undo=undo_allowed(data),
    )
    fold.version = created.originator_version
    fold.last_hash = created.hash
    fold.last_at = created.at
    return fold


def undo_allowed(created: dict[str, Any]) -> bool:
    """Whether a game allows takebacks: as created with `undo`; else a casual game does, a
    rated or tournament game does not (docs/undo.md)."""
    asked = created.get("undo")
    if isinstance(asked, bool):
        return asked
    return not created.get("rated") and created.get("tournament") is None

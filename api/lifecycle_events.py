"""The data of the service's own events (a game's lifecycle, the same in every game), as the
OpenAPI document types them beside each game's events: `data.type` tells which. The service
writes these as dicts (service/decisions.py, service/records.py); these types only describe
them, so every field a game of an older release may lack has a default."""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from service.fold import ForfeitReason


class _Lifecycle(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    """An event of the game's lifecycle, written by the service, not by the game's rules."""


class GameCreated(_Lifecycle, tag="game_created", frozen=True):
    """The game was created: the first event of every game."""

    game: str  # the game's type
    options: dict[str, Any]  # the game's options, every one filled in
    seats: int  # how many seats the table has
    seed_commitment: str  # SHA-256 of the secret seed, hex: the export reveals the seed
    created_by: str | None  # the creating player's id; None for a tournament's table
    randomness: str | None = None  # how the seed makes the game's randomness (docs/trust.md)
    clock: dict[str, Any] | None = None  # the time control, as created; None: untimed
    on_timeout: str | None = None  # what a seat whose time runs out gets
    bot_clocks: bool = False  # a bot's own thinking runs its own clock, not a person's
    rated: bool = False  # its result moves its players' ratings
    # Takebacks allowed (docs/undo.md); absent: in casual games yes, rated or tournament no.
    undo: bool | None = None
    rematch_of: str | None = None  # the finished game this one is the rematch of
    reserved: list[str | None] | None = None  # a rematch: the player id each seat waits for
    tournament: str | None = None  # the tournament whose table this game is
    round: int | None = None  # that tournament's round, from 1
    table: int | None = None  # the table's number in its round, from 0


class SeatTaken(_Lifecycle, tag="seat_taken", frozen=True):
    """A player or a bot took a seat."""

    seat: int  # the seat taken, from 0
    player: str | None  # the player's id; None for a bot
    name: str | None  # the name shown at the table
    bot: str | None  # the bot's kind (`random`, `greedy`, ...); None for a player
    client_seed: str | None = None  # the seat's contribution to the randomness (docs/trust.md)


class SeatLeft(_Lifecycle, tag="seat_left", frozen=True):
    """A player left an open game's seat: it is free again."""

    seat: int  # the seat left, from 0
    player: str  # the id of the player who left


class RandomnessFixed(_Lifecycle, tag="randomness_fixed", frozen=True):
    """Every seat is taken: the seeds that fix the game's randomness (docs/trust.md)."""

    client_seeds: list[str]  # each seat's seed, by seat


class TimedOut(_Lifecycle, tag="timed_out", frozen=True):
    """A seat's time ran out: its `on_timeout` policy decides for it."""

    seat: int  # the seat whose time ran out
    deadline: str  # when it ran out (RFC 3339, UTC)


class ClockCredit(_Lifecycle, tag="clock_credit", frozen=True):
    """The service could not act for a while (every process stopped, or its store out of
    reach): the seats whose clocks ran get that time back (docs/api.md, "Clocks")."""

    seats: list[int]  # the seats whose clocks ran, each given the time back
    ms: int  # the time given back, in milliseconds
    reason: Literal["outage"]  # why the service could not act


class SeatForfeited(_Lifecycle, tag="seat_forfeited", frozen=True):
    """A seat gave up for good: a bot plays it out, and it ranks last."""

    seat: int  # the seat that forfeited
    reason: ForfeitReason  # why it forfeited
    bot: str  # the bot that plays the seat from now on


class GameFinished(_Lifecycle, tag="game_finished", frozen=True):
    """The game is over: its result, and the seed that made its randomness."""

    seed: str  # the secret seed, hex: its SHA-256 is the game's `seed_commitment`
    result: dict[str, Any]  # `scores` and `ranks` by seat (rank 1 wins; ties share a rank)


class GameAborted(_Lifecycle, tag="game_aborted", frozen=True):
    """The game was cancelled before its first decision: it has no result."""

    by: str  # the id of the player who aborted it
    seed: str  # the secret seed, hex, revealed


class RematchOffered(_Lifecycle, tag="rematch_offered", frozen=True):
    """A player of the finished game offered a rematch."""

    game: str  # the rematch's game id
    by: int  # the seat that offered it


class RematchAccepted(_Lifecycle, tag="rematch_accepted", frozen=True):
    """A player of the finished game took their seat in its rematch."""

    seat: int  # the seat (in the finished game) that accepted
    game: str  # the rematch's game id


class UndoRequested(_Lifecycle, tag="undo_requested", frozen=True):
    """A seat asked to take back its last decision (docs/undo.md): its clock pauses, and
    every other seat must accept (bots at once)."""

    seat: int  # the seat that asked
    to_version: int  # the version the game goes back to: right before that decision


class UndoAccepted(_Lifecycle, tag="undo_accepted", frozen=True):
    """A seat accepted the standing takeback request."""

    seat: int  # the seat that accepted


class UndoDeclined(_Lifecycle, tag="undo_declined", frozen=True):
    """A seat declined the standing takeback request (its requester: withdrew it)."""

    seat: int  # the seat that declined


class Reverted(_Lifecycle, tag="reverted", frozen=True):
    """Every seat accepted: the game goes on from its state at `to_version` (nothing is
    deleted: the events between stay in the log, undone)."""

    seat: int  # the seat whose decision was taken back
    to_version: int  # the version whose state the game goes on from


LifecycleEvent = Union[  # noqa: UP007 (msgspec wants a Union of the tagged Structs)
    GameCreated,
    SeatTaken,
    SeatLeft,
    RandomnessFixed,
    TimedOut,
    ClockCredit,
    SeatForfeited,
    GameFinished,
    GameAborted,
    RematchOffered,
    RematchAccepted,
    UndoRequested,
    UndoAccepted,
    UndoDeclined,
    Reverted,
]

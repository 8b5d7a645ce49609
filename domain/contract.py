"""The game contract every package under `domain/` satisfies (DESIGN.md, "the Decider shape").

A game is pure: no I/O, no clock, no global random. The runner (service/) owns storage,
concurrency and the RNG, which it derives from the game's secret seed and the version, so
re-running `decide` over recorded commands reproduces every event (the basis of audits).

Seats are ints 0..n-1. Commands, events, options, states and views are msgspec Structs;
commands and events are tagged unions (`tag_field="type"`), so one type gives JSON decoding,
validation and the OpenAPI schema.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import msgspec

State = TypeVar("State")
Options = TypeVar("Options", bound=msgspec.Struct)


class RuleError(Exception):
    """A command the rules refuse. `code` is stable and machine-readable.

    Codes start with `illegal_move.` for moves (`illegal_move.not_your_turn`,
    `illegal_move.wrong_phase`, `illegal_move.cannot_afford`, ...) and `invalid_options.` for
    game options. The API answers them with 422 and changes nothing.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"


def illegal(reason: str, message: str) -> RuleError:
    """Shorthand for a move refusal: `illegal("not_your_turn", "...")`."""
    return RuleError(f"illegal_move.{reason}", message)


def not_your_turn(seat: int) -> RuleError:
    return illegal("not_your_turn", f"seat {seat} is not awaited now")


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """Final outcome. `ranks[s]` is 1 for the winner(s); tied seats share a rank.

    `tiebreak[s]` is the value compared after the score (a number or a tuple as a list);
    `details` holds per-game breakdowns (VP by source, ...).
    """

    scores: list[int]
    ranks: list[int]
    tiebreak: list[Any] = []
    details: dict[str, Any] = {}

    @property
    def winners(self) -> list[int]:
        return [s for s, r in enumerate(self.ranks) if r == 1]


def rank(keys: Sequence[Any]) -> list[int]:
    """Competition ranking (1, 1, 3, ...) of seats by descending key (score, tie-break...)."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class Game(Protocol[State, Options]):
    """What the registry holds for one game. See DESIGN.md for the meaning of each call."""

    name: str  # registry name, e.g. "puerto-rico"
    title: str
    min_players: int
    max_players: int
    options_type: type[Options]  # Struct with defaults for every field
    command_type: Any  # the tagged union of commands (a typing Union of Structs)
    event_type: Any  # the tagged union of events
    bots: dict[str, Bot]  # game-specific bots by name ("greedy"); "random" is generic

    def validate_options(self, options: Options, seats: int) -> None:
        """Raise RuleError("invalid_options.<what>", ...) when the combination is illegal."""

    def initial(self, options: Options, seats: int) -> State:
        """The empty state before the setup events are applied."""

    def setup(self, options: Options, seats: int, rng: random.Random) -> list[Any]:
        """Opening events (shuffles, first player, hands), every random outcome inside them."""

    def decide(self, state: State, seat: int, command: Any, rng: random.Random) -> list[Any]:
        """Events the command causes, including automatic follow-ups, or raise RuleError.

        Never raises anything but RuleError for any well-typed command from any seat.
        """

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event and return the new state. May mutate `state` in place (replay
        speed); callers that keep a state `clone` it first. `decide` never mutates its state
        (it clones before computing follow-ups)."""

    def clone(self, state: State) -> State:
        """An independent deep copy (`deep_clone` unless the game has something faster)."""

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        """Every command `decide` accepts from `seat` now, and nothing else."""

    def awaiting(self, state: State) -> list[int]:
        """Seats whose decision the game waits for (several for simultaneous choices)."""

    def view(self, state: State, seat: int | None) -> msgspec.Struct:
        """What `seat` (or a spectator, None) may see. Once `result(state)` is not None the
        game is over and the view shows everything."""

    def redact(self, event: Any, seat: int | None) -> Any:
        """The event as `seat` may see it while the game runs (hidden fields blanked).
        Return the event itself when it holds nothing hidden."""

    def result(self, state: State) -> Result | None:
        """Final scores and ranks once the game is over, else None."""

    def describe(self, event: Any, seat: int | None) -> str:
        """One readable English line for the event as `seat` (None: a spectator) may see it
        while the game runs: never tells what `redact(event, seat)` hides."""

    def render(self, view: Any) -> str:
        """The web viewer's board: a view as the API returns it (JSON builtins) in, an HTML
        fragment out, every text escaped. Pure; shows only what the view holds."""


def deep_clone(state: State) -> State:
    """Deep copy through pickle: the fastest generic copy of plain Struct/list/dict trees."""
    return pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))  # type: ignore[no-any-return]


class Bot(Protocol):
    def __call__(self, game: Game[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
        """Choose one of `game.legal_commands(state, seat)`."""


def random_bot(game: Game[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """The generic bot: uniformly among the legal commands (works for every game)."""
    return rng.choice(game.legal_commands(state, seat))

"""The game contract every package under `domain/` satisfies (docs/game-contract.md).

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
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

import msgspec

State = TypeVar("State")
Options = TypeVar("Options", bound=msgspec.Struct)


class RuleError(Exception):
    """A command the rules refuse. `code` is stable and machine-readable.

    Codes start with `illegal_move.` for moves (`illegal_move.not_your_turn`,
    `illegal_move.wrong_phase`, `illegal_move.cannot_afford`, ...) and `invalid_options.` for
    game options. The API answers them with 422 and changes nothing.
    """

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field  # the refused value's path in the request (`options.rounds`)

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

    scores: list[int]  # each seat's final score, in seat order (all 0 when a forfeit ended it)
    # Each seat's place, in seat order: 1 for the winner(s), tied seats sharing one (1, 1, 3);
    # seats that forfeited rank after those that did not.
    ranks: list[int]
    # Each seat's value compared after the score (a number, or a list), in seat order; empty
    # when the game has none.
    tiebreak: list[Any] = []
    # The game's breakdowns (VP by source, ...); `forfeited` (seat -> "resigned" |
    # "timed_out" | "withdrawn") once a seat forfeited, `ended_by: "forfeit"` when a forfeit
    # ended the game.
    details: dict[str, Any] = {}

    @property
    def winners(self) -> list[int]:
        return [s for s, r in enumerate(self.ranks) if r == 1]


def rank(keys: Sequence[Any]) -> list[int]:
    """Competition ranking (1, 1, 3, ...) of seats by descending key (score, tie-break...)."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class Evaluation(NamedTuple):
    """What a game offers the search (domain/search.py) to stop its rollouts short of the
    end: `estimate(state)`, each seat's expected final score, and the `horizon` its `mcts`
    bot uses by default (the moves a rollout plays before the estimate). `settled(legal)`
    tells the decisions whose worth shows only beyond any affordable horizon (a draft whose
    cards act a whole turn later): there the prior's choice stands, unsearched.
    `candidates(state, seat, legal)` bounds the moves the tree tries besides its policy's
    (None: all). `playouts` is the game's default budget where the bots' default is too
    small to beat greedy."""

    estimate: Callable[[Any], list[float]]
    horizon: int
    settled: Callable[[list[Any]], bool] | None = None
    candidates: Callable[[Any, int, Sequence[Any]], list[Any]] | None = None
    playouts: int | None = None


class Game(Protocol[State, Options]):
    """What the registry holds for one game. docs/game-contract.md says what each call means.

    Its optional capabilities are declared, not probed: every game sets each attribute that
    CAPABILITIES names (None or False where it has none), and callers read it as it is.
    """

    name: str  # registry name, e.g. "puerto-rico"
    title: str
    min_players: int
    max_players: int
    options_type: type[Options]  # Struct with defaults for every field
    command_type: Any  # the tagged union of commands (a typing Union of Structs)
    event_type: Any  # the tagged union of events
    bots: dict[str, Bot]  # game-specific bots by name ("greedy"); "random", "mcts" are generic
    # The optional capabilities (CAPABILITIES), for the search (`mcts`, domain/search.py):
    can_sample_hidden: bool  # `sample_hidden` works (the search needs it; False: no `mcts`)
    evaluation: Evaluation | None  # its estimate of a game not over (None: play rollouts out)
    rollout_bot: Bot | None  # its rollout policy, a faster greedy (None: the `greedy` bot)

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

    def decide_evolve(
        self, state: State, seat: int, command: Any, rng: random.Random
    ) -> tuple[list[Any], State]:
        """`decide`, and the state after its events: the copy `decide` already evolved while
        it computed the follow-ups, handed back instead of applying every event again. Same
        events, same draws from `rng`; `state` is left as it was, but the new state may share
        with it the parts the command left alone, so evolve at most one of the two in place
        (or `clone` first)."""

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event and return the new state. May mutate `state` in place (replay
        speed); callers that keep a state `clone` it first. `decide` never mutates its state
        (it clones before computing follow-ups)."""

    def clone(self, state: State) -> State:
        """An independent deep copy (`deep_clone` unless the game has something faster)."""

    def legal_commands(self, state: State, seat: int) -> Sequence[Any]:
        """Every command `decide` accepts from `seat` now, and nothing else. A sequence, not
        always a list: a game may list a huge set lazily (Puerto Rico's mayor layouts)."""

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

    def sample_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        """Only where `can_sample_hidden` (every hosted game; the tests' tiny game has none).
        A new, independent state that `seat` cannot tell from `state`: the same
        `view(seat)`, with everything that view hides (stack orders, other seats' secret picks
        and commitments, face-down tiles) re-drawn from `rng`, consistently with what the view
        shows. It depends on `state` only through `view(state, seat)` (and `rng`), so a bot
        that plans on it decides from the seat's information. Legal for `decide`/`evolve`."""

    def state_from_view(self, view: Any, seat: int, rng: random.Random) -> State:
        """A full state built from `view` alone (`view(state, seat)` as the API serves it,
        decoded into the game's view type): `view(result, seat)` equals `view`, the seat's
        legal commands are those of any state it was shown in, and everything the view hides
        is drawn from `rng` as `sample_hidden` draws it. What a client plans on (`tabletop
        bot`); a new state, legal for `decide`/`evolve`."""

    def describe(self, event: Any, seat: int | None) -> str:
        """One readable English line for the event as `seat` (None: a spectator) may see it
        while the game runs: never tells what `redact(event, seat)` hides."""

    def render(self, view: Any) -> str:
        """The web viewer's board: a view as the API returns it (JSON builtins) in, an HTML
        fragment out, every text escaped. Pure; shows only what the view holds."""


CAPABILITIES = ("can_sample_hidden", "evaluation", "rollout_bot")
"""The optional capabilities a game declares (registry.register refuses a game without)."""


def decide_then_evolve(
    game: Game[State, Any], state: State, seat: int, command: Any, rng: random.Random
) -> tuple[list[Any], State]:
    """`decide_evolve` for a game with nothing faster: `decide`, then its events applied to
    a clone."""
    events = game.decide(state, seat, command, rng)
    after = game.clone(state)
    for event in events:
        after = game.evolve(after, event)
    return events, after


def deep_clone(state: State) -> State:
    """Deep copy through pickle: the fastest generic copy of plain Struct/list/dict trees."""
    return pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))  # type: ignore[no-any-return]


class SeatInfo:
    """What a bot may know when its seat decides: never the true state.

    `view` is `game.view(state, seat)`, `legal` the seat's legal commands, and
    `sample(rng)` a full state for simulation in which everything the seat cannot see has
    been re-drawn (`game.sample_hidden`): the determinization of information-set search.
    Built from the true state by `SeatInfo.of`; the true state itself is not reachable from
    it (it lives only inside the closure that `sample` calls). A client, which holds only
    the view, builds it with `SeatInfo.from_view` (`game.state_from_view`).
    """

    __slots__ = ("_legal", "_sample", "_view", "game", "seat")

    def __init__(
        self,
        game: Game[Any, Any],
        seat: int,
        legal: Sequence[Any],
        view: Callable[[], msgspec.Struct],
        sample: Callable[[random.Random], Any],
    ) -> None:
        self.game = game
        self.seat = seat
        self._legal = legal
        self._view = view
        self._sample = sample

    @property
    def legal(self) -> list[Any]:
        """Every command the seat may send now, which the bot must not mutate. A sequence
        (`legal_commands`), typed as a list until every bot accepts a `Sequence`."""
        return self._legal  # type: ignore[return-value]

    @property
    def view(self) -> msgspec.Struct:
        return self._view()

    def sample(self, rng: random.Random) -> Any:
        """A full state consistent with the seat's view, hidden parts re-drawn from `rng`.
        The bot may read it but must not mutate it (clone it first, as `decide` does)."""
        return self._sample(rng)

    @classmethod
    def of(cls, game: Game[Any, Any], state: Any, seat: int) -> SeatInfo:
        """The information of `seat` in the true `state` (what the runners hand their bots)."""
        return cls(
            game,
            seat,
            game.legal_commands(state, seat),
            lambda: game.view(state, seat),
            lambda rng: game.sample_hidden(state, seat, rng),
        )

    @classmethod
    def from_view(cls, game: Game[Any, Any], view: Any, seat: int) -> SeatInfo:
        """The information of `seat` as a client holds it: its view alone (no state at
        all). Its legal commands are read off a state drawn from the view with a fixed
        generator: they never depend on what the view hides."""
        legal = game.legal_commands(game.state_from_view(view, seat, random.Random(0)), seat)
        return cls(
            game, seat, legal, lambda: view, lambda rng: game.state_from_view(view, seat, rng)
        )

    @classmethod
    def within(cls, game: Game[Any, Any], state: Any, seat: int) -> SeatInfo:
        """Inside a simulation: `state` is already a determinization drawn for the searching
        seat (it holds no true hidden data), so its other seats may plan on it as it is."""
        return cls(
            game,
            seat,
            game.legal_commands(state, seat),
            lambda: game.view(state, seat),
            lambda rng: state,
        )


class Bot(Protocol):
    def __call__(self, game: Game[Any, Any], info: SeatInfo, rng: random.Random) -> Any:
        """Choose one of `info.legal`, from the seat's information only. All its randomness
        comes from `rng` (the runner derives it from the seed and the version)."""


def random_bot(game: Game[Any, Any], info: SeatInfo, rng: random.Random) -> Any:
    """The generic bot: uniformly among the legal commands (works for every game)."""
    return rng.choice(info.legal)

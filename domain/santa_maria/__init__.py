"""Santa Maria (Aporta Games, 2017) for 2 to 4 players.

Each player runs a colony on a 6x6 board of buildings, roads and blocked cells. The game
lasts three years. In a turn a player takes exactly one main action, usually placing a die
(white from the common pool, or a blue die of their own) on a row or column of the colony
to activate every unoccupied building on that line in order, producing wood, grain, sugar
and gems, trading, shipping goods to the new world, moving on the religion track to recruit
monks, or sending conquistadors for gold; or they expand the colony with a double or triple
tile, or retire. Free actions (selling, buying wood or grain, changing a die's pips with
coins, placing a road) come at any time in their turn. Gold pays for any resource. A player
who retires leaves the year, taking income from the ships in port; the year ends when all
have retired. Points come from ships, the conquistador track, the religion track's monks
and bishops, scholars and missions; after the third year the most points win. Hidden while
the game runs: the order of the ship and expansion stacks.

With `colony_boards` `draft` the seats choose their boards one at a time, the start player
last; `random` deals them.

`Rn` in messages and comments is ruling n of the Rulings on this game's page,
docs/games/santa-maria.md."""

from __future__ import annotations

from typing import Any

from domain.contract import Bot, Evaluation, Result
from domain.santa_maria import bots as _bots
from domain.santa_maria import rules, scoring
from domain.santa_maria import view as _view
from domain.santa_maria.commands import Command
from domain.santa_maria.events import Event
from domain.santa_maria.evolve import evolve as _evolve
from domain.santa_maria.hidden import sample_hidden as _sample_hidden
from domain.santa_maria.hidden import state_from_view as _state_from_view
from domain.santa_maria.state import SantaMariaOptions, SantaMariaState
from domain.santa_maria.state import clone as _clone


class SantaMariaGame:
    name = "santa-maria"
    title = "Santa Maria"
    min_players = 2
    max_players = 4
    options_type = SantaMariaOptions
    command_type: Any = Command
    event_type: Any = Event
    can_sample_hidden = True

    def __init__(self) -> None:
        self.bots: dict[str, Bot] = {"greedy": _bots.greedy}
        self.rollout_bot: Bot | None = _bots.rollout  # the search's rollout policy (bots.py)
        self.evaluation: Evaluation | None = _bots.EVALUATION  # its estimate of a game not over

    def validate_options(self, options: Any, seats: int) -> None:
        rules.validate_options(options, seats)

    def initial(self, options: Any, seats: int) -> SantaMariaState:
        return rules.initial(options, seats)

    def setup(self, options: Any, seats: int, rng: Any) -> list[Any]:
        return rules.setup(options, seats, rng)

    def decide(self, state: SantaMariaState, seat: int, command: Any, rng: Any) -> list[Any]:
        return rules.decide(state, seat, command, rng)

    def decide_evolve(
        self, state: SantaMariaState, seat: int, command: Any, rng: Any
    ) -> tuple[list[Any], SantaMariaState]:
        return rules.decide_evolve(state, seat, command, rng)

    def evolve(self, state: SantaMariaState, event: Any) -> SantaMariaState:
        return _evolve(state, event)

    def clone(self, state: SantaMariaState) -> SantaMariaState:
        return _clone(state)

    def legal_commands(self, state: SantaMariaState, seat: int) -> list[Any]:
        return rules.legal_commands(state, seat)

    def awaiting(self, state: SantaMariaState) -> list[int]:
        return rules.awaiting(state)

    def sample_hidden(self, state: SantaMariaState, seat: int, rng: Any) -> SantaMariaState:
        return _sample_hidden(state, seat, rng)

    def state_from_view(self, view: Any, seat: int, rng: Any) -> SantaMariaState:
        return _state_from_view(view, seat, rng)

    def view(self, state: SantaMariaState, seat: int | None) -> Any:
        return _view.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return _view.redact(event, seat)

    def result(self, state: SantaMariaState) -> Result | None:
        return scoring.result(state)

    # The web viewer (describe.py: a line per event; render.py: the board from a view).
    def describe(self, event: Any, seat: int | None) -> str:
        from domain.santa_maria.describe import describe

        return describe(event, seat)

    def render(self, view: Any) -> str:
        from domain.santa_maria.render import render

        return render(view)


GAME = SantaMariaGame()

__all__ = ["GAME", "SantaMariaGame"]

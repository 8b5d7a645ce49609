"""Plus Ultra (Meridiano 6, 2016) for 2 to 4 players.

Each player is a young noble at the court of Charles I, earning glory points (GP). Each of
the 7 turns, the players draft characters (the admiral, the cardinal, the merchant, the
constable, the conquistador and the others), two each, and use one in each of the turn's
two rounds, in the order of the peer track; each character has two actions, and the
common actions printed on the board (paid for in ducats, or with a bull) add to them. GP
come from the Church (rose windows, donations), the Market and the New World (exploring,
goods, natives and colonies), the European wars (tercios), sea trade, estates and
Magellan's voyage. After turn 7 and the final scoring the most GP win; a tie goes to the
player higher on the peer track. Hidden while the game runs: the New World and estate
stacks, the characters others have picked until they are revealed, and secret
commitments of tercios.

`common_actions_per_turn` `2` lets a player take a common action in each of its rounds
rather than one per turn; `initial_order` `seats` starts the peer track in seat order
rather than at random.

Comments and field notes name the steps of a turn: at its start S1 refill the New World,
S2 reactivate tercios, S3 roll the war level, S4 set a character aside, S5 draft (then the
reveal, the passives that act at it and peer income), S6 buy bulls, S7 place a blue colony;
then the war commitment and the two rounds; at its end E1 war, E2 natives, E3 shipping, E4
the Crown's hoarding (the set-aside character and the leftovers are revealed), E5 clean-up.

`Rn` in messages and comments is ruling n of the Rulings on this game's page,
docs/games/plus-ultra.md."""

from __future__ import annotations

import random
from typing import Any

from domain.contract import Bot, Evaluation, Result
from domain.plus_ultra import data as D
from domain.plus_ultra import rules
from domain.plus_ultra.commands import Command
from domain.plus_ultra.events import Event
from domain.plus_ultra.evolve import evolve as _evolve
from domain.plus_ultra.hidden import sample_hidden as _sample_hidden
from domain.plus_ultra.hidden import state_from_view as _state_from_view
from domain.plus_ultra.state import Options, State
from domain.plus_ultra.state import clone as _clone
from domain.plus_ultra.view import GameView
from domain.plus_ultra.view import redact as _redact
from domain.plus_ultra.view import view as _view


class PlusUltra:
    name = D.NAME
    title = D.TITLE
    min_players = D.MIN_PLAYERS
    max_players = D.MAX_PLAYERS
    options_type = Options
    command_type = Command
    event_type = Event
    can_sample_hidden = True

    def __init__(self) -> None:
        from domain.plus_ultra.bots import EVALUATION, greedy

        self.bots: dict[str, Any] = {"greedy": greedy}
        self.evaluation: Evaluation | None = EVALUATION  # the search's estimate of a game
        self.rollout_bot: Bot | None = None  # its rollouts play greedy

    def validate_options(self, options: Options, seats: int) -> None:
        rules.validate_options(options, seats)

    def initial(self, options: Options, seats: int) -> State:
        return rules.initial(options, seats)

    def setup(self, options: Options, seats: int, rng: random.Random) -> list[Any]:
        return rules.setup(options, seats, rng)

    def decide(self, state: State, seat: int, command: Any, rng: random.Random) -> list[Any]:
        return rules.decide(state, seat, command, rng)

    def decide_evolve(
        self, state: State, seat: int, command: Any, rng: random.Random
    ) -> tuple[list[Any], State]:
        return rules.decide_evolve(state, seat, command, rng)

    def evolve(self, state: State, event: Any) -> State:
        return _evolve(state, event)

    def clone(self, state: State) -> State:
        return _clone(state)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return rules.legal_commands(state, seat)

    def awaiting(self, state: State) -> list[int]:
        return rules.awaiting(state)

    def sample_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        return _sample_hidden(state, seat, rng)

    def state_from_view(self, view: GameView, seat: int, rng: random.Random) -> State:
        return _state_from_view(view, seat, rng)

    def view(self, state: State, seat: int | None) -> GameView:
        return _view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return _redact(event, seat)

    def result(self, state: State) -> Result | None:
        f = state.final
        if f is None:
            return None
        return Result(
            scores=list(f["scores"]),
            ranks=list(f["ranks"]),
            tiebreak=[-p for p in f["positions"]],
            details=f["details"],
        )

    # The web viewer (describe.py: a line per event; render.py: the board from a view).
    def describe(self, event: Any, seat: int | None) -> str:
        from domain.plus_ultra.describe import describe

        return describe(event, seat)

    def render(self, view: Any) -> str:
        from domain.plus_ultra.render import render

        return render(view)


GAME = PlusUltra()

__all__ = ["GAME", "PlusUltra"]

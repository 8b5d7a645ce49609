"""Santa Maria (Aporta Games, 2017) for 2-4 players."""

from __future__ import annotations

from typing import Any

from domain.contract import Bot, Result
from domain.santa_maria import bots as _bots
from domain.santa_maria import rules, scoring
from domain.santa_maria import view as _view
from domain.santa_maria.commands import Command
from domain.santa_maria.events import Event
from domain.santa_maria.evolve import evolve as _evolve
from domain.santa_maria.hidden import sample_hidden as _sample_hidden
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

    def __init__(self) -> None:
        self.bots: dict[str, Bot] = {"greedy": _bots.greedy}
        self.rollout_bot: Bot = _bots.rollout  # the search's rollout policy (domain/bots.py)
        self.evaluation = _bots.EVALUATION  # the search's estimate of an unfinished game

    def validate_options(self, options: Any, seats: int) -> None:
        rules.validate_options(options, seats)

    def initial(self, options: Any, seats: int) -> SantaMariaState:
        return rules.initial(options, seats)

    def setup(self, options: Any, seats: int, rng: Any) -> list[Any]:
        return rules.setup(options, seats, rng)

    def decide(self, state: SantaMariaState, seat: int, command: Any, rng: Any) -> list[Any]:
        return rules.decide(state, seat, command, rng)

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

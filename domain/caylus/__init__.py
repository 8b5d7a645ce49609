"""Caylus (William Attia, Ystari 2005) for 2 to 5 players: the base game, its 2-player rules,
the simplified-favours variant and the optional Jeweller.

Players are master builders in the village of Caylus, building a castle for the king. Each
turn they pay deniers to place workers, one at a time in turn order, on the road's
buildings (to produce cubes of food, wood, stone, cloth and gold, or to build), on the
special spaces (the gate, the trading post, the merchants' guild, the joust field, the
stables to change the turn order, the inn to place more cheaply) and in the castle. Passing
earns a denier to the first to pass. The buildings are then activated in road order as far
as the provost, whom players may pay to move beforehand (each turn it starts again at the
bailiff). Batches delivered to the castle and the buildings built score prestige points and
royal favours (points, deniers, cubes, or buildings at a discount); at the end of each
castle section, players who have not contributed lose points. The bailiff advances each
turn; the game ends once the towers are scored, and the most prestige points win, cubes
and deniers converting to points at the end. Nothing is hidden: views show everything.

`favours` `simplified` replaces the favour table by 3 prestige points each; `jeweller` adds
the Jeweller; `lawyer_prestige` sets the lawyer's points (3 or 4).

Comments and rulings number the phases of a turn: 1 income, 2 placing workers, 3 the special
buildings, 4 moving the provost, 5 the road buildings, 6 the castle, 7 the end of the turn
(the bailiff, then the scoring of a castle section).

`Rn` in messages and comments is ruling n of the Rulings on this game's page,
docs/games/caylus.md."""

from __future__ import annotations

import random
from typing import Any

from domain.caylus import data, rules
from domain.caylus.bots import BOTS, EVALUATION
from domain.caylus.commands import Command
from domain.caylus.events import Event
from domain.caylus.evolve import evolve as _evolve
from domain.caylus.hidden import sample_hidden as _sample_hidden
from domain.caylus.hidden import state_from_view as _state_from_view
from domain.caylus.state import CaylusOptions, CaylusState, initial_state
from domain.caylus.view import CaylusView
from domain.caylus.view import redact as _redact
from domain.caylus.view import view as _view
from domain.contract import Bot, Evaluation, Result, RuleError, rank


class Caylus:
    name = "caylus"
    title = "Caylus"
    min_players = 2
    max_players = 5
    options_type = CaylusOptions
    command_type = Command
    event_type = Event
    bots = BOTS
    can_sample_hidden = True
    evaluation: Evaluation | None = EVALUATION  # the search's estimate of an unfinished game
    rollout_bot: Bot | None = None  # its rollouts play greedy

    def validate_options(self, options: CaylusOptions, seats: int) -> None:
        if not isinstance(seats, int) or not self.min_players <= seats <= self.max_players:
            raise RuleError("invalid_options.seats", "Caylus is played by 2 to 5 players")
        if options.favours not in data.FAVOUR_MODES:
            raise RuleError("invalid_options.favours", "favours is 'full' or 'simplified'")
        if not isinstance(options.jeweller, bool):
            raise RuleError("invalid_options.jeweller", "jeweller is true or false")
        prestige = options.lawyer_prestige
        if prestige not in data.LAWYER_PRESTIGE or isinstance(prestige, bool):
            raise RuleError("invalid_options.lawyer_prestige", "lawyer_prestige is 3 or 4")

    def initial(self, options: CaylusOptions, seats: int) -> CaylusState:
        return initial_state(options, seats)

    def setup(self, options: CaylusOptions, seats: int, rng: random.Random) -> list[Any]:
        self.validate_options(options, seats)
        return rules.setup(options, seats, rng)

    def decide(self, state: CaylusState, seat: int, command: Any, rng: random.Random) -> list[Any]:
        return rules.decide(state, seat, command)

    def decide_evolve(
        self, state: CaylusState, seat: int, command: Any, rng: random.Random
    ) -> tuple[list[Any], CaylusState]:
        return rules.decide_evolve(state, seat, command)

    def evolve(self, state: CaylusState, event: Any) -> CaylusState:
        return _evolve(state, event)

    def clone(self, state: CaylusState) -> CaylusState:
        return state.copy()

    def legal_commands(self, state: CaylusState, seat: int) -> list[Any]:
        if state.phase in (0, 8):
            return []
        dec = rules.decision(state)
        if dec is None or dec[0] != seat:
            return []
        return rules.legal(state, seat, dec[1])

    def awaiting(self, state: CaylusState) -> list[int]:
        if state.phase in (0, 8):
            return []
        dec = rules.decision(state)
        return [dec[0]] if dec else []

    def sample_hidden(self, state: CaylusState, seat: int, rng: random.Random) -> CaylusState:
        return _sample_hidden(state, seat, rng)

    def state_from_view(self, view: CaylusView, seat: int, rng: random.Random) -> CaylusState:
        return _state_from_view(view, seat, rng)

    def view(self, state: CaylusState, seat: int | None) -> CaylusView:
        return _view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return _redact(event, seat)

    def result(self, state: CaylusState) -> Result | None:
        if state.phase != 8:
            return None
        scores = [p.pp for p in state.players]
        return Result(
            scores=scores,
            ranks=rank(scores),  # no tie-break, tied players share the win
            tiebreak=[0] * state.seats,
            details={
                "deniers": [p.deniers for p in state.players],
                "cubes": [p.cubes[:] for p in state.players],
                "castle_houses": [
                    [sec.count(p.seat) for sec in state.sections] for p in state.players
                ],
            },
        )

    # The web viewer (describe.py: a line per event; render.py: the board from a view).
    def describe(self, event: Any, seat: int | None) -> str:
        from domain.caylus.describe import describe

        return describe(event, seat)

    def render(self, view: Any) -> str:
        from domain.caylus.render import render

        return render(view)


GAME = Caylus()

__all__ = ["GAME", "Caylus", "CaylusOptions", "CaylusState"]

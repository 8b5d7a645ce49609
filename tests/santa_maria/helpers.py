"""Given/when helpers for scenario tests: a year-1 game with chosen boards and a clean slate."""

from __future__ import annotations

import random
from typing import Any

from domain.santa_maria import GAME, data
from domain.santa_maria.evolve import _set_board
from domain.santa_maria.state import SantaMariaOptions, SantaMariaState


def given(boards: list[str], *, year: int = 1, active: int = 0) -> SantaMariaState:
    """A game in `year` with seat i on boards[i], seat `active` to move before its main action,
    nothing occupied and every player holding nothing (tests set what the example states)."""
    opts = SantaMariaOptions()
    seats = len(boards)
    state = GAME.initial(opts, seats)
    for e in GAME.setup(opts, seats, random.Random(0)):
        state = GAME.evolve(state, e)
    for p, board in zip(state.players, boards, strict=False):
        _set_board(p, board)
        p.res = {k: 0 for k in data.RESOURCES}
        p.coins = 0
    state.year = year
    state.start_player = active
    state.active = active
    return state


def when(state: SantaMariaState, seat: int, command: Any, seed: int = 0) -> list[Any]:
    """Decide and apply; returns the events (the state is updated in place)."""
    events = GAME.decide(state, seat, command, random.Random(seed))
    for e in events:
        GAME.evolve(state, e)
    return events


def cell(row: int, col: int) -> int:
    return (row - 1) * 6 + (col - 1)

"""Given/when/then helpers: build a position by hand, then send commands through `decide`."""

from __future__ import annotations

import random
from typing import Any

from domain.caylus import GAME, CaylusOptions, data, rules
from domain.caylus import commands as cmd
from domain.caylus.evolve import evolve, put_worker
from domain.caylus.state import CaylusState

BLUE, GREEN, ORANGE, RED = 0, 1, 2, 3


def new_state(seats: int = 4, order: list[int] | None = None, **options: Any) -> CaylusState:
    """A fresh game right after set-up (turn 1, phase 2), with the turn order forced."""
    opts = CaylusOptions(**options)
    st = GAME.initial(opts, seats)
    for e in GAME.setup(opts, seats, random.Random(7)):
        evolve(st, e)
    if order is not None:
        st.order = list(order)
        st.actor = order[0]
    return st


def holding(
    st: CaylusState,
    seat: int,
    *,
    deniers: int | None = None,
    cubes: str | None = None,
    pp: int | None = None,
) -> None:
    p = st.players[seat]
    if deniers is not None:
        p.deniers = deniers
    if cubes is not None:
        p.cubes = data.cube_vector(cubes)
    if pp is not None:
        p.pp = pp


def worker(st: CaylusState, seat: int, target: int | str) -> None:
    put_worker(st, seat, target)
    st.players[seat].available -= 1


def tile(st: CaylusState, space: int, name: str, owner: int = -1) -> None:
    if name in st.stock:
        st.stock.remove(name)
    st.tiles[space] = name
    st.owners[space] = owner


def neutral_on(st: CaylusState, space: int, name: str) -> None:
    """Swap neutral tiles so that `name` lies on `space` (set-up order is random)."""
    where = st.tiles.index(name)
    st.tiles[where], st.tiles[space] = st.tiles[space], st.tiles[where]


def enter(st: CaylusState, phase: int, stage: int = 0) -> None:
    st.phase = phase
    st.stage = stage
    st.cursor = 0
    st.actor = -1
    if phase > 2 and not st.passing:
        st.passing = st.order[:]
    for p in st.players:
        p.rows_used = [False] * 4


def settle(st: CaylusState) -> list[Any]:
    out: list[Any] = []
    rules.advance(st, out)
    return out


def do(st: CaylusState, seat: int, command: Any) -> list[Any]:
    events = GAME.decide(st, seat, command, random.Random(0))
    for e in events:
        evolve(st, e)
    return events


def passive(st: CaylusState, seat: int) -> Any:
    """The do-nothing choice: pass, 0, none, decline, done; else the first option."""
    legal = GAME.legal_commands(st, seat)
    prefer = [
        cmd.Pass(),
        cmd.ProvostMove(delta=0),
        cmd.GuildMove(delta=0),
        cmd.GateMove(target="none"),
        cmd.Joust(accept=False),
        cmd.InnChoice(stay=True),
        cmd.Build(tile="none"),
        cmd.BuildPrestige(tile="none"),
        cmd.Transform(target_space=0),
        cmd.Sell(cube="none"),
        cmd.Buy(cubes=[]),
        cmd.Exchange(option="none"),
        cmd.CastleDone(),
    ]
    for c in prefer:
        if c in legal:
            return c
    return legal[0]


def run_until(st: CaylusState, done: Any, limit: int = 500) -> list[Any]:
    out: list[Any] = []
    for _ in range(limit):
        if done(st):
            return out
        seat = GAME.awaiting(st)[0]
        out += do(st, seat, passive(st, seat))
    raise AssertionError("condition never reached")


def of_type(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]

"""Caylus bots. `greedy`: placement by a hand-made value table (the benefit of a worker arrives
only in phases 3-6), every other decision by a one-step look-ahead on a material value (PP,
deniers, cubes, favour markers). `tabletop duel --game caylus` measures it against random bots."""

from __future__ import annotations

import random
from typing import Any

from domain.caylus import commands as cmd
from domain.caylus import data, rules
from domain.caylus.data import TILES
from domain.caylus.evolve import evolve
from domain.caylus.state import CaylusState
from domain.contract import Evaluation, SeatInfo

CUBE_VALUE = (1.0, 0.9, 1.1, 1.1, 2.6)  # F W S C G
DENIER = 0.45
MARKER = 0.6


def material(st: CaylusState, seat: int) -> float:
    p = st.players[seat]
    cubes = sum(v * n for v, n in zip(CUBE_VALUE, p.cubes, strict=False))
    return p.pp + DENIER * p.deniers + cubes + MARKER * sum(p.markers) + 0.5 * p.pending_favours


def _projected_cubes(st: CaylusState, seat: int) -> list[int]:
    """Cubes now plus the first output of this player's production workers in range."""
    cubes = st.players[seat].cubes[:]
    for s in range(1, min(st.provost + 2, 28) + 1):
        if st.workers[s] == seat and st.tiles[s] in data.PRODUCTION:
            out = max(data.PRODUCTION[st.tiles[s]].values(), key=sum)
            cubes = [a + b for a, b in zip(cubes, out, strict=False)]
    return cubes


def _batches(cubes: list[int]) -> int:
    cubes = cubes[:]
    n = 0
    while True:
        for b in data.BATCHES:
            need = data.cube_vector(b)
            if all(h >= k for h, k in zip(cubes, need, strict=False)):
                cubes = [h - k for h, k in zip(cubes, need, strict=False)]
                n += 1
                break
        else:
            return n


def _best_build(st: CaylusState, seat: int, tile: str) -> float:
    if tile == "mason":
        opts = [TILES[t].pp + 2.0 for t in rules.stone_builds(st, seat, False)]
        return max(opts, default=0.0) - 2.2
    if tile == "architect":
        opts = [TILES[t].pp for t, _ in rules.prestige_builds(st, seat)]
        return max(opts, default=0.0) - 6.0
    opts = [rules.tile_pp(st, t) + 1.5 for t, _ in rules.wood_builds(st, seat, False)]
    return max(opts, default=0.0) - 2.0


def placement_value(st: CaylusState, seat: int, target: int | str) -> float:
    p = st.players[seat]
    value = 0.0
    if isinstance(target, int):
        tile = st.tiles[target]
        info = TILES[tile]
        if target <= st.provost:
            reach = 1.0
        elif target <= st.provost + 3:
            reach = 0.55
        else:
            reach = 0.2
        if info.kind == "production":
            out = data.PRODUCTION[tile]
            value = max(
                sum(v * n for v, n in zip(CUBE_VALUE, o, strict=False)) for o in out.values()
            )
            if p.cubes[data.F] == 0 and any(o[data.F] for o in out.values()):
                value += 0.8  # food makes castle batches
        elif info.kind == "market":
            if any(p.cubes[:4]):
                value = data.MARKET_GAIN[tile] * DENIER - 1.0
        elif info.kind == "peddler":
            value = 0.4 if p.deniers >= 4 else 0.0
        elif info.kind == "construction":
            value = _best_build(st, seat, tile)
        elif info.kind == "lawyer":
            value = 1.5 if p.cubes[data.C] and p.deniers >= 3 else 0.0
        elif info.kind == "exchange":
            if tile == "church":
                value = 1.5 if p.deniers >= 6 else 0.0
            elif tile == "tailor":
                value = 1.5 if p.cubes[data.C] >= 2 else 0.0
            elif tile == "bank":
                value = 1.0 if p.deniers >= 6 else 0.0
            elif tile == "jeweller":
                value = 2.0 if p.cubes[data.G] else 0.0
            elif tile == "alchemist":
                value = 1.0 if sum(p.cubes[:4]) >= 4 else 0.0
        value *= reach
        owner = st.owners[target]
        if owner >= 0 and owner != seat:
            value -= 0.3
    elif target == "castle":
        n = _batches(_projected_cubes(st, seat))
        room = rules.room(st)
        value = 4.5 * min(n, max(room, 0)) - 0.5 if n else -3.0
    elif target == "trading_post":
        value = 3 * DENIER
    elif target == "joust_field":
        value = 2.0 if p.cubes[data.C] and p.deniers >= 4 else -1.0
    elif target == "stables":
        value = 0.6 if st.order[0] != seat else -1.0
    elif target == "inn":
        value = 0.4 if st.inn_right != seat else -1.0
    elif target == "merchants_guild":
        value = 0.2
    elif target == "gate":
        value = 0.3
    return value - DENIER * rules.placement_cost(st, seat, target)


def _provost_value(st: CaylusState, seat: int, delta: int) -> float:
    before, after = st.provost, st.provost + delta
    value = -DENIER * abs(delta) * 1.5
    lo, hi = min(before, after) + 1, max(before, after)
    for s in range(lo, hi + 1):
        w = st.workers[s]
        if w < 0:
            continue
        sign = 1 if delta > 0 else -1  # moving forward brings space s into range
        if w == seat:
            value += 2.0 * sign
        else:
            value -= 0.4 * sign
    return value


def greedy(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    legal, seat = info.legal, info.seat
    if len(legal) == 1:
        return legal[0]
    state: CaylusState = info.sample(rng)  # nothing is hidden in Caylus: a copy
    dec = rules.decision(state)
    kind = dec[1] if dec else ""
    best: list[Any] = []
    best_value = float("-inf")
    if kind == "place":
        for c in legal:
            v = 0.15 if isinstance(c, cmd.Pass) else placement_value(state, seat, c.target)
            if v > best_value + 1e-9:
                best, best_value = [c], v
            elif abs(v - best_value) <= 1e-9:
                best.append(c)
        return rng.choice(best)
    if kind in ("provost", "guild"):
        for c in legal:
            v = _provost_value(state, seat, c.delta)
            if kind == "guild":
                v += DENIER * 1.5 * abs(c.delta)  # free move
            if v > best_value + 1e-9:
                best, best_value = [c], v
            elif abs(v - best_value) <= 1e-9:
                best.append(c)
        return rng.choice(best)
    if kind == "gate":
        for c in legal:
            v = 0.0 if c.target == "none" else placement_value(state, seat, c.target)
            if c.target != "none":
                v += DENIER * rules.placement_cost(state, seat, c.target)  # free
            if v > best_value + 1e-9:
                best, best_value = [c], v
            elif abs(v - best_value) <= 1e-9:
                best.append(c)
        return rng.choice(best)
    base = material(state, seat)
    for c in legal:
        after = state.copy()
        try:
            events = rules.decide(after, seat, c)
        except Exception:  # pragma: no cover - listed commands are accepted
            continue
        for e in events:
            evolve(after, e)
        v = material(after, seat) - base
        if v > best_value + 1e-9:
            best, best_value = [c], v
        elif abs(v - best_value) <= 1e-9:
            best.append(c)
    return rng.choice(best) if best else rng.choice(legal)


BOTS: dict[str, Any] = {"greedy": greedy}


def evaluate(st: CaylusState) -> list[float]:
    """Each seat's `material`: the search's estimate of a position it stops short of the end."""
    return [material(st, seat) for seat in range(len(st.players))]


EVALUATION = Evaluation(evaluate, horizon=40)

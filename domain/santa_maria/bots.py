"""Bots for Santa Maria: `greedy` (one-ply lookahead on a hand-tuned value); `tabletop duel
--game santa-maria` measures it against random bots. It plans on `info.sample`, where the
hidden stack orders (the dock refills) are re-shuffled, never on the true state. The `mcts`
search scores the positions it stops at with `estimate.py`, a model fitted to greedy's games,
and tries greedy's candidate moves only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from domain.contract import Evaluation, SeatInfo
from domain.santa_maria import commands as cmd
from domain.santa_maria import data
from domain.santa_maria.estimate import estimate
from domain.santa_maria.evolve import evolve
from domain.santa_maria.rules import NON_BUILDINGS, decide, decision_answers
from domain.santa_maria.scoring import breakdown
from domain.santa_maria.state import SantaMariaState, clone

RESOURCE_VALUE = {"wood": 0.85, "grain": 0.8, "sugar": 1.4, "gem": 1.4, "gold": 1.6}
FREE_ACTIONS = (cmd.Sell, cmd.Buy, cmd.Alchemy)


def value(s: SantaMariaState, seat: int) -> float:
    """How good the position is for `seat`: the score it would have now plus the worth of what
    will still turn into points."""
    p = s.players[seat]
    total = float(breakdown(s, p)["total"])
    if s.phase == "over":
        return total + 0.01 * p.coins
    years_left = data.YEARS - s.year + (0 if p.retired else 0.6)
    late = years_left <= 0.6
    coin_value = 0.05 if late else 0.33
    total += coin_value * p.coins
    for kind, n in p.res.items():
        total += (0.3 if late else RESOURCE_VALUE[kind]) * n
    buildings = sum(1 for c in p.cells if c not in NON_BUILDINGS)
    total += 0.45 * buildings * years_left
    total += 1.5 * len(p.blue) * years_left
    total += 0.35 * p.religion + 0.45 * p.conquistador
    # Standing on the conquistador track before this year's scoring.
    if p.conq_acted:
        total += 1.0
    return total


def _apply(s: SantaMariaState, seat: int, c: Any, rng: random.Random) -> SantaMariaState:
    new = clone(s)
    for e in decide(s, seat, c, rng):
        evolve(new, e)
    return new


def _settle(s: SantaMariaState, seat: int, rng: random.Random, depth: int = 3) -> float:
    """Value after answering pending decisions greedily (a short lookahead)."""
    while s.pending is not None and s.active == seat and depth > 0:
        answers = decision_answers(s, s.players[seat])
        if len(answers) > 12:
            answers = answers[:12]
        best = max(answers, key=lambda a: value(_apply(s, seat, a, rng), seat))
        s = _apply(s, seat, best, rng)
        depth -= 1
    return value(s, seat)


def _expand_candidates(
    s: SantaMariaState, seat: int, expands: list[cmd.Expand], per_tile: int
) -> list[Any]:
    """Keep, per tile, the few placements whose squares sit in the busiest lines."""
    built = [c not in NON_BUILDINGS for c in s.players[seat].cells]
    rows = [sum(built[r * 6 : r * 6 + 6]) for r in range(6)]
    cols = [sum(built[c::6]) for c in range(6)]
    by_tile: dict[str, list[tuple[int, int, cmd.Expand]]] = {}
    for c in expands:
        w = sum(rows[r - 1] + cols[col - 1] for r, col in c.cells)
        by_tile.setdefault(c.tile, []).append((-len(c.gold_for), w, c))
    out: list[Any] = []
    for options in by_tile.values():
        options.sort(key=lambda t: (t[0], t[1]), reverse=True)
        out.extend(c for _, _, c in options[:per_tile])
    return out


def _shortlist(s: SantaMariaState, seat: int, legal: Sequence[Any], per_tile: int) -> list[Any]:
    """`greedy`'s candidates: every move but the placements, then the best placements."""
    expands = [c for c in legal if isinstance(c, cmd.Expand)]
    others = [c for c in legal if not isinstance(c, cmd.Expand)]
    return others + _expand_candidates(s, seat, expands, per_tile)


ROLLOUT_SAMPLE = 8  # candidates the rollout policy tries at most


def greedy(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    return _greedy(game, info, rng, 3, 2)


def rollout(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    """The search's rollout policy: `greedy` settling one pending decision ahead instead of
    three, trying one placement per tile and a random sample of the candidates (about three
    times faster; settling nothing ahead made it play a game out at half greedy's score)."""
    return _greedy(game, info, rng, 1, 1, ROLLOUT_SAMPLE)


def _greedy(
    game: Any,
    info: SeatInfo,
    rng: random.Random,
    depth: int,
    per_tile: int,
    sample: int | None = None,
) -> Any:
    legal, seat = info.legal, info.seat
    if len(legal) == 1:
        return legal[0]
    state = info.sample(rng)  # the ship and expansion stacks re-shuffled: no peeking
    if isinstance(legal[0], cmd.ChooseColony):
        return rng.choice(legal)
    candidates = _shortlist(state, seat, legal, per_tile)
    if sample is not None and len(candidates) > sample:
        candidates = rng.sample(candidates, sample)
    base = _settle(state, seat, rng, 0)
    best, best_value = None, float("-inf")
    sim_rng = random.Random(rng.random())
    for c in candidates:
        v = _settle(_apply(state, seat, c, sim_rng), seat, sim_rng, depth)
        if isinstance(c, FREE_ACTIONS):
            v -= 0.05  # free actions only for a real gain (no cycles)
            if v <= base:
                continue
        v += rng.random() * 1e-6
        if v > best_value:
            best, best_value = c, v
    return best if best is not None else rng.choice(legal)


def candidates(s: SantaMariaState, seat: int, legal: Sequence[Any]) -> list[Any]:
    """The moves the search tries besides its policy's: `greedy`'s candidates without the
    free actions, whose worth is in the main action they prepare (searched on their own, a
    sale wins on noise alone)."""
    return [c for c in _shortlist(s, seat, legal, 2) if not isinstance(c, FREE_ACTIONS)]


EVALUATION = Evaluation(estimate, horizon=4, candidates=candidates)

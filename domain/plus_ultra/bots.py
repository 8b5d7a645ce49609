"""Bots for Plus Ultra: `greedy` (one-ply look-ahead on an estimate of the final score);
`tabletop duel --game plus-ultra` measures it against random bots.

The greedy bot never sees hidden data: it plans on `info.sample`, a state whose hidden parts
(stack orders, face-down tiles, other seats' picks, estates and commitments) are re-drawn; it
values an exploration by its average outcome and draft picks from what the seat knows."""

from __future__ import annotations

import random
from typing import Any

from domain.contract import Evaluation, SeatInfo
from domain.plus_ultra import commands as C
from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.evolve import evolve
from domain.plus_ultra.rules import action_options, decide
from domain.plus_ultra.state import State, clone


def _progress(st: State) -> float:
    """0 at the start of the game, 1 at its end."""
    return min(1.0, max(0.0, (st.turn - 1 + (st.round - 1) * 0.5) / D.TURNS))


def estimate(st: State, seat: int) -> float:
    """A rough estimate of `seat`'s final score if the game went on from here."""
    p = st.players[seat]
    late = _progress(st)
    over = st.phase in ("over", "scoring") or (st.turn == D.TURNS and st.phase == "end_turn")
    v = float(p.gp)
    # colonies: houses and majorities
    for c in st.colonies:
        mine = c.houses.count(seat)
        v += mine
        if mine:
            best_other = max((c.houses.count(s) for s in range(st.n) if s != seat), default=0)
            if mine > best_other:
                v += D.MAJORITY_GP[c.size] * (1.0 if over else 0.8)
    # sea trade as if the game ended now, plus a little for each step
    if p.sea_trade >= 1:
        values = sorted({q.sea_trade for q in st.players if q.sea_trade >= 1}, reverse=True)
        v += D.SEA_TRADE_AWARDS[min(values.index(p.sea_trade), 2)] + 0.1 * p.sea_trade
    v += len(p.captured) ** 2
    v += sum(D.ESTATES[e][0] + (0.5 if D.ESTATES[e][1] else 0.0) for e in p.estates)
    if not st.magellan_complete:
        v += p.magellan * (1.0 + 1.5 * (1 - late))
    # convertible pieces: worth their conversion at the end, and more while they can be used
    pieces = p.ducats + p.active + p.tired + st.war.count(seat) + p.rose_up + p.rose_down + p.stock
    if over:
        v += pieces // D.CONVERSION_RATE - p.bulls
        return v
    v += pieces / D.CONVERSION_RATE
    use = 1 - late
    v += p.ducats * 0.3 * use + p.active * 0.35 * use + p.rose_up * 0.4 * use + p.stock * 0.6 * use
    v += p.bulls * (1.2 * use - 1.0 * late)
    v += st.war.count(seat) * (1.0 if len(st.war) >= st.war_level else 0.4)
    return v


def _explore_value(st: State) -> float:
    return 1.4  # about 2 GP for goods, a capture chance for natives, a colony to settle


def _value_after(st: State, seat: int, cmd: Any, rng: random.Random) -> float:
    if isinstance(cmd, (C.CharacterAction, C.BullCharacterAction)):
        ch = cmd.character if isinstance(cmd, C.CharacterAction) else st.step1_char
        if ch == "conquistador" and cmd.action == 1:
            # do not peek at the hidden tile: value the action by its average outcome
            after = clone(st)
            p = after.players[seat]
            if isinstance(cmd, C.BullCharacterAction):
                p.bulls -= 1
                after.bull_supply += 1
            return estimate(after, seat) + _explore_value(st)
    events = decide(st, seat, cmd, rng)
    after = clone(st)
    for ev in events:
        evolve(after, ev)
    return estimate(after, seat)


def _character_value(st: State, seat: int, character: str) -> float:
    """What the character could do for `seat` now (public information only)."""
    probe = clone(st)
    probe.phase = "rounds"
    probe.step1_char = None
    probe.pending = []
    probe.players[seat].characters = [character]
    probe.players[seat].used = []
    base = estimate(probe, seat)
    best = 0.0
    for action in (1, 2):
        for prm in action_options(probe, seat, character, action):
            if character == "conquistador" and action == 1:
                best = max(best, _explore_value(probe))
                continue
            trial = clone(probe)
            evolve(
                trial,
                E.CharacterActionTaken(seat=seat, character=character, action=action, params=prm),
            )
            if trial.pending:
                trial.pending = []
            best = max(best, estimate(trial, seat) - base)
    known = [q for s, q in enumerate(st.players) if s == seat or st.revealed]
    if character == "secretary_of_state" and "king" not in {c for q in known for c in q.characters}:
        best += 1.0
    if character == "king":
        best += 0.3
    return best


def _commit(st: State, seat: int, legal: list[Any]) -> Any:
    active = st.players[seat].active
    want = min(active, st.war_level)
    return max((c for c in legal if c.count <= want), key=lambda c: c.count)


def greedy(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    legal, seat = info.legal, info.seat
    if len(legal) == 1:
        return legal[0]
    state: State = info.sample(rng)  # hidden parts re-drawn: stacks, others' picks, estates
    first = legal[0]
    if isinstance(first, C.PickCharacter):
        return max(legal, key=lambda c: _character_value(state, seat, c.character))
    if isinstance(first, C.CommitTercios):
        return _commit(state, seat, legal)
    if isinstance(first, C.ReactivateTercios):
        return C.ReactivateTercios(accept=state.turn < D.TURNS)
    sim_rng = random.Random(rng.random())
    best, best_v = legal[0], float("-inf")
    for cmd in legal:
        v = _value_after(state, seat, cmd, random.Random(sim_rng.random()))
        if isinstance(cmd, C.EndRound):
            v -= 1e-6  # prefer doing something worthwhile over ending at once
        if v > best_v + 1e-9:
            best, best_v = cmd, v
    return best


def evaluate(st: State) -> list[float]:
    """Each seat's `estimate`: the search's estimate of a position it stops short of the end."""
    return [estimate(st, seat) for seat in range(st.n)]


def settled(legal: list[Any]) -> bool:
    """The draft and the war's commitments pay off a whole turn later, beyond the search's
    horizon: there `greedy`'s own rules decide."""
    return isinstance(legal[0], (C.PickCharacter, C.CommitTercios, C.ReactivateTercios))


EVALUATION = Evaluation(evaluate, horizon=8, settled=settled, playouts=64)  # 16: 34%, 64: 42%

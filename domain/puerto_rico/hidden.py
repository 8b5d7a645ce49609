"""Determinization for Puerto Rico: `sample_hidden` re-draws what a seat cannot see (R24).

Hidden while the game runs: the plantation stack order, the identity of every forest (its
owner's included: the view shows them to nobody), a drawn hacienda tile to all but its drawer
(one pool of unseen plantations), and the VP of the other players. The other players' VP
total is kept and dealt among them point by point at random. Pools are sorted before they are
shuffled, so the sample depends on the state only through what `view(state, seat)` shows
(and the VP total of the others, which is public while chips remain: the pool minus the
supply minus the seat's own VP).
"""

from __future__ import annotations

import random

from domain.puerto_rico.state import State


def sample_hidden(st: State, seat: int, rng: random.Random) -> State:
    s = st.copy()
    if s.over:
        return s
    hacienda = s.hacienda_tile is not None and seat != s.actor
    tiles = sorted(
        [*s.stack, *(t for p in s.players for t in p.forests)]
        + ([s.hacienda_tile] if hacienda and s.hacienda_tile is not None else [])
    )
    rng.shuffle(tiles)
    for p in s.players:
        p.forests = [tiles.pop() for _ in p.forests]
    if hacienda:
        s.hacienda_tile = tiles.pop()
    s.stack = tiles
    others = [i for i in range(s.n) if i != seat]
    total = sum(s.players[i].vp for i in others)
    for i in others:
        s.players[i].vp = 0
    for _ in range(total):
        s.players[others[rng.randrange(len(others))]].vp += 1
    return s

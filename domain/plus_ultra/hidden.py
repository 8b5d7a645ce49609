"""Determinization for Plus Ultra: `sample_hidden` re-draws what a seat cannot see.

Hidden from `seat` while the game runs: the New World stack order and the face-down
exploration tiles (one pool of unseen tiles), the estate stack, the unused estates and the
other seats' held estates (one pool of unseen estates), the other seats' character picks, the
cards still offered and the set-aside card until they are public, and the other seats'
tercio commitments until the reveal. Each pool is sorted before it is shuffled, so the sample
depends on the state only through what `view(state, seat)` shows.
"""

from __future__ import annotations

import random

from domain.plus_ultra.rules import awaiting
from domain.plus_ultra.state import State, clone


def sample_hidden(st: State, seat: int, rng: random.Random) -> State:
    s = clone(st)
    if s.phase == "over":
        return s
    # New World: the stack and the face-down exploration tiles
    down = [r for r, t in enumerate(s.exploration) if t is not None and not s.face_up[r]]
    tiles = sorted([*s.stack, *(t for r in down for t in [s.exploration[r]] if t is not None)])
    rng.shuffle(tiles)
    for r in down:
        s.exploration[r] = tiles.pop()
    s.stack = tiles
    # Estates: the stack, the unused ones and the other seats' held estates
    others = [q for i, q in enumerate(s.players) if i != seat]
    estates = sorted([*s.estate_stack, *s.estates_unused, *(e for q in others for e in q.estates)])
    rng.shuffle(estates)
    for q in others:
        q.estates = [estates.pop() for _ in q.estates]
    s.estate_stack = [estates.pop() for _ in s.estate_stack]
    s.estates_unused = estates
    # Characters: other seats' picks before the reveal, the offered cards unless the seat is
    # picking now, the set-aside card before the crown is hoarded
    hide_picks = not s.revealed
    hide_hand = not s.hoarded and not (s.phase == "draft" and seat in awaiting(st))
    hide_aside = not s.hoarded and s.set_aside is not None
    cards: list[str] = []
    if hide_picks:
        cards += [c for q in others for c in q.characters]
    if hide_hand:
        cards += s.hand
    if hide_aside and s.set_aside is not None:
        cards.append(s.set_aside)
    if cards:
        cards.sort()
        rng.shuffle(cards)
        if hide_picks:
            for q in others:
                q.characters = [cards.pop() for _ in q.characters]
        if hide_hand:
            s.hand = [cards.pop() for _ in s.hand]
        if hide_aside:
            s.set_aside = cards.pop()
        s.holder = {c: i for i, q in enumerate(s.players) for c in q.characters}
    # War: the other seats' secret commitments, each from what it could have committed
    if s.phase == "commit":
        for other in sorted(s.commitments):
            if other != seat:
                s.commitments[other] = rng.randint(0, s.players[other].active)
    return s

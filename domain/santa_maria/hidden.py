"""Determinization for Santa Maria: `sample_hidden` re-draws what a seat cannot see, and
`state_from_view` builds a state from a view alone.

Nobody holds private information; hidden are only the orders of the ship stack (the dock
refills) and of the two expansion stacks. Each is re-shuffled from its sorted contents (the
unseen tiles), so the sample depends on the state only through the view.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from domain.santa_maria import data
from domain.santa_maria.state import SantaMariaState, clone
from domain.santa_maria.view import SantaMariaView


def sample_hidden(st: SantaMariaState, seat: int, rng: random.Random) -> SantaMariaState:
    s = clone(st)
    if s.phase == "over":
        return s
    for stack in (s.ship_stack, s.double_stack, s.triple_stack):
        stack.sort()
        rng.shuffle(stack)
    return s


def state_from_view(v: SantaMariaView, seat: int, rng: random.Random) -> SantaMariaState:
    """The view shows the state's own fields under their names; the stacks are the tiles it
    shows nowhere (in stacks of its counts), in the order `sample_hidden` draws."""
    shown = {
        name: getattr(v, name)
        for name in SantaMariaState.__struct_fields__
        if getattr(v, name, None) is not None
    }
    s = clone(SantaMariaState(**shown))
    # Each move of a conquistador takes the next arrival number (R5): the last one is the top.
    s.conq_clock = max((p.conq_arrival + 1 for p in s.players), default=0)
    if v.ship_stack is None:  # the game runs: the stacks are what is seen nowhere
        seen = {*s.docks, *s.out_of_game, *(t for p in s.players for d in p.port for t in d)}
        seen.update(t for p in s.players for t in p.tile_on)
        seen.update(s.display_doubles + s.display_triples)
        s.ship_stack = _unseen(data.STANDARD_SHIPS, seen, v.ship_stack_count)
        s.double_stack = _unseen(data.DOUBLE_TILES, seen, v.double_stack_count)
        s.triple_stack = _unseen(data.TRIPLE_TILES, seen, v.triple_stack_count)
    return sample_hidden(s, seat, rng)


def _unseen(tiles: Iterable[str], seen: set[str], count: int) -> list[str]:
    unseen = [t for t in tiles if t not in seen]
    assert len(unseen) == count, f"{len(unseen)} unseen tiles for a stack of {count}"
    return unseen

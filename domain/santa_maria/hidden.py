"""Determinization for Santa Maria: `sample_hidden` re-draws what a seat cannot see.

Nobody holds private information; hidden are only the orders of the ship stack (the dock
refills) and of the two expansion stacks. Each is re-shuffled from its sorted contents (the
unseen tiles), so the sample depends on the state only through the view.
"""

from __future__ import annotations

import random

from domain.santa_maria.state import SantaMariaState, clone


def sample_hidden(st: SantaMariaState, seat: int, rng: random.Random) -> SantaMariaState:
    s = clone(st)
    if s.phase == "over":
        return s
    for stack in (s.ship_stack, s.double_stack, s.triple_stack):
        stack.sort()
        rng.shuffle(stack)
    return s

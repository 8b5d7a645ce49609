"""Determinization for Caylus: nothing is hidden, so `sample_hidden` is a copy. The
neutral buildings and turn order are drawn at setup and public from then on, and `decide`
draws nothing at random."""

from __future__ import annotations

import random

from domain.caylus.state import CaylusState


def sample_hidden(st: CaylusState, seat: int, rng: random.Random) -> CaylusState:
    return st.copy()

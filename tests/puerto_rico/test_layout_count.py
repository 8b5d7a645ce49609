"""The mayor's shortcut for a forced layout agrees with the counted layouts."""

from __future__ import annotations

from itertools import product

from domain.puerto_rico.rules import _single_layout, _ways


def test_a_single_layout_is_what_the_count_says() -> None:
    for n in range(5):
        for caps in product(range(1, 4), repeat=n):
            slots = [(f"slot{i}", c) for i, c in enumerate(caps)]
            for place in range(sum(caps) + 1):
                assert _single_layout(slots, place) == (_ways(slots, place)[0][place] == 1)

"""How many random games a property test plays, and with which seeds.

`make test` plays a sample (TABLETOP_GAMES, default 24 per configuration) from a fresh seed
each run; `make soak` sets TABLETOP_GAMES=2000. The base seed is printed on failure
(pytest shows it in the test id's assertion message) and can be pinned with TABLETOP_SEED.
A test module that draws from it imports `print_seed` too, so that any failure shows the
seed, even one without a message (a crash in the code under test, a `pytest.raises` that
did not raise).
"""

from __future__ import annotations

import hashlib
import os
import secrets

import pytest


def games_per_config(default: int = 24) -> int:
    return int(os.environ.get("TABLETOP_GAMES", default))


def base_seed() -> str:
    """Hex seed for this run: TABLETOP_SEED if set, else fresh (chosen once per process)."""
    global _BASE
    if _BASE is None:
        _BASE = os.environ.get("TABLETOP_SEED") or secrets.token_hex(8)
    return _BASE


_BASE: str | None = None


def game_seeds(label: str, count: int | None = None) -> list[bytes]:
    """`count` 32-byte seeds for one configuration, derived from the run's base seed."""
    n = games_per_config() if count is None else count
    root = base_seed()
    return [hashlib.sha256(f"{root}/{label}/{i}".encode()).digest() for i in range(n)]


def describe(label: str, index: int) -> str:
    return f"TABLETOP_SEED={base_seed()} config={label} game={index}"


@pytest.fixture(autouse=True)
def print_seed() -> None:
    """Autouse in every module that imports it: prints the run's base seed, which pytest
    shows with a failing test's captured output (and only then)."""
    print(f"TABLETOP_SEED={base_seed()} reproduces this test's random draws")

"""`decide_evolve` may hand back a state that shares parts with the state it was given (the
engine's working copies share what a command leaves alone). Neither the decision itself nor
any later move of the same game may change an earlier state: every state a random game
passes through still reads the same at the end of the game."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.contract import Game, random_bot
from domain.randomness import rng_for
from domain.registry import GAMES
from domain.simulate import play
from tests.conftest import all_games


def _configs() -> list[tuple[str, int]]:
    return [
        (name, n)
        for name in all_games()
        for n in range(GAMES[name].min_players, GAMES[name].max_players + 1)
    ]


@pytest.mark.parametrize(("name", "seats"), _configs())
def test_no_move_changes_an_earlier_state(name: str, seats: int) -> None:
    for index in range(2):
        _check_game(GAMES[name], seats, f"shares-safely/{name}/{seats}/{index}".encode())


def _check_game(game: Game[Any, Any], seats: int, seed: bytes) -> None:
    seen: list[tuple[Any, Any]] = []

    def on_decision(state: Any, seat: int, command: Any) -> None:
        before = msgspec.to_builtins(state)
        game.decide_evolve(state, seat, command, rng_for(seed, len(seen)))
        assert msgspec.to_builtins(state) == before, f"{seed!r}: decide changed its state"
        seen.append((state, before))

    play(game, game.options_type(), [random_bot] * seats, seed, on_decision=on_decision)
    for move, (state, before) in enumerate(seen):
        assert msgspec.to_builtins(state) == before, f"{seed!r}: move {move} changed later"

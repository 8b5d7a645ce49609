"""`sample_hidden`, the determinization every game provides for fair bots and the search:
on real positions of random games, for every seat (the one to move and the others)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.bots import searchable
from domain.contract import Game, random_bot
from domain.randomness import rng_for
from domain.registry import GAMES
from tests.conftest import all_games
from tests.support.sampling import (
    describe,
    game_seeds,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)
from tests.test_game_contract import option_sets, positions


def _b(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def _searchable() -> list[str]:
    return [name for name in all_games() if searchable(GAMES[name])]


def _play_on(game: Game[Any, Any], state: Any, seed: bytes, where: str) -> None:
    """Random play from `state` to the end: a sampled state is legal for decide/evolve."""
    for step in range(100_000):
        if game.result(state) is not None:
            return
        awaited = game.awaiting(state)
        assert awaited, f"{where}: no seat awaited but no result"
        seat = awaited[0]
        legal = game.legal_commands(state, seat)
        assert legal, f"{where}: seat {seat} awaited without a legal command"
        command = random.Random(seed + step.to_bytes(4, "big")).choice(legal)
        for event in game.decide(state, seat, command, rng_for(seed, step)):
            state = game.evolve(state, event)
    raise AssertionError(f"{where}: no end")


@pytest.mark.parametrize("name", _searchable())
def test_property_sample_hidden_keeps_the_view_and_redraws_only_hidden_parts(name: str) -> None:
    game: Game[Any, Any] = GAMES[name]
    count = max(3, games_per_config() // 6)
    redrawn = 0
    checked = 0
    for options in option_sets(name):
        label = f"sample-hidden/{name}/{_b(options)}"
        for index, seed in enumerate(game_seeds(label, count)):
            where = describe(label, index)
            seats = game.max_players if index % 2 == 0 else game.min_players
            draw = random.Random(seed)
            for k, (state, mover) in enumerate(positions(game, seats, seed, 0.06, options)):
                before = _b(state)
                seat = [mover, draw.randrange(seats)][k % 2]  # the seat to move, or another
                seen = _b(game.view(state, seat))
                stream = draw.getrandbits(64)
                sample = game.sample_hidden(state, seat, random.Random(stream))
                assert _b(state) == before, f"{where}: sample_hidden mutated the state"
                assert _b(game.view(sample, seat)) == seen, f"{where}: the view changed"
                assert game.awaiting(sample) == game.awaiting(state), where
                if seat == mover:  # what the seat may do does not depend on what it cannot see
                    assert game.legal_commands(sample, seat) == game.legal_commands(state, seat)
                # a function of the view: another state with the same view, the same stream
                other = game.sample_hidden(state, seat, random.Random(draw.getrandbits(64)))
                again = game.sample_hidden(other, seat, random.Random(stream))
                assert _b(again) == _b(sample), f"{where}: the sample depends on hidden data"
                # independent: mutating the sample leaves the state alone
                first = game.legal_commands(sample, mover)[0]
                for event in game.decide(sample, mover, first, rng_for(seed, 1)):
                    sample = game.evolve(sample, event)
                assert _b(state) == before, f"{where}: the sample shares data with the state"
                redrawn += _b(other) != before
                checked += 1
                if k % 5 == 0:
                    resampled = game.sample_hidden(state, seat, random.Random(stream))
                    _play_on(game, resampled, seed, where)
    assert checked > 10
    if name != "caylus":  # Caylus hides nothing: its sample is a copy
        assert redrawn > checked // 4, f"{name}: hidden parts are hardly ever re-drawn"


def test_random_bot_needs_no_sample() -> None:
    """A game without `sample_hidden` (the tests' tiny game) still plays with random bots;
    `mcts` is not offered there."""
    game = GAMES["secret-duel"]
    assert not searchable(game)
    from domain.simulate import play

    played = play(game, game.options_type(), [random_bot, random_bot], b"x" * 32)
    assert played.result is not None

"""The game contract, checked the same way for every registered game: random bots play
whole games and, along the way, the properties the service relies on must hold."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest

from domain.contract import Game, RuleError, random_bot
from domain.randomness import rng_for
from domain.registry import GAMES
from domain.simulate import play
from tests.conftest import all_games
from tests.support.sampling import describe, game_seeds, games_per_config


def _configs() -> list[tuple[str, int]]:
    return [
        (name, n)
        for name in all_games()
        for n in range(GAMES[name].min_players, GAMES[name].max_players + 1)
    ]


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


@pytest.mark.parametrize(("name", "seats"), _configs())
def test_property_contract_holds_in_random_games(name: str, seats: int) -> None:
    game: Game[Any, Any] = GAMES[name]
    label = f"contract/{name}/{seats}"
    count = max(3, games_per_config() // 4)
    for index, seed in enumerate(game_seeds(label, count)):
        _check_one_game(game, seats, seed, describe(label, index))


def _check_one_game(game: Game[Any, Any], seats: int, seed: bytes, where: str) -> None:
    sampler = random.Random(seed)

    def on_decision(state: Any, seat: int, command: Any) -> None:
        legal = game.legal_commands(state, seat)
        assert command in legal, where
        assert seat in game.awaiting(state), where
        if sampler.random() < 0.1:
            before = _builtins(state)
            for listed in legal:
                version = sampler.randrange(1 << 20)
                first = game.decide(state, seat, listed, rng_for(seed, version))
                again = game.decide(state, seat, listed, rng_for(seed, version))
                assert _builtins(first) == _builtins(again), f"{where}: decide is not pure"
            assert _builtins(state) == before, f"{where}: decide mutated the state"
            for other in range(seats):
                if other not in game.awaiting(state):
                    assert game.legal_commands(state, other) == [], where
                    with pytest.raises(RuleError):
                        game.decide(state, other, command, rng_for(seed, 0))
            for viewer in [None, *range(seats)]:
                json.dumps(_builtins(game.view(state, viewer)))

    def on_event(state: Any, event: Any) -> None:
        data = _builtins(event)
        assert msgspec.convert(data, game.event_type) == event, f"{where}: {data}"
        assert isinstance(data.get("type"), str), where
        json.dumps(data, sort_keys=True)
        for viewer in [None, *range(seats)]:
            json.dumps(_builtins(game.redact(event, viewer)))

    played = play(
        game,
        game.options_type(),
        [random_bot] * seats,
        seed,
        on_decision=on_decision,
        on_event=on_event,
    )
    result = played.result
    assert result is not None and len(result.ranks) == seats, where
    assert min(result.ranks) == 1, where
    assert game.awaiting(played.state) == [], where
    # the fold of the recorded events is the same game
    refolded = game.initial(game.options_type(), seats)
    for event in played.events:
        refolded = game.evolve(refolded, msgspec.convert(_builtins(event), game.event_type))
    assert _builtins(refolded) == _builtins(played.state), f"{where}: the fold differs"


@pytest.mark.parametrize("name", all_games())
def test_options_and_commands_refuse_garbage_with_rule_errors(name: str) -> None:
    game: Game[Any, Any] = GAMES[name]
    state = game.initial(game.options_type(), game.min_players)
    for event in game.setup(game.options_type(), game.min_players, random.Random(1)):
        state = game.evolve(state, event)
    seat = game.awaiting(state)[0]
    legal = game.legal_commands(state, seat)
    assert legal
    for other_seat in (-1, game.max_players + 3):
        with pytest.raises(RuleError):
            game.decide(state, other_seat, legal[0], random.Random(0))

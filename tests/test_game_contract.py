"""The game contract, checked the same way for every registered game: random bots play
whole games and, along the way, the properties the service relies on must hold."""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from domain.bots import bot_names, resolve_bot, searchable
from domain.contract import CAPABILITIES, Bot, Evaluation, Game, RuleError, SeatInfo, random_bot
from domain.randomness import rng_for
from domain.registry import GAMES, register
from domain.simulate import play
from tests.conftest import all_games
from tests.support.sampling import (
    describe,
    game_seeds,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


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
                events, after = game.decide_evolve(state, seat, listed, rng_for(seed, version))
                assert _builtins(events) == _builtins(first), f"{where}: decide_evolve differs"
                evolved = game.clone(state)
                for event in first:
                    evolved = game.evolve(evolved, event)
                assert _builtins(after) == _builtins(evolved), f"{where}: not the evolved state"
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
    # without hooks, `play` keeps the states `decide_evolve` returns: the same game
    bare = play(game, game.options_type(), [random_bot] * seats, seed)
    assert _builtins(bare.events) == _builtins(played.events), f"{where}: hooks change play"
    assert _builtins(bare.state) == _builtins(played.state), where


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


@pytest.mark.parametrize("name", all_games())
def test_every_game_declares_its_optional_capabilities(name: str) -> None:
    """Each of contract.CAPABILITIES, with a value of its type (None where it has none):
    the search and the bot specs read them and never probe for them."""
    game: Game[Any, Any] = GAMES[name]
    assert isinstance(game.can_sample_hidden, bool)
    assert game.can_sample_hidden == callable(getattr(type(game), "sample_hidden", None))
    assert game.evaluation is None or isinstance(game.evaluation, Evaluation)
    assert game.rollout_bot is None or callable(game.rollout_bot)
    assert ("mcts" in bot_names(game)) == game.can_sample_hidden


def test_a_game_that_leaves_a_capability_undeclared_is_refused() -> None:
    class Undeclared:
        name = "undeclared"
        can_sample_hidden = False
        evaluation = None  # and no rollout_bot

    with pytest.raises(TypeError, match="rollout_bot"):
        register(Undeclared())  # type: ignore[arg-type]
    assert "undeclared" not in GAMES
    assert set(CAPABILITIES) == {"can_sample_hidden", "evaluation", "rollout_bot"}


# --- fair bots: a bot decides from its seat's information only ---------------------------

TINY_MCTS = "mcts:p=3,r=random"  # the tree, widening and rollouts at a test's cost


def _bot_specs(name: str) -> list[str]:
    """Every bot of the game; `mcts` at tiny budgets (with greedy rollouts where they are
    cheap: Santa Maria's greedy rollouts cost half a second each)."""
    game: Game[Any, Any] = GAMES[name]
    specs = [b for b in bot_names(game) if b != "mcts"]
    if "mcts" in bot_names(game):
        specs.append(TINY_MCTS)
        if "greedy" in game.bots and name != "santa-maria":
            specs.append("mcts:p=2")
    return specs


def _bot_configs() -> list[tuple[str, str]]:
    """Every hosted game's bots (the tests' own game has no hidden-state sampler, so there is
    nothing a bot of it could see unfairly: test_random_bot_needs_no_sample covers it)."""
    hosted = [name for name in all_games() if searchable(GAMES[name])]
    return [(name, spec) for name in hosted for spec in _bot_specs(name)]


def positions(
    game: Game[Any, Any], seats: int, seed: bytes, rate: float, options: Any = None
) -> list[tuple[Any, int]]:
    """Real positions (a copy of the state and the seat to move) from a random game."""
    pick = random.Random(seed)
    kept: list[tuple[Any, int]] = []

    def keep(state: Any, seat: int, command: Any) -> None:
        if pick.random() < rate:
            kept.append((game.clone(state), seat))

    opts = game.options_type() if options is None else options
    play(game, opts, [random_bot] * seats, seed, on_decision=keep)
    return kept


def sample_positions(
    game: Game[Any, Any],
    seats: int,
    seed: bytes,
    count: int,
    where: Callable[[Any, int], bool] | None = None,
) -> list[tuple[Any, int]]:
    """`count` real positions drawn uniformly from one random game (fewer only when the game
    has fewer decisions, or fewer for which `where(state, seat)` holds), as `positions`
    gives them. For a test that needs some positions: `positions` keeps each decision with a
    probability, so it keeps none now and then (0.95 ** 76 = 2% of the time at 5% of a
    76-decision game), while a reservoir of `count` is never empty."""
    pick = random.Random(seed + b"/positions")
    kept: list[tuple[Any, int]] = []
    seen = 0

    def keep(state: Any, seat: int, command: Any) -> None:
        nonlocal seen
        if where is not None and not where(state, seat):
            return
        seen += 1
        if len(kept) < count:
            kept.append((game.clone(state), seat))
        else:
            slot = pick.randrange(seen)
            if slot < count:
                kept[slot] = (game.clone(state), seat)

    play(game, game.options_type(), [random_bot] * seats, seed, on_decision=keep)
    return kept


def unfair_decisions(
    game: Game[Any, Any],
    choose: Any,
    seats: int,
    seed: bytes,
    rate: float,
    variants: int,
    where: str,
    options: Any = None,
) -> list[str]:
    """Positions where `choose(state, seat, rng)` picks differently in two states that `seat`
    cannot tell apart: the real one, and the same with its hidden parts re-drawn. Both get
    the same random stream."""
    found = []
    draw = random.Random(seed + b"/variants")
    for index, (state, seat) in enumerate(positions(game, seats, seed, rate, options)):
        seen = _builtins(game.view(state, seat))
        for _ in range(variants):
            other = game.sample_hidden(state, seat, random.Random(draw.getrandbits(64)))
            assert _builtins(game.view(other, seat)) == seen, f"{where}: views differ"
            stream = draw.getrandbits(64)
            first = choose(state, seat, random.Random(stream))
            second = choose(other, seat, random.Random(stream))
            if first != second:
                found.append(f"{where} position={index} seat={seat}: {first} vs {second}")
    return found


@pytest.mark.parametrize(("name", "spec"), _bot_configs())
def test_property_bots_decide_from_the_seat_information_only(name: str, spec: str) -> None:
    """Two states whose `view(seat)` is identical, the same random stream: the bot chooses
    the same command. Real positions of random games; only hidden parts change."""
    game: Game[Any, Any] = GAMES[name]
    bot = resolve_bot(game, spec)

    def choose(state: Any, seat: int, rng: random.Random) -> Any:
        chosen = bot(game, SeatInfo.of(game, state, seat), rng)
        assert chosen in game.legal_commands(state, seat)
        return chosen

    search = spec.startswith("mcts")
    for options in option_sets(name):
        label = f"fair/{name}/{spec}/{_builtins(options)}"
        for index, seed in enumerate(game_seeds(label, 1 if search else 2)):
            seats = game.max_players if index % 2 == 0 else game.min_players
            rate, variants = (0.015, 1) if search else (0.25, 3)
            where = describe(label, index)
            unfair = unfair_decisions(game, choose, seats, seed, rate, variants, where, options)
            assert unfair == []


def option_sets(name: str) -> list[Any]:
    """Default options, and Puerto Rico's expansion too (haciendas and forests hide tiles)."""
    game: Game[Any, Any] = GAMES[name]
    extra = [game.options_type(expansion="new-buildings")] if name == "puerto-rico" else []
    return [game.options_type(), *extra]


def test_a_bot_never_receives_the_true_state() -> None:
    """By construction: a bot gets a SeatInfo (view, legal commands, sample), no state."""
    params = list(inspect.signature(Bot.__call__).parameters)
    assert params == ["self", "game", "info", "rng"]
    assert not any("state" in slot for slot in SeatInfo.__slots__)

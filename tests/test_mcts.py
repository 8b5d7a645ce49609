"""The `mcts` bot (domain/search.py) and bot specs (domain/bots.py): deterministic for a seed
and a playout budget, budgets refused over the server maximum (422 through the API), usable
through POST /v1/games, and a small duel against greedy. The long duels that measure its
strength are a command (`tabletop duel --bot mcts --against greedy --games 200`), not tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from domain import bots as B
from domain.bots import BotSpecError, bot_names, parse_budget, resolve_bot, searchable
from domain.contract import Game, SeatInfo, random_bot
from domain.registry import GAMES
from domain.search import Budget, estimated_rewards, rewards
from domain.simulate import play
from service.selfplay import duel, wilson
from tests.conftest import all_games
from tests.support.api import Api
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)
from tests.test_game_contract import positions, sample_positions

SEARCHABLE = [name for name in all_games() if searchable(GAMES[name])]


def _spec(name: str) -> str:
    """A tiny budget, with each game's own rollout horizon."""
    return "mcts:p=4"


@pytest.mark.parametrize("name", SEARCHABLE)
def test_mcts_is_deterministic_for_a_seed_and_a_budget(name: str) -> None:
    game: Game[Any, Any] = GAMES[name]
    bot = resolve_bot(game, _spec(name))
    label = f"mcts-determinism/{name}"
    seed = game_seeds(label, 1)[0]
    found = sample_positions(game, game.max_players, seed, 2)
    assert len(found) == 2, describe(label, 0)
    for state, seat in found:
        info = SeatInfo.of(game, state, seat)
        first = bot(game, info, random.Random(seed))
        assert first in info.legal, describe(label, 0)
        again = bot(game, SeatInfo.of(game, state, seat), random.Random(seed))
        assert again == first, describe(label, 0)


def test_a_game_with_an_mcts_bot_replays_to_the_same_events() -> None:
    game: Game[Any, Any] = GAMES["plus-ultra"]
    bots = [resolve_bot(game, "mcts:p=3,r=random"), resolve_bot(game, "greedy")]
    seed = game_seeds("mcts-replay", 1)[0]
    first = play(game, game.options_type(), bots, seed)
    again = play(game, game.options_type(), bots, seed)
    assert first.result is not None, describe("mcts-replay", 0)
    same = msgspec.to_builtins(first.events) == msgspec.to_builtins(again.events)
    assert same, describe("mcts-replay", 0)


def test_bot_specs_and_budgets() -> None:
    game: Game[Any, Any] = GAMES["caylus"]
    assert bot_names(game) == ["random", "greedy", "mcts"]
    assert game.evaluation is not None
    horizon = game.evaluation.horizon
    assert parse_budget(game, "mcts") == Budget(
        playouts=B.DEFAULT_PLAYOUTS, rollout="greedy", horizon=horizon
    )
    assert parse_budget(game, "mcts:playouts=400,rollout=random") == Budget(
        playouts=400, rollout="random", horizon=horizon
    )
    assert parse_budget(game, "mcts:p=7,r=greedy") == Budget(playouts=7, horizon=horizon)
    assert parse_budget(game, "mcts:ms=250") == Budget(
        playouts=B.MAX_PLAYOUTS, ms=250, horizon=horizon
    )
    assert parse_budget(game, "mcts:h=0").horizon == 0
    assert parse_budget(game, "mcts:horizon=12,p=3") == Budget(playouts=3, horizon=12)
    assert parse_budget(game, "mcts:h=end").horizon is None
    # a game may ask for more playouts by default; an explicit count comes first
    puerto_rico: Game[Any, Any] = GAMES["puerto-rico"]
    assert parse_budget(puerto_rico, "mcts").playouts == 64 > B.DEFAULT_PLAYOUTS
    assert parse_budget(puerto_rico, "mcts:p=16").playouts == 16
    assert parse_budget(game, f"mcts:p={B.MAX_PLAYOUTS}").playouts == B.MAX_PLAYOUTS
    for spec, code in [
        (f"mcts:p={B.MAX_PLAYOUTS + 1}", "bot_budget_too_large"),
        (f"mcts:playouts={10**9}", "bot_budget_too_large"),
        (f"mcts:ms={B.MAX_MS + 1}", "bot_budget_too_large"),
        ("mcts:p=0", "invalid_bot"),
        ("mcts:p=-3", "invalid_bot"),
        ("mcts:p=many", "invalid_bot"),
        ("mcts:p=²", "invalid_bot"),  # a digit to str.isdigit, not a number to int()
        ("mcts:depth=3", "invalid_bot"),
        ("mcts:p=3,p=4", "invalid_bot"),
        ("mcts:h=-1", "invalid_bot"),
        ("mcts:h=soon", "invalid_bot"),
        ("mcts:h=3,horizon=4", "invalid_bot"),
        ("mcts:rollout=mcts", "invalid_bot"),
        ("mcts:p", "invalid_bot"),
        ("genius", "unknown_bot"),
        ("mctsx", "unknown_bot"),
        ("", "unknown_bot"),
    ]:
        with pytest.raises(BotSpecError) as refused:
            resolve_bot(game, spec)
        assert refused.value.code == code, spec
        assert refused.value.message


def test_mcts_needs_sample_hidden() -> None:
    game = GAMES["secret-duel"]  # the tests' tiny game provides no sample_hidden
    assert "mcts" not in bot_names(game)
    with pytest.raises(BotSpecError) as refused:
        resolve_bot(game, "mcts")
    assert refused.value.code == "unknown_bot"


def test_time_budget_stops_on_the_clock() -> None:
    """A time budget ends the search when the clock says so (at least one playout)."""
    from domain.search import search

    game: Game[Any, Any] = GAMES["caylus"]
    state, seat = next(
        (s, t) for s, t in positions(game, 3, b"t" * 32, 0.2) if len(game.legal_commands(s, t)) > 1
    )
    ticks = iter(range(1000))
    calls = []

    def clock() -> float:
        calls.append(1)
        return float(next(ticks))  # one second per reading: the budget runs out at once

    budget = Budget(playouts=B.MAX_PLAYOUTS, ms=1500, rollout="random")
    info = SeatInfo.of(game, state, seat)
    chosen = search(game, info, random.Random(1), budget, _random, clock=clock)
    assert chosen in game.legal_commands(state, seat)
    assert len(calls) <= 4


def _random(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    return rng.choice(info.legal)


def _first_position(
    game: Game[Any, Any], seats: int, seed: bytes, where: Callable[[Any, int], bool]
) -> tuple[Any, int] | None:
    """The first position of a random game where `where(state, seat)` holds: early, so that
    rollouts played from it to the end are long."""
    found: list[tuple[Any, int]] = []

    def keep(state: Any, seat: int, command: Any) -> None:
        if not found and where(state, seat):
            found.append((game.clone(state), seat))

    play(game, game.options_type(), [random_bot] * seats, seed, on_decision=keep)
    return found[0] if found else None


@pytest.mark.parametrize("name", SEARCHABLE)
def test_rollouts_stop_at_the_horizon(name: str) -> None:
    """With a horizon the rollout policy plays at most that many moves per playout (plus the
    first move of the node each playout adds); without one it plays the games out."""
    from domain.search import search

    game: Game[Any, Any] = GAMES[name]
    assert game.evaluation is not None
    settled = game.evaluation.settled or (lambda legal: False)
    label = f"mcts-horizon/{name}"
    seed = game_seeds(label, 1)[0]

    def searched(state: Any, seat: int) -> bool:
        legal = game.legal_commands(state, seat)
        return len(legal) > 1 and not settled(list(legal))

    found = _first_position(game, 4, seed, searched)
    assert found is not None, describe(label, 0)
    state, seat = found
    calls = []

    def counted(game: Any, info: SeatInfo, rng: random.Random) -> Any:
        calls.append(1)
        return rng.choice(info.legal)

    def moves(horizon: int | None) -> int:
        calls.clear()
        budget = Budget(playouts=6, rollout="random", horizon=horizon)
        chosen = search(game, SeatInfo.of(game, state, seat), random.Random(3), budget, counted)
        assert chosen in game.legal_commands(state, seat), describe(label, 0)
        return len(calls)

    assert moves(3) <= 6 * (3 + 1), describe(label, 0)
    assert moves(0) <= 6, describe(label, 0)
    assert moves(None) > 6 * (3 + 1), describe(label, 0)


def test_settled_decisions_are_left_to_the_prior() -> None:
    """Plus Ultra's draft pays off beyond the horizon: the search returns greedy's pick
    without a playout, and still searches the actions."""
    from domain.plus_ultra import commands as C
    from domain.search import search

    game: Game[Any, Any] = GAMES["plus-ultra"]
    assert game.evaluation is not None and game.evaluation.settled is not None
    settled = game.evaluation.settled
    where = describe("mcts-settled", 0)
    seed = game_seeds("mcts-settled", 1)[0]
    calls = []

    def counted(game: Any, info: SeatInfo, rng: random.Random) -> Any:
        calls.append(1)
        return rng.choice(info.legal)

    greedy = game.bots["greedy"]
    budget = Budget(playouts=4, rollout="random", horizon=2)
    seen = set()
    for state, seat in positions(game, 4, seed, 0.5):
        legal = game.legal_commands(state, seat)
        assert settled(legal) or not isinstance(legal[0], C.PickCharacter), where
        if len(legal) < 2 or settled(legal) in seen:
            continue
        seen.add(settled(legal))
        calls.clear()
        info = SeatInfo.of(game, state, seat)
        chosen = search(game, info, random.Random(5), budget, counted, greedy)
        if settled(legal):
            assert chosen == greedy(game, SeatInfo.of(game, state, seat), random.Random(5)), where
            assert not calls, where
        else:
            assert calls, where
    assert seen == {True, False}, where


def test_the_tree_tries_only_the_games_candidates() -> None:
    """`Evaluation.candidates` bounds what the tree tries besides its policy's and prior's
    moves: with one candidate allowed, the search returns the prior's move or that one, in
    every position (the tree would try others: it widens to five children at 32 playouts)."""
    import copy

    from domain.search import search

    game: Game[Any, Any] = copy.copy(GAMES["santa-maria"])

    def candidates(state: Any, seat: int, legal: Any) -> list[Any]:
        return [legal[-1]]  # not the first: the prior below always picks that

    def first(game: Any, info: SeatInfo, rng: random.Random) -> Any:
        return info.legal[0]

    assert game.evaluation is not None
    game.evaluation = game.evaluation._replace(candidates=candidates)
    seed = game_seeds("mcts-candidates", 1)[0]
    budget = Budget(playouts=32, rollout="random", horizon=2)

    def wide(state: Any, seat: int) -> bool:
        return len(game.legal_commands(state, seat)) >= 3

    found = sample_positions(game, 3, seed, 12, where=wide)
    assert len(found) >= 5, describe("mcts-candidates", 0)
    for state, seat in found:
        legal = game.legal_commands(state, seat)
        info = SeatInfo.of(game, state, seat)
        chosen = search(game, info, random.Random(7), budget, first, first)
        assert chosen in (legal[0], legal[-1]), describe("mcts-candidates", 0)


@pytest.mark.parametrize("name", SEARCHABLE)
def test_each_game_estimates_every_seat(name: str) -> None:
    """A game's Evaluation gives one finite estimate per seat on real positions, and its
    default horizon is what `mcts` uses."""
    game: Game[Any, Any] = GAMES[name]
    evaluation = game.evaluation
    assert evaluation is not None
    assert parse_budget(game, "mcts").horizon == evaluation.horizon > 0
    label = f"mcts-estimate/{name}"
    seed = game_seeds(label, 1)[0]
    for seats in (game.min_players, 4):
        found = sample_positions(game, seats, seed, 8)
        assert len(found) == 8, f"{describe(label, 0)} seats={seats}"
        for state, _ in found:
            estimates = evaluation.estimate(state)
            where = f"{describe(label, 0)} seats={seats}: {estimates}"
            assert len(estimates) == seats, where
            assert all(isinstance(e, float) and abs(e) < 1e6 for e in estimates), where


def test_rewards_favour_the_winner_and_the_margin() -> None:
    from domain.contract import Result, rank

    scores = [40, 35, 20, 40]
    r = rewards(Result(scores=scores, ranks=rank(scores)))
    assert r[0] == r[3] > r[1] > r[2]
    assert all(0.0 <= x <= 1.0 for x in r)
    estimated = estimated_rewards([30.5, 28.0, 12.0, 29.0])
    assert estimated[0] > 0.5 > estimated[3] > estimated[1] > estimated[2] > 0.0


def test_a_small_duel_reports_wins_and_time() -> None:
    """The plumbing of `tabletop duel` with mcts (the 200-game runs are a command)."""
    game: Game[Any, Any] = GAMES["plus-ultra"]
    lines = list(duel(game, "mcts:p=2,r=random", 2, 2, "small-duel", "greedy"))
    assert [line["seat"] for line in lines] == [0, 1]
    assert all(line["decisions"] > 0 and line["ms"] > 0 for line in lines)
    low, high = wilson(50, 200)
    assert round(low, 3) == 0.195 and round(high, 3) == 0.314
    assert wilson(0, 0) == (0.0, 1.0)


def test_game_types_list_mcts(api: Api) -> None:
    types = {t["name"]: t for t in api.client.get("/v1/game-types").json()}
    for name in SEARCHABLE:
        assert types[name]["bots"] == ["random", "greedy", "mcts"]


def test_api_refuses_a_bad_mcts_budget(api: Api) -> None:
    ada = api.player("ada")
    for spec, code in [
        (f"mcts:p={B.MAX_PLAYOUTS + 1}", "bot_budget_too_large"),
        ("mcts:p=zero", "invalid_bot"),
        ("genius", "unknown_bot"),
    ]:
        body = {"game": "caylus", "seats": 2, "bots": {"1": spec}}
        r = api.client.post("/v1/games", json=body, headers=api.auth(ada))
        assert r.status_code == 422, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["code"] == code
        assert str(B.MAX_PLAYOUTS) in r.json()["detail"] or code != "bot_budget_too_large"


def test_an_mcts_bot_plays_a_game_through_the_api_to_the_end(api: Api) -> None:
    ada = api.player("ada")
    created = api.create(ada, "plus-ultra", 2, {1: "mcts:p=2,r=random"}, seat=0)
    seat_bots = {s["seat"]: s["bot"] for s in api.game(created["id"])["seats"]}
    assert seat_bots[1] == "mcts:p=2,r=random"
    final = api.play_out(created["id"], {0: ada}, random.Random(7))
    assert final["status"] == "finished", final
    audit = api.client.get(f"/v1/games/{created['id']}/audit").json()
    assert audit["verified"] is True, audit


def test_selfplay_and_the_duel_command_take_mcts() -> None:
    import json
    import subprocess
    import sys

    from service.selfplay import selfplay

    game: Game[Any, Any] = GAMES["plus-ultra"]
    (line,) = selfplay(game, 2, 1, "sp", ["mcts:p=2,r=random", "greedy"])
    assert sorted(line["ranks"]) in ([1, 2], [1, 1])
    args = ["--game", "plus-ultra", "--players", "2", "--games", "2", "--seed", "d"]
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "duel", *args, "--bot", "mcts:p=2,r=random"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["games"] == 2 and len(summary["wilson_95"]) == 2
    assert summary["ms_per_decision"] > 0
    refused = subprocess.run(
        [sys.executable, "-m", "api.cli", "duel", *args, "--bot", "mcts:p=999999"],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "maximum" in refused.stderr

"""`tabletop bot`'s planning policies (api/bot_runner.py): `greedy` and `mcts` plan on states
built from the seat's view alone, so they play every game, and they cannot decide on
anything the seat does not see."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from tabletop_client import Client

from api.bot_runner import Planner, Turn
from domain.bots import searchable
from domain.contract import Game
from domain.registry import GAMES
from service.settings import Settings
from tests.conftest import LiveServer, all_games
from tests.support.bot import serve_games
from tests.support.sampling import describe, game_seeds
from tests.test_game_contract import positions

HOSTED = [name for name in all_games() if searchable(GAMES[name])]


def _turn(game: Game[Any, Any], state: Any, seat: int, rng: random.Random) -> Turn:
    """The turn the runner builds from the API's answers: the view as JSON builtins and the
    legal moves."""
    return Turn(
        game=game.name,
        game_id="in-memory",
        seat=seat,
        version=0,
        view=msgspec.to_builtins(game.view(state, seat)),
        legal=list(game.legal_commands(state, seat)),
        rng=rng,
    )


@pytest.mark.parametrize(
    ("name", "spec"), [*((name, "greedy") for name in HOSTED), ("puerto-rico", "mcts:p=2")]
)
def test_property_a_planner_decides_alike_where_the_seat_sees_alike(name: str, spec: str) -> None:
    """Two true states with the same view for the seat to move (the real one and one with
    its hidden parts re-drawn), the same random stream: the planner picks the same move, one
    of the seat's legal moves."""
    game: Game[Any, Any] = GAMES[name]
    planner = Planner(spec)
    label = f"runner-fair/{name}/{spec}"
    checked = 0
    for index, seed in enumerate(game_seeds(label, 3)):
        draw = random.Random(seed)
        seats = game.min_players + index % (game.max_players - game.min_players + 1)
        rate = 0.04 if spec.startswith("mcts") else 0.1
        for k, (state, seat) in enumerate(positions(game, seats, seed, rate)):
            other = game.sample_hidden(state, seat, random.Random(draw.getrandbits(64)))
            stream = draw.getrandbits(64)
            first = planner(_turn(game, state, seat, random.Random(stream)))
            second = planner(_turn(game, other, seat, random.Random(stream)))
            where = f"{describe(label, index)} position={k} seat={seat}"
            assert first == second, f"{where}: {first} vs {second}"
            assert first in game.legal_commands(state, seat), where
            checked += 1
    assert checked > 3


def test_a_planner_plays_the_tests_own_game_from_its_view() -> None:
    """Secret Duel hides hands and commitments and has no sampler: `random` through the
    planner still reads its view."""
    game: Game[Any, Any] = GAMES["secret-duel"]
    for state, seat in positions(game, 3, b"duel" * 8, 0.5):
        chosen = Planner("random")(_turn(game, state, seat, random.Random(1)))
        assert chosen in game.legal_commands(state, seat)


@pytest.fixture
def server(pg_settings: Settings) -> Iterator[str]:
    with LiveServer(pg_settings) as live:
        yield live.url


def test_greedy_plays_every_game_to_the_end_against_a_server_bot(server: str) -> None:
    with Client(server) as api:
        api.register("greedy-runner")
        made = {api.create_game(name, 2, seat=0, bots={1: "random"}).id: name for name in HOSTED}
        runner = serve_games(server, api.key or "", "greedy", games=len(made), seed=11)
        assert runner.served == set(made)
        for game_id, name in made.items():
            game = api.game(game_id)
            assert game.status == "finished" and game.result is not None, name
            assert api.audit(game_id).verified, name


def test_mcts_plays_a_game_that_hides_much_to_the_end(server: str) -> None:
    with Client(server) as api:
        api.register("mcts-runner")
        game_id = api.create_game("puerto-rico", 2, seat=0, bots={1: "greedy"}).id
        runner = serve_games(server, api.key or "", "mcts:p=4", games=1, seed=11)
        assert runner.served == {game_id}
        assert api.game(game_id).status == "finished"

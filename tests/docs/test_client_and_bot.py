"""`tabletop_client` (clients/python) and `tabletop bot` against a live server on Postgres:
a bot written against the client plays Santa Maria to the end (as the README shows one), the
runner serves a player's games from its stream with each kind of policy, and the client's
typed answers and refusals."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tabletop_client import ApiError, Client, models

from api.bot_runner import Planner, PolicyError, Runner, Turn, commands, policy_named
from domain.caylus.commands import Pass as CaylusPass
from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.bot import serve_games


@pytest.fixture
def server(pg_settings: Settings) -> Iterator[str]:
    with LiveServer(pg_settings) as live:
        yield live.url


def first_legal(turn: Turn) -> Any:
    """A `module:function` policy: the first legal move."""
    return turn.legal[0]


def test_a_bot_written_against_the_client_plays_santa_maria_to_the_end(server: str) -> None:
    with Client(server) as api:
        me = api.register("bot-author")
        game = api.create_game("santa-maria", 2, seat=0, bots={1: "random"})
        assert game.your_seat == 0 and game.status == "active"
        moves = 0
        while (game := api.game(game.id)).status == "active":
            legal = api.legal_moves(game.id)
            if not legal.moves:  # the bot's turn: it moves on its own, after our request
                api.wait(game.id, legal.version)
                continue
            # The game's own types, generated from the document (nothing of the server's).
            assert isinstance(game, models.SantaMariaGameOut)
            assert isinstance(game.view, models.SantaMariaView)
            assert all(type(c).__name__.startswith("SantaMaria") for c in legal.moves)
            api.move(game.id, legal.version, legal.moves[-1])
            moves += 1
        assert game.status == "finished" and game.result is not None and moves > 10
        assert api.audit(game.id).verified
        lines = api.export(game.id)
        assert lines[0]["format"] == "tabletop-game/2" and "seed" in lines[-1]
        # The footer reads every event for a spectator, outside the hashed lines.
        assert len(lines[-1]["text"]) == len(lines) - 2 and all(lines[-1]["text"])
        assert lines[-1]["text"][0].startswith("Game of santa-maria created")
        assert all(e.text for e in api.events(game.id).events)
        assert game.seats[0].player == me.id


def test_the_client_raises_refusals_with_their_codes(server: str) -> None:
    with Client(server) as api:
        api.register("refused")
        game = api.create_game("caylus", 2, seat=0, bots={1: "random"})
        while 0 not in game.awaiting:  # the bot may begin: it moves after the request
            game = api.wait(game.id, game.version)
        legal = api.legal_moves(game.id)
        with pytest.raises(ApiError) as stale:
            api.move(game.id, legal.version - 1, legal.moves[0])
        assert stale.value.status == 409 and stale.value.code == "version_conflict"
        assert stale.value.version == legal.version
        with pytest.raises(ApiError) as unknown:
            api.game_type("chess")
        assert (unknown.value.status, unknown.value.code) == (404, "unknown_game")
        schema = api.game_type("caylus")
        assert schema.command == {"$ref": "#/$defs/CaylusCommand"}
        assert "CaylusPass" in schema.field_defs
        typed = commands("caylus", legal.moves)  # the server's bots' types
        assert typed and all(type(c).__module__ == "domain.caylus.commands" for c in typed)
        assert msgspec.to_builtins(CaylusPass()) == {"type": "pass"}


@pytest.mark.parametrize(
    ("game", "spec"),
    [
        ("santa-maria", "random"),
        ("puerto-rico", "tests.docs.test_client_and_bot:first_legal"),
        ("caylus", "greedy"),
    ],
)
def test_the_runner_plays_every_game_its_player_sits_in(server: str, game: str, spec: str) -> None:
    with Client(server) as api:
        api.register("runner")
        made = [api.create_game(game, 2, seat=0, bots={1: "random"}).id for _ in range(2)]
        runner = serve_games(server, api.key or "", spec, games=2)
        assert runner.served == set(made)
        for game_id in made:
            assert api.game(game_id).status == "finished"


def test_planning_policies_play_a_game_that_hides_the_state(server: str) -> None:
    with Client(server) as api:
        api.register("planner")
        game = api.create_game("puerto-rico", 2, seat=0, bots={1: "random"})
        while 0 not in game.awaiting:  # the bot may hold the first turn: wait for it
            assert game.status == "active"
            game = api.wait(game.id, game.version)
        runner = Runner(api, Planner("greedy"), seed=1)
        assert runner.play(game.id) > 0
        with pytest.raises(PolicyError, match="no policy"):
            policy_named("tests.docs.nowhere:policy")


def test_the_readme_documents_every_attribute_of_a_turn() -> None:
    """The README's list of a `Turn`'s attributes is the class's: none missing, none made up."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    paragraph = text[text.index("A `Turn` (`api/bot_runner.py`) has:") :].split("\n\n")[0]
    documented = set(re.findall(r"`turn\.(\w+)`", paragraph))
    turn = Turn(game="caylus", game_id="g", seat=0, version=1, legal=[], rng=random.Random(1))
    public = {name for name in vars(turn) if not name.startswith("_")}
    public |= {n for n, v in vars(Turn).items() if isinstance(v, property)}
    assert documented == public

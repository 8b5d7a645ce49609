"""`state_from_view`, the determinization built from a seat's view alone (what `tabletop bot`
plans on): on real positions of bot games, for every seat, the state it builds shows that
seat the very view it was built from and offers it the same legal commands; where the game
also has `sample_hidden`, it is the state `sample_hidden` draws with the same stream."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from api.game_types import view_type
from domain.bots import resolve_bot, searchable
from domain.contract import Game, random_bot
from domain.registry import GAMES
from domain.simulate import play
from tests.conftest import all_games
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)
from tests.test_game_contract import option_sets

GAMES_PER_CONFIG = 16  # per option set: a few dozen games per game in all
RATE = 0.1  # the share of decisions kept as positions

# Fields no rule reads, which a view need not show: counters kept for invariant tests, the
# order of a set the view shows sorted. Left out of the comparison with `sample_hidden`.
BOOKKEEPING: dict[str, set[str]] = {
    "caylus": {"stock"},
    "puerto-rico": {"bank_out", "bank_in"},
}


def _b(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def as_served(game: Game[Any, Any], view: Any) -> Any:
    """The view as a client gets it: through JSON and back into the game's view type."""
    return msgspec.json.decode(msgspec.json.encode(view), type=view_type(game))


def _without(game: Game[Any, Any], state: Any) -> Any:
    data = _b(state)
    for name in BOOKKEEPING.get(game.name, ()):
        data.pop(name)
    if game.name == "plus-ultra":
        # Unread too: war commitments once the war is placed, and which tiles were face
        # down once the game is over (its view shows them all face up).
        if data["phase"] != "commit":
            data.pop("commitments")
        if data["phase"] == "over":
            data.pop("face_up")
    return data


def positions(game: Game[Any, Any], options: Any, seats: int, seed: bytes) -> list[Any]:
    """Copies of the states of a game of random and greedy bots, at `RATE` of its decisions
    and at its end."""
    pick = random.Random(seed)
    kept: list[Any] = []
    bots = [resolve_bot(game, "greedy") if "greedy" in game.bots else random_bot] * seats
    bots[0] = random_bot  # a weak seat makes other positions

    def keep(state: Any, seat: int, command: Any) -> None:
        if pick.random() < RATE:
            kept.append(game.clone(state))

    played = play(game, options, bots, seed, on_decision=keep)
    return [*kept, played.state]


def check_position(game: Game[Any, Any], state: Any, seats: int, seed: bytes, where: str) -> None:
    for seat in range(seats):
        seen = game.view(state, seat)
        stream = random.Random(seed).getrandbits(64)
        built = game.state_from_view(as_served(game, seen), seat, random.Random(stream))
        here = f"{where} seat={seat}"
        assert _b(game.view(built, seat)) == _b(seen), f"{here}: the view changed"
        assert game.awaiting(built) == game.awaiting(state), here
        assert list(game.legal_commands(built, seat)) == list(game.legal_commands(state, seat)), (
            f"{here}: other legal commands"
        )
        if searchable(game):
            drawn = game.sample_hidden(state, seat, random.Random(stream))
            assert _without(game, built) == _without(game, drawn), f"{here}: not the sample"


@pytest.mark.parametrize("name", all_games())
def test_property_the_state_from_a_view_shows_that_view(name: str) -> None:
    game: Game[Any, Any] = GAMES[name]
    checked = 0
    for options in option_sets(name) if searchable(game) else [game.options_type()]:
        label = f"state-from-view/{name}/{_b(options)}"
        for index, seed in enumerate(game_seeds(label, GAMES_PER_CONFIG)):
            seats = game.min_players + index % (game.max_players - game.min_players + 1)
            where = describe(label, index)
            for k, state in enumerate(positions(game, options, seats, seed)):
                here = f"{where} position={k}"
                check_position(game, state, seats, seed + bytes([k % 256]), here)
                checked += 1
    assert checked > 20

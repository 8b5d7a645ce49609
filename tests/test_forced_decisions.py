"""The engine asks only seats that have a real choice: in random games of every hosted game,
at every player count and under each option set below, no awaited seat ever has exactly one
legal command. A single choice is applied by the engine itself (and marked automatic)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.contract import Game, random_bot
from domain.registry import GAMES
from domain.santa_maria import commands as sm
from domain.simulate import play
from tests.support.sampling import (
    describe,
    game_seeds,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

# The hosted games (rules and rulings in docs/games/); the tests-only game is not one of them.
HOSTED = ("caylus", "plus-ultra", "puerto-rico", "santa-maria")

# Besides the defaults, the options that change which decisions exist.
OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "caylus": [{}, {"favours": "simplified", "jeweller": True}],
    "plus-ultra": [{}, {"common_actions_per_turn": 2}],
    "puerto-rico": [{}, {"expansion": "new-buildings"}],
    "santa-maria": [{}, {"colony_boards": "draft"}],
}

# Single-choice decisions a game keeps on purpose: (game, command type) -> the ruling that
# keeps it ("" when the comment says why). Caylus, Plus Ultra and Puerto Rico apply every lone
# choice themselves; Santa Maria has no such rule and keeps these on purpose.
ALLOWED: dict[tuple[str, type], str] = {
    # a turn ends with the player's own `end_turn` (counts turns by it), even when
    # no free action is left to take before it.
    ("santa-maria", sm.EndTurn): "",
    # set-up with `colony_boards` `draft`: every seat chooses its board, the start
    # player last, so with 4 players from the one board left.
    ("santa-maria", sm.ChooseColony): "",
    # Santa Maria's R37: a decision is asked whenever it exists structurally, even when the
    # player cannot pay for its optional part, so that he may sell or buy first; with nothing
    # to sell or buy, `decline` (or `extra: 0`) is then the only answer.
    ("santa-maria", sm.Decline): "R37",
    ("santa-maria", sm.Religion): "R37",
    ("santa-maria", sm.Conquistador): "R37",
}


def _configs() -> list[Any]:
    return [
        pytest.param(name, seats, index, id=f"{name}-{seats}p-options{index}")
        for name in HOSTED
        for seats in range(GAMES[name].min_players, GAMES[name].max_players + 1)
        for index in range(len(OPTION_SETS[name]))
    ]


@pytest.mark.parametrize(("name", "seats", "option_set"), _configs())
def test_property_no_seat_is_asked_without_a_choice(name: str, seats: int, option_set: int) -> None:
    game: Game[Any, Any] = GAMES[name]
    options = game.options_type(**OPTION_SETS[name][option_set])
    label = f"forced/{name}/{seats}/{option_set}"
    count = max(3, games_per_config() // 4)
    for index, seed in enumerate(game_seeds(label, count)):
        forced = _forced_decisions(game, options, seats, seed)
        assert not forced, f"{describe(label, index)}: asked with one legal command: {forced[:3]}"


def _forced_decisions(game: Game[Any, Any], options: Any, seats: int, seed: bytes) -> list[Any]:
    """Every (seat, lone command) the game waited for, outside the allowed exceptions."""
    found: list[Any] = []

    def on_decision(state: Any, seat: int, command: Any) -> None:
        for awaited in game.awaiting(state):
            legal = game.legal_commands(state, awaited)
            if len(legal) == 1 and (game.name, type(legal[0])) not in ALLOWED:
                found.append((awaited, legal[0]))

    play(game, options, [random_bot] * seats, seed, on_decision=on_decision)
    return found


def test_the_check_sees_a_lone_command() -> None:
    """The check itself: a game that waits on a seat with one command is reported."""
    game = GAMES["plus-ultra"]

    class Waits:
        """Plus Ultra listing only the first of its legal commands, so every seat it waits on
        has one (as its lone `pass_character` was before applied it)."""

        def __getattr__(self, attr: str) -> Any:
            return getattr(game, attr)

        def legal_commands(self, state: Any, seat: int) -> list[Any]:
            return game.legal_commands(state, seat)[:1]

    seed = game_seeds("forced/self-check", 1)[0]
    assert _forced_decisions(Waits(), game.options_type(), 2, seed)  # type: ignore[arg-type]

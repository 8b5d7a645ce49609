"""The game object, options, JSON round trips of commands and events, and replays."""

from __future__ import annotations

import msgspec
import pytest

from domain.contract import RuleError, random_bot
from domain.plus_ultra import GAME
from domain.plus_ultra import commands as C
from domain.plus_ultra.state import Options
from domain.simulate import play
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def test_game_object() -> None:
    assert GAME.name == "plus-ultra" and GAME.title == "Plus Ultra"
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    assert "greedy" in GAME.bots
    assert GAME.options_type() == Options(common_actions_per_turn=1, initial_order="random")


@pytest.mark.parametrize(
    ("options", "seats", "code"),
    [
        (Options(), 1, "invalid_options.seats"),
        (Options(), 5, "invalid_options.seats"),
        (Options(common_actions_per_turn=3), 3, "invalid_options.common_actions_per_turn"),
        (Options(initial_order="oldest"), 3, "invalid_options.initial_order"),
    ],
)
def test_invalid_options(options: Options, seats: int, code: str) -> None:
    with pytest.raises(RuleError) as exc:
        GAME.validate_options(options, seats)
    assert exc.value.code == code


def test_options_decode_from_json() -> None:
    opts = msgspec.json.decode(
        b'{"common_actions_per_turn": 2, "initial_order": "seats"}', type=Options
    )
    assert opts == Options(common_actions_per_turn=2, initial_order="seats")


def test_seats_order_option() -> None:
    played = play(GAME, Options(initial_order="seats"), [random_bot] * 3, b"x" * 32)
    assert played.events[0].order == [0, 1, 2]


def test_json_round_trip_and_replay() -> None:
    for n in (2, 3, 4):
        label = f"plus-ultra/json/{n}p"
        for i, seed in enumerate(game_seeds(label, 2)):
            played = play(GAME, Options(), [random_bot] * n, seed)
            raw = msgspec.json.encode(played.events)
            events = msgspec.json.decode(raw, type=list[GAME.event_type])
            assert events == played.events, describe(label, i)
            state = GAME.initial(Options(), n)
            for ev in events:
                state = GAME.evolve(state, ev)
            assert state == played.state, describe(label, i)
            assert GAME.result(state) == played.result, describe(label, i)


def test_commands_round_trip() -> None:
    cmd = C.CharacterAction(character="admiral", action=1, params=C.Params(row=3, market_space=2))
    raw = msgspec.json.encode(cmd)
    assert (
        raw == b'{"type":"character_action","character":"admiral","action":1,'
        b'"params":{"row":3,"market_space":2}}'
    )
    assert msgspec.json.decode(raw, type=GAME.command_type) == cmd
    assert msgspec.json.decode(
        b'{"type":"common_action","action":"loan"}', type=GAME.command_type
    ) == C.CommonAction(action="loan")


def test_finished_game_refuses_everything() -> None:
    played = play(GAME, Options(), [random_bot] * 2, b"y" * 32)
    for seat in (0, 1):
        assert GAME.legal_commands(played.state, seat) == []
        with pytest.raises(RuleError) as exc:
            GAME.decide(played.state, seat, C.EndRound(), None)  # type: ignore[arg-type]
        assert exc.value.code == "illegal_move.game_over"
    res = GAME.result(played.state)
    assert res is not None and sorted(res.ranks) == [1, 2]
    assert set(res.details["components"][0]) == {
        "houses",
        "majorities",
        "bulls",
        "conversion",
        "sea_trade",
        "estates",
        "magellan",
        "natives",
    }

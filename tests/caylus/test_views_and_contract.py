"""Views, redaction, options and contract surface of the Caylus package.

Caylus has no hidden information: every seat and spectators get the same view (only
`viewer` differs), events are never redacted, and the only randomness (turn order, neutral
tiles) is written in the set-up events.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.caylus import GAME, CaylusOptions
from domain.caylus import commands as cmd
from domain.caylus import events as ev
from domain.contract import RuleError, random_bot
from domain.simulate import play
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def test_game_surface() -> None:
    assert GAME.name == "caylus" and GAME.title == "Caylus"
    assert (GAME.min_players, GAME.max_players) == (2, 5)
    assert GAME.options_type() == CaylusOptions(favours="full", jeweller=False, lawyer_prestige=4)
    assert "greedy" in GAME.bots


@pytest.mark.parametrize(
    "options,seats,code",
    [
        (CaylusOptions(favours="easy"), 4, "invalid_options.favours"),
        (CaylusOptions(lawyer_prestige=5), 4, "invalid_options.lawyer_prestige"),
        (CaylusOptions(), 1, "invalid_options.seats"),
        (CaylusOptions(), 6, "invalid_options.seats"),
    ],
)
def test_invalid_options(options: CaylusOptions, seats: int, code: str) -> None:
    with pytest.raises(RuleError) as info:
        GAME.validate_options(options, seats)
    assert info.value.code == code


def test_options_decode_from_json() -> None:
    raw = b'{"favours": "simplified", "jeweller": true, "lawyer_prestige": 3}'
    opts = msgspec.json.decode(raw, type=CaylusOptions)
    GAME.validate_options(opts, 3)
    assert opts.favours == "simplified" and opts.jeweller and opts.lawyer_prestige == 3


def test_setup_holds_all_randomness() -> None:
    opts = CaylusOptions()
    a = GAME.setup(opts, 4, random.Random(1))
    b = GAME.setup(opts, 4, random.Random(1))
    assert a == b
    drawn = [e for e in a if isinstance(e, ev.TurnOrderDrawn | ev.RoadSetUp)]
    assert len(drawn) == 2
    order = drawn[0].order
    assert sorted(order) == [0, 1, 2, 3]
    starting = {
        e.seat: e.deniers for e in a if isinstance(e, ev.ResourcesChanged) and e.reason == "start"
    }
    assert [starting[s] for s in order] == [5, 6, 6, 7]  # R12
    st = GAME.initial(opts, 4)
    for e in a:
        GAME.evolve(st, e)
    assert st.turn == 1 and st.phase == 2 and GAME.awaiting(st) == [order[0]]
    assert all(p.deniers == starting[p.seat] + 2 for p in st.players)  # R27: income in turn 1
    assert all(p.cubes == [2, 1, 0, 0, 0] for p in st.players)


def test_commands_decode_from_json() -> None:
    decoded = msgspec.json.decode(
        b'[{"type": "place_worker", "target": 12}, {"type": "place_worker", "target": "castle"},'
        b'{"type": "favour", "row": "c", "column": 4, "give": "G", "take": ["S", "C"]},'
        b'{"type": "pass"}]',
        type=list[GAME.command_type],
    )
    assert decoded[0] == cmd.PlaceWorker(target=12)
    assert decoded[1] == cmd.PlaceWorker(target="castle")
    assert decoded[2].take == ["S", "C"]
    assert decoded[3] == cmd.Pass()


def test_views_are_public_and_redact_is_identity() -> None:
    label = "caylus-views"
    for i, seed in enumerate(game_seeds(label, 3)):
        why = describe(label, i)
        views: list[int] = [0]

        def on_event(st, event, why=why, views=views) -> None:
            for seat in (None, 0, 1, 2):
                assert GAME.redact(event, seat) is event, why
            if isinstance(event, ev.PhaseStarted | ev.GameEnded):
                spectator = msgspec.to_builtins(GAME.view(st, None))
                for seat in range(3):
                    mine = msgspec.to_builtins(GAME.view(st, seat))
                    assert mine.pop("viewer") == seat, why
                    spectator.pop("viewer", None)
                    assert mine == spectator, why
                v = GAME.view(st, 1)
                msgspec.json.encode(v)
                assert [p.deniers for p in v.players] == [p.deniers for p in st.players], why
                assert v.provost == st.provost and v.bailiff == st.bailiff, why
                assert [r.tile for r in v.road][:6] == st.tiles[1:7], why
                views[0] += 1

        played = play(GAME, CaylusOptions(), [random_bot] * 3, seed, on_event=on_event)
        final = GAME.view(played.state, 0)
        assert final.over and final.awaiting == [], why
        assert views[0] > 50, why


def test_decide_refuses_anything_after_the_end_and_bad_seats() -> None:
    played = play(GAME, CaylusOptions(), [random_bot] * 2, b"end")
    st = played.state
    for seat in (-1, 0, 1, 7):
        with pytest.raises(RuleError) as info:
            GAME.decide(st, seat, cmd.Pass(), random.Random(0))
        assert info.value.code == "illegal_move.game_over"
    st = GAME.initial(CaylusOptions(), 3)
    for e in GAME.setup(CaylusOptions(), 3, random.Random(3)):
        GAME.evolve(st, e)
    first = GAME.awaiting(st)[0]
    with pytest.raises(RuleError) as info:
        GAME.decide(st, first, cmd.CastleDone(), random.Random(0))
    assert info.value.code == "illegal_move.wrong_phase"
    with pytest.raises(RuleError) as info:
        GAME.decide(st, first, cmd.PlaceWorker(target=9), random.Random(0))
    assert info.value.code == "illegal_move.occupied"  # an empty site
    with pytest.raises(RuleError) as info:
        GAME.decide(st, first, cmd.PlaceWorker(target="tower"), random.Random(0))
    assert info.value.code == "illegal_move.unknown_building"


def test_clone_is_independent() -> None:
    st = GAME.initial(CaylusOptions(), 4)
    for e in GAME.setup(CaylusOptions(), 4, random.Random(5)):
        GAME.evolve(st, e)
    copy = GAME.clone(st)
    assert msgspec.to_builtins(copy) == msgspec.to_builtins(st)
    seat = GAME.awaiting(copy)[0]
    for e in GAME.decide(copy, seat, GAME.legal_commands(copy, seat)[-1], random.Random(0)):
        GAME.evolve(copy, e)
    assert msgspec.to_builtins(copy) != msgspec.to_builtins(st)
    assert st.players[seat].available == 6


@pytest.mark.parametrize(
    "bad",
    [
        cmd.PlaceWorker(target=True),
        cmd.PlaceWorker(target=1.0),  # type: ignore[arg-type]
        cmd.PlaceWorker(target=None),  # type: ignore[arg-type]
        cmd.Pass(),
    ],
)
def test_badly_typed_parameters_are_rule_errors(bad: object) -> None:
    st = GAME.initial(CaylusOptions(), 3)
    for e in GAME.setup(CaylusOptions(), 3, random.Random(3)):
        GAME.evolve(st, e)
    first = GAME.awaiting(st)[0]
    if isinstance(bad, cmd.Pass):
        GAME.decide(st, first, bad, random.Random(0))  # the control: accepted
        return
    with pytest.raises(RuleError) as info:
        GAME.decide(st, first, bad, random.Random(0))
    assert info.value.code == "illegal_move.invalid_parameters"

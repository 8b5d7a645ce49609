"""Hidden information: stack orders never reach a seat before the end. Set-up."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.contract import random_bot
from domain.santa_maria import GAME, data
from domain.santa_maria import commands as cmd
from domain.santa_maria import events as ev
from domain.santa_maria.state import SantaMariaOptions
from domain.simulate import play
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

ENC = msgspec.json.Encoder()


@pytest.mark.parametrize("seats", [2, 4])
def test_views_and_redacted_events_hide_stack_orders(seats: int) -> None:
    label = f"santa-maria/hidden/{seats}p"
    for i, seed in enumerate(game_seeds(label, 6)):
        msg = describe(label, i)
        counter = [0]

        def on_event(state: Any, event: Any, msg: str = msg, counter: list[int] = counter) -> None:
            counter[0] += 1
            count = counter[0]
            if state.phase == "over":
                v = GAME.view(state, 0)
                assert v.ship_stack == state.ship_stack, msg  # revealed at the end
                return
            hidden = state.ship_stack + state.double_stack + state.triple_stack
            needles = [f'"{t}"'.encode() for t in hidden]
            for seat in [None, *range(seats)]:
                red = ENC.encode(GAME.redact(event, seat))
                assert not any(n in red for n in needles), f"{msg}: {type(event).__name__}"
            if count % 4 == 0 or isinstance(event, (ev.DisplayDealt, ev.DockRefilled)):
                base = ENC.encode(GAME.view(state, None))
                assert not any(n in base for n in needles), msg
                for seat in range(seats):
                    assert ENC.encode(GAME.view(state, seat)) == base, msg  # R3: no private info

        play(GAME, SantaMariaOptions(), [random_bot] * seats, seed, on_event=on_event)


def test_setup_records_every_random_outcome_in_order() -> None:
    events = GAME.setup(SantaMariaOptions(), 3, random.Random(7))
    kinds = [type(e) for e in events]
    assert kinds == [
        ev.StartPlayerChosen,
        ev.StartingShipsPlaced,
        ev.MonkTilesDrawn,
        ev.ShipStackShuffled,
        ev.ExpansionStacksShuffled,
        ev.DisplayDealt,
        ev.WhiteDiceRolled,
        ev.ColoniesDealt,
        ev.StartingGoodsGiven,
        ev.BlueDiceRolled,
        ev.YearStarted,
    ]
    state = GAME.initial(SantaMariaOptions(), 3)
    for e in events:
        GAME.evolve(state, e)
    start = events[0].seat
    assert state.active == start and state.year == 1
    coins = {(start + k) % 3: 3 + k for k in range(3)}
    for p in state.players:
        assert p.coins == coins[p.seat] and p.res["wood"] == 2
        assert len(p.blue) == 1 and p.board
    assert len(state.white_pool) == 9 and state.white_pool == sorted(state.white_pool)
    assert state.blue_supply == 9 - 3
    assert len(state.ship_stack) == 30 and sorted(state.docks) == ["SO1", "SO2", "SO3", "SO4"]
    assert len(state.display_doubles) == 5 and len(state.display_triples) == 5
    assert len(state.double_stack) == 10 and len(state.triple_stack) == 10
    dealt = events[7]
    assert isinstance(dealt, ev.ColoniesDealt)
    assert [dealt.boards[(start + k) % 3] for k in range(3)] == dealt.shuffled[:3]


def test_draft_order_is_counter_clockwise_start_player_last() -> None:
    opts = SantaMariaOptions(colony_boards="draft")
    events = GAME.setup(opts, 4, random.Random(3))
    state = GAME.initial(opts, 4)
    for e in events:
        GAME.evolve(state, e)
    start = state.start_player
    assert state.draft_order == [(start - 1) % 4, (start - 2) % 4, (start - 3) % 4, start]
    assert GAME.awaiting(state) == [(start - 1) % 4]
    order = list(state.draft_order)
    for k, seat in enumerate(order):
        legal = GAME.legal_commands(state, seat)
        assert len(legal) == 4 - k
        assert not GAME.legal_commands(state, (seat + 1) % 4)
        for e in GAME.decide(state, seat, legal[-1], random.Random(k)):
            GAME.evolve(state, e)
    assert state.phase == "play" and state.active == start
    assert len({p.board for p in state.players}) == 4
    assert [p.coins for p in state.players][start] == 3


def test_options_validation() -> None:
    from domain.contract import RuleError

    with pytest.raises(RuleError) as err:
        GAME.validate_options(SantaMariaOptions(colony_boards="pick"), 3)
    assert err.value.code.startswith("invalid_options.")
    for seats in (1, 5):
        with pytest.raises(RuleError):
            GAME.validate_options(SantaMariaOptions(), seats)
    GAME.validate_options(SantaMariaOptions(colony_boards="draft"), 2)


def test_command_union_decodes_spec_vocabulary() -> None:
    dec = msgspec.json.Decoder(GAME.command_type)
    c = dec.decode(b'{"type":"activate_die","die":"white","face":5,"value":3}')
    assert c == cmd.ActivateDie(die="white", face=5, value=3)
    c = dec.decode(b'{"type":"expand","tile":"TR04","cells":[[5,4],[5,5],[6,4]]}')
    assert c == cmd.Expand(tile="TR04", cells=[[5, 4], [5, 5], [6, 4]], gold_for=[])
    assert dec.decode(b'{"type":"ship","dock":1}') == cmd.Ship(dock=1)
    assert dec.decode(b'{"type":"decline"}') == cmd.Decline()
    assert set(data.RETIRE_SPACES) == {"RS1", "RS2", "RS3", "RS4", "RS5"}

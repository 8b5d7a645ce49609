"""Targeted rulings beyond the worked examples."""

from __future__ import annotations

import random

import pytest

from domain.contract import RuleError
from domain.plus_ultra import commands as C
from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.commands import Params
from domain.plus_ultra.evolve import evolve
from domain.plus_ultra.rules import awaiting, initial, legal_commands, setup
from domain.plus_ultra.state import Options
from tests.plus_ultra.helpers import (
    act,
    at_rounds,
    clear_new_world,
    colony,
    finish_turn,
    fresh,
    of,
    set_order,
)


def _round(chars: list[str], n: int = 3, options: Options | None = None):
    st = fresh(n, options=options or Options(initial_order="seats"))
    set_order(st, list(range(n)))
    rest = [c for c in D.CHARACTERS if c not in chars]
    picks = {0: chars, **{s: rest[2 * s - 2 : 2 * s] for s in range(1, n)}}
    return at_rounds(st, picks, set_aside=rest[-1]), 0


def _cmds(st, seat, kind, **match):
    return [
        m
        for m in legal_commands(st, seat)
        if isinstance(m, kind) and all(getattr(m, k) == v for k, v in match.items())
    ]


# --- set-up -------------------------------------------------------------------------------------


def test_setup_matches_the_rules() -> None:
    for n in (2, 3, 4):
        st = initial(Options(), n)
        events = setup(Options(), n, random.Random(n))
        for ev in events:
            evolve(st, ev)
        assert st.crown == 4 and st.market == [
            "start_gold",
            "start_spices",
            "start_silver_1",
            "start_silver_2",
        ]
        assert st.surplus == ["start_silver_3"]
        assert st.bull_supply == {2: 3, 3: 4, 4: 5}[n] and st.rose_supply == 10 - n
        assert st.magellan_supply == {2: 5, 3: 5, 4: 6}[n]
        assert len(st.estate_stack) == 6 and len(st.estates_unused) == 4
        for p in st.players:
            assert (p.ducats, p.active, p.stock, p.rose_up, p.gp, p.sea_trade) == (2, 2, 2, 1, 0, 0)
        assert st.turn == 1 and st.phase == "draft" and len(st.hand) == 8
        # rows 2..7 stay face down; row 1 was turned up (and refilled face up at turn 1 if empty)
        assert st.face_up[1:] == [False] * 6
        assert st.exploration[0] is not None and st.face_up[0]
        assert (
            of(events, E.WarDiceRolled)[0].level == sorted(of(events, E.WarDiceRolled)[0].dice)[1]
        )


def test_setup_row_1_colony_moves_and_refill_redraws() -> None:
    for seed in range(200):
        events = setup(Options(), 3, random.Random(seed))
        up = of(events, E.TileTurnedUp)[0]
        if D.tile_kind(up.tile) == "colony":
            refills = of(events, E.ExplorationRefilled)
            assert refills and refills[0].row == 1
            st = initial(Options(), 3)
            for ev in events:
                evolve(st, ev)
            assert st.colonies[0].tile == up.tile
            return
    pytest.skip("no seed with a colony in row 1")


# --- start of turn -------------------------------------------------------------------------------


def test_reactivation_only_when_all_tired() -> None:
    st = fresh(3)
    set_order(st, [0, 1, 2])
    at_rounds(st, {0: ["admiral", "cardinal"], 1: ["merchant", "pirate"], 2: ["king", "viceroy"]})
    st.players[0].active, st.players[0].tired = 0, 2
    st.players[1].active, st.players[1].tired = 1, 1
    st.players[2].active, st.players[2].tired, st.players[2].ducats = 0, 2, 0
    finish_turn(st)
    assert st.turn == 2 and awaiting(st) == [0]
    act(st, 0, C.ReactivateTercios(accept=True))
    assert (st.players[0].active, st.players[0].tired, st.players[0].ducats) == (2, 0, 1)


def test_blue_colonies_on_turns_2_and_5() -> None:
    st = fresh(3)
    turns = []
    rng = random.Random(3)
    while st.turn <= 5:
        seat = awaiting(st)[0]
        for ev in act(st, seat, rng.choice(legal_commands(st, seat))):
            if isinstance(ev, E.BlueColonyPlaced):
                turns.append(st.turn)
    assert turns == [2, 5]


def test_viceroy_income_at_reveal() -> None:
    st = fresh(3)
    set_order(st, [0, 1, 2])
    clear_new_world(st)
    st.colonies = [colony("nw_36", [1]), colony("nw_38", [1, 0]), colony("nw_39", [0])]
    at_rounds(st, {0: ["admiral", "cardinal"], 1: ["merchant", "pirate"], 2: ["king"]})
    st.hand.append("viceroy")
    st.phase, st.revealed, st.picks_done = "draft", False, 5
    events = act(st, 2, C.PickCharacter(character="viceroy"))
    assert of(events, E.ViceroyIncome) == []  # seat 2 has no house
    st2 = fresh(3)
    set_order(st2, [0, 1, 2])
    clear_new_world(st2)
    st2.colonies = [colony("nw_36", [2]), colony("nw_38", [1, 2]), colony("nw_39", [0])]
    at_rounds(st2, {0: ["admiral", "cardinal"], 1: ["merchant", "pirate"], 2: ["king"]})
    st2.hand.append("viceroy")
    st2.phase, st2.revealed, st2.picks_done = "draft", False, 5
    events = act(st2, 2, C.PickCharacter(character="viceroy"))
    assert of(events, E.ViceroyIncome) == [E.ViceroyIncome(seat=2, ducats=2)]


# --- own round -----------------------------------------------------------------------------------


def test_end_round_needs_a_character_and_ends_by_itself() -> None:
    st, s = _round(["admiral", "merchant"])
    with pytest.raises(RuleError) as exc:
        act(st, s, C.EndRound())
    assert exc.value.code == "illegal_move.wrong_phase"
    act(st, s, C.CommonAction(action="loan"))
    events = act(st, s, C.PassCharacter(character="admiral"))
    assert of(events, E.RoundEnded) == [E.RoundEnded(seat=s, automatic=True)]


def test_a_lone_pass_character_is_applied_by_the_engine() -> None:
    """only seats with a real choice are asked. In round 2, seat 1 holds only the Viceroy
    unused, with 0 ducats (no house, no capture), no natives in sight, no bull, no estate and
    its common action spent: passing is its one legal command, so it is not awaited."""
    st = fresh(2)
    set_order(st, [0, 1])
    clear_new_world(st)
    at_rounds(st, {0: ["admiral", "merchant"], 1: ["king", "viceroy"]}, actor=0)
    st.round = 2
    st.players[0].used, st.players[1].used = ["merchant"], ["king"]
    for p in st.players:
        p.common_count = 1
    st.players[1].ducats = 0
    turn = st.turn
    events = act(st, 0, C.PassCharacter(character="admiral"))
    assert of(events, E.TurnEnded) == [E.TurnEnded(turn=turn)]
    assert E.CharacterPassed(seat=1, character="viceroy", automatic=True) in events
    assert E.RoundEnded(seat=1, automatic=True) in events
    assert st.players[1].used == []  # the turn is over: the cards are back


def test_common_action_once_per_turn_board_wide_and_allowance() -> None:
    st, s = _round(["admiral", "merchant"])
    act(st, s, C.CommonAction(action="loan"))
    assert _cmds(st, s, C.CommonAction, use_bull=False) == []  # allowance of 1 per turn
    act(st, s, C.PassCharacter(character="admiral"))
    assert _cmds(st, awaiting(st)[0], C.CommonAction, action="loan") == []  # taken by anyone


def test_two_common_actions_option() -> None:
    st, s = _round(
        ["admiral", "merchant"], options=Options(common_actions_per_turn=2, initial_order="seats")
    )
    st.players[s].ducats = 10
    act(st, s, C.CommonAction(action="loan"))
    assert _cmds(st, s, C.CommonAction, use_bull=False) == []  # one per own round
    act(st, s, C.PassCharacter(character="admiral"))  # nothing left: the round ends by itself
    while awaiting(st) != [s]:
        seat = awaiting(st)[0]
        legal = legal_commands(st, seat)
        act(st, seat, next(m for m in legal if isinstance(m, (C.PassCharacter, C.EndRound))))
    assert _cmds(st, s, C.CommonAction, action="court_painter", use_bull=False)


def test_bull_extra_common_and_character_action() -> None:
    st, s = _round(["king", "merchant"])
    p = st.players[s]
    p.bulls, st.bull_supply = 2, st.bull_supply - 2
    act(st, s, C.CommonAction(action="loan"))
    act(st, s, C.CommonAction(action="trade_routes", use_bull=True))  # extra, beyond the allowance
    assert p.bulls == 1 and p.bull_used and p.sea_trade == 1
    act(st, s, C.PassCharacter(character="king"))
    assert _cmds(st, s, C.BullCharacterAction) == []  # one bull action per turn (R22)
    assert legal_commands(st, s) == [] or awaiting(st) != [s]


def test_bull_character_action_after_a_pass() -> None:
    st, s = _round(["king", "merchant"])
    st.players[s].bulls, st.bull_supply = 1, st.bull_supply - 1
    st.crown = 6
    act(st, s, C.PassCharacter(character="king"))
    assert C.BullCharacterAction(action=1) in legal_commands(st, s)
    act(st, s, C.BullCharacterAction(action=1))
    assert st.players[s].gp == 3 and st.players[s].bulls == 0


def test_estate_discard_conditions() -> None:
    st, s = _round(["admiral", "merchant"])
    p = st.players[s]
    p.estates = ["horse_stud", "manor_house", "shipyard", "olive_grove"]
    p.sea_trade, p.tercio_box = 15, 0
    assert sorted(m.estate for m in _cmds(st, s, C.DiscardEstate)) == ["shipyard"]
    p.tired, p.active = 1, 1
    p.tercio_box = 2
    assert sorted(m.estate for m in _cmds(st, s, C.DiscardEstate)) == [
        "horse_stud",
        "olive_grove",
        "shipyard",
    ]
    act(st, s, C.DiscardEstate(estate="horse_stud"))
    assert (p.active, p.tired) == (2, 0) and st.estates_discarded == ["horse_stud"]


def test_visit_court_and_loan_at_zero() -> None:
    st, s = _round(["admiral", "merchant"])
    assert _cmds(st, s, C.CommonAction, action="visit_court") == []  # already first
    p = st.players[s]
    act(st, s, C.CommonAction(action="loan"))
    assert (p.gp, p.ducats) == (-1, 5)


# --- characters ----------------------------------------------------------------------------------


def test_pirate_null_only_without_target() -> None:
    st, s = _round(["pirate", "merchant"])
    assert C.CharacterAction(character="pirate", action=1) in legal_commands(st, s)
    st.players[1].sea_trade = 1
    acts = _cmds(st, s, C.CharacterAction, character="pirate", action=1)
    assert acts == [C.CharacterAction(character="pirate", action=1, params=Params(target=1))]
    act(st, s, acts[0])
    assert st.players[1].sea_trade == 0 and st.players[s].ducats == 4


def test_conquistador_2_null_always_and_row_to_surplus() -> None:
    st, s = _round(["conquistador", "merchant"])
    clear_new_world(st)
    st.exploration[4], st.face_up[4] = "nw_12", True
    acts = _cmds(st, s, C.CharacterAction, character="conquistador", action=2)
    assert acts == [
        C.CharacterAction(character="conquistador", action=2),
        C.CharacterAction(character="conquistador", action=2, params=Params(row=5)),
    ]
    act(st, s, acts[1])
    assert st.surplus[-1] == "nw_12" and st.players[s].ducats == 4


@pytest.mark.parametrize("method", ["bull", "pay", "decline"])
def test_explored_natives(method: str) -> None:
    st, s = _round(["conquistador", "merchant"])
    clear_new_world(st)
    st.exploration[2] = "nw_31"
    p = st.players[s]
    p.bulls, st.bull_supply = 1, st.bull_supply - 1
    act(st, s, C.CharacterAction(character="conquistador", action=1))
    assert legal_commands(st, s) == [
        C.ResolveNatives(method="bull"),
        C.ResolveNatives(method="pay"),
        C.ResolveNatives(method="decline"),
    ]
    act(st, s, C.ResolveNatives(method=method))
    if method == "decline":
        assert st.exploration[2] == "nw_31" and st.face_up[2] and p.captured == []
    else:
        assert p.captured == ["nw_31"] and st.exploration[2] is None
        if method == "pay":
            assert (p.ducats, p.active, p.tired) == (1, 1, 1)
        else:
            assert p.bulls == 0


def test_explored_natives_auto_decline_when_unaffordable() -> None:
    st, s = _round(["conquistador", "merchant"])
    clear_new_world(st)
    st.exploration[0] = "nw_31"
    st.players[s].ducats = 0
    events = act(st, s, C.CharacterAction(character="conquistador", action=1))
    assert of(events, E.NativesResolved) == [
        E.NativesResolved(seat=s, method="decline", automatic=True)
    ]


def test_viceroy_captures_natives() -> None:
    st, s = _round(["viceroy", "merchant"])
    clear_new_world(st)
    st.exploration[6], st.face_up[6] = "nw_33", True
    st.crown = 0
    st.players[s].ducats = 2
    cmd = C.CharacterAction(character="viceroy", action=2, params=Params(row=7, method="pay"))
    assert _cmds(st, s, C.CharacterAction, character="viceroy", action=2) == [cmd]
    act(st, s, cmd)
    p = st.players[s]
    assert p.captured == ["nw_33"] and p.ducats == 0 and (p.active, p.tired) == (1, 1)


def test_cardinal_surplus_donation_any_empty_space() -> None:
    st, s = _round(["cardinal", "merchant"])
    st.church = [None, "nw_01", None, None]
    acts = _cmds(st, s, C.CharacterAction, character="cardinal", action=1)
    spaces = sorted({m.params.church_space for m in acts if m.params.source == "surplus"})
    assert spaces == [1, 3, 4]
    market = sorted({m.params.church_space for m in acts if m.params.source == "market"})
    assert market == [1, 3, 4]  # space 2 of the Church is taken


def test_secretary_items_need_availability() -> None:
    st, s = _round(["secretary_of_state", "merchant"])
    st.players[s].house_box = 0
    st.rose_supply = 0
    acts = _cmds(st, s, C.CharacterAction, character="secretary_of_state", action=1)
    assert [m.params.item for m in acts] == ["magellan"]


def test_king_passive_on_pass() -> None:
    st = fresh(3)
    set_order(st, [0, 1, 2])
    at_rounds(st, {2: ["king", "merchant"]}, actor=2)
    act(st, 2, C.PassCharacter(character="king"))
    assert st.peer == [2, 0, 1] and st.acting == [0, 1, 2]


def test_shipping_to_market_or_surplus() -> None:
    st = fresh(3)
    set_order(st, [0, 1, 2])
    clear_new_world(st)
    st.colonies = [colony("nw_36", []), colony("nw_38", [])]
    st.exploration[0], st.face_up[0] = "nw_16", True
    st.exploration[1], st.face_up[1] = "nw_17", True
    st.exploration[2], st.face_up[2] = "nw_18", True  # no colony in row 3: stays
    st.out += st.market[:3]
    st.market = st.market[3:]
    at_rounds(
        st,
        {0: ["admiral", "cardinal"], 1: ["merchant", "pirate"], 2: ["king", "viceroy"]},
        set_aside="constable",
    )
    events = finish_turn(st, stop_after=E.CrownHoarded)
    shipped = of(events, E.GoodShipped)
    assert [(e.row, e.to) for e in shipped] == [(1, "market"), (2, "market")]
    assert st.exploration[2] == "nw_18"


def test_bull_action_judged_after_the_bull_is_spent() -> None:
    st, s = _round(["viceroy", "merchant"])
    clear_new_world(st)
    st.exploration[6], st.face_up[6] = "nw_33", True
    p = st.players[s]
    p.bulls, st.bull_supply = 1, st.bull_supply - 1
    p.ducats, p.active = 0, 0
    act(st, s, C.PassCharacter(character="viceroy"))
    # one bull pays for the extra action, so none is left to capture with
    assert _cmds(st, s, C.BullCharacterAction, action=2) == []
    p.bulls, st.bull_supply = 2, st.bull_supply - 1
    assert _cmds(st, s, C.BullCharacterAction, action=2) == [
        C.BullCharacterAction(action=2, params=Params(row=7, method="bull"))
    ]
    act(st, s, C.BullCharacterAction(action=2, params=Params(row=7, method="bull")))
    assert p.bulls == 0 and p.captured == ["nw_33"]

"""Worked examples of the Plus Ultra rules (docs/games/plus-ultra.md) as given / when / then,
with the exact numbers."""

from __future__ import annotations

import pytest

from domain.contract import RuleError
from domain.plus_ultra import commands as C
from domain.plus_ultra import events as E
from domain.plus_ultra.commands import Params
from domain.plus_ultra.rules import awaiting, legal_commands, score_components
from tests.plus_ultra.helpers import (
    act,
    at_rounds,
    clear_new_world,
    colony,
    drive_until,
    finish_turn,
    fresh,
    of,
    set_order,
)

RED, GREEN, BLUE = 0, 1, 2


# --- X1 war -----------------------------------------------------------------------------------


def _war_given(level: int, constable_holder: int | None):
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    chars = {RED: ["admiral", "cardinal"], GREEN: ["merchant", "pirate"], BLUE: ["king", "viceroy"]}
    set_aside = "constable"
    if constable_holder is not None:
        chars[constable_holder] = ["constable", chars[constable_holder][1]]
        set_aside = "conquistador"
    at_rounds(st, chars, set_aside=set_aside, level=level)
    st.phase = "commit"
    st.commit_asked = [RED, GREEN, BLUE]
    st.commitments = {}
    return st


def test_x1_war_printed_example() -> None:
    st = _war_given(3, constable_holder=GREEN)
    assert awaiting(st) == [RED, GREEN, BLUE]
    # commitments arrive in any order; nothing is revealed before the last one
    first = act(st, BLUE, C.CommitTercios(count=2))
    second = act(st, RED, C.CommitTercios(count=2))
    assert [type(e) for e in first + second] == [E.TercioCommitted, E.TercioCommitted]
    assert awaiting(st) == [GREEN]
    last = act(st, GREEN, C.CommitTercios(count=1))
    (placed,) = of(last, E.WarPlaced)
    assert placed.placed == [RED, BLUE, GREEN]
    assert placed.returned == [1, 0, 1]  # Red's and Blue's second tercios, tired at once
    assert [st.players[s].tired for s in (RED, GREEN, BLUE)] == [1, 0, 1]
    events = finish_turn(st)
    (war,) = of(events, E.WarResolved)
    assert war.won
    assert war.gp == [1, 2, 1]  # Green also holds the Constable
    assert [st.players[s].tired for s in (RED, GREEN, BLUE)] == [2, 1, 2]  # placed ones back tired


def test_x1_war_variant_level_4() -> None:
    st = _war_given(4, constable_holder=None)
    act(st, RED, C.CommitTercios(count=2))
    act(st, GREEN, C.CommitTercios(count=1))
    (placed,) = of(act(st, BLUE, C.CommitTercios(count=2)), E.WarPlaced)
    assert placed.placed == [RED, BLUE, GREEN, RED]
    assert placed.returned == [0, 0, 1]
    (war,) = of(finish_turn(st), E.WarResolved)
    assert war.won and war.gp == [2, 1, 1]


# --- X2 Constable swap ------------------------------------------------------------------------


def test_x2_constable_swap() -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    at_rounds(
        st,
        {RED: ["admiral", "cardinal"], GREEN: ["constable", "merchant"], BLUE: ["king", "pirate"]},
        level=2,
        actor=GREEN,
    )
    st.war = [RED, BLUE]
    st.players[RED].active, st.players[BLUE].active, st.players[GREEN].active = 1, 1, 1
    st.players[GREEN].tercio_box = 4
    act(st, GREEN, C.CharacterAction(character="constable", action=1, params=Params(war_space=2)))
    assert st.war == [RED, GREEN]
    assert st.players[BLUE].tired == 1 and st.players[GREEN].active == 0
    (war,) = of(finish_turn(st), E.WarResolved)
    assert war.won and war.gp == [1, 2, 0]


def test_constable_cannot_swap_own_tercio_and_places_when_unmatched() -> None:
    st = fresh(3)
    at_rounds(st, {RED: ["constable", "merchant"]}, level=2, actor=st.acting[0])
    seat = st.acting[0]
    st.war = [seat]
    st.players[seat].active = 1
    acts = [
        m
        for m in legal_commands(st, seat)
        if isinstance(m, C.CharacterAction) and m.character == "constable" and m.action == 1
    ]
    assert acts == [
        C.CharacterAction(character="constable", action=1, params=Params())
    ]  # not matched: place


# --- X3 Merchant price ------------------------------------------------------------------------


def _merchant():
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    return at_rounds(st, {RED: ["merchant", "admiral"]}, set_aside="king")


def test_x3_merchant_sells_market_space_1() -> None:
    st = _merchant()
    assert st.market == ["start_gold", "start_spices", "start_silver_1", "start_silver_2"]
    assert st.surplus == ["start_silver_3"]
    act(st, RED, C.CharacterAction(character="merchant", action=1, params=Params(source="market")))
    assert st.players[RED].ducats == 2 + 4
    assert st.market == ["start_spices", "start_silver_1", "start_silver_2"]
    assert "start_gold" in st.out


def test_x3_merchant_sells_surplus() -> None:
    st = _merchant()
    act(st, RED, C.CharacterAction(character="merchant", action=1, params=Params(source="surplus")))
    assert st.players[RED].ducats == 2 + 2
    assert (
        st.market == ["start_gold", "start_spices", "start_silver_1", "start_silver_2"]
        and st.surplus == []
    )


@pytest.mark.parametrize(("source", "price"), [("market", 1), ("surplus", 0)])
def test_x3_merchant_four_silvers(source: str, price: int) -> None:
    st = _merchant()
    st.out += st.market + st.surplus
    st.market = ["nw_06", "nw_07", "nw_08", "nw_09"]
    st.surplus = ["nw_10"]
    act(st, RED, C.CharacterAction(character="merchant", action=1, params=Params(source=source)))
    assert st.players[RED].ducats == 2 + price


# --- X4 Crown hoarding ------------------------------------------------------------------------


def test_x4_crown_hoarding() -> None:
    st = fresh(3)
    A, B, C_ = 0, 1, 2
    set_order(st, [A, B, C_])
    clear_new_world(st)
    at_rounds(
        st,
        {A: ["admiral", "cardinal"], B: ["pirate", "king"], C_: ["viceroy", "constable"]},
        set_aside="merchant",
    )
    st.crown = 5
    st.out += st.market
    st.market = [
        "start_gold",
        "nw_06",
        "start_spices",
        "start_silver_1",
    ]  # gold, silver, spices, silver
    before = [p.ducats for p in st.players]
    events = finish_turn(st, stop_after=E.CrownHoarded)
    (hoard,) = of(events, E.CrownHoarded)
    assert hoard.set_aside == "merchant"
    assert hoard.removed == ["nw_06", "start_silver_1"]
    assert st.market == ["start_gold", "start_spices"]
    assert st.crown == 6
    assert [p.ducats - b for p, b in zip(st.players, before, strict=True)] == [1, 0, 0]


# --- X5 Admiral -------------------------------------------------------------------------------


@pytest.mark.parametrize(("tile", "space", "bonus"), [("nw_15", 2, 2), ("nw_06", 1, 0)])
def test_x5_admiral_full_market(tile: str, space: int, bonus: int) -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    at_rounds(st, {RED: ["admiral", "merchant"]})
    st.out.append(st.exploration[2])
    st.exploration[2], st.face_up[2] = tile, True
    pushed = st.market[space - 1]
    act(
        st,
        RED,
        C.CharacterAction(character="admiral", action=1, params=Params(row=3, market_space=space)),
    )
    expected = ["start_gold", "start_spices", "start_silver_1", "start_silver_2"]
    expected[space - 1] = tile
    assert st.market == expected
    assert st.surplus[-1] == pushed
    assert st.players[RED].sea_trade == 1 and st.players[RED].gp == bonus
    assert st.exploration[2] is None


def test_admiral_market_space_required_only_when_full() -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    at_rounds(st, {RED: ["admiral", "merchant"]})
    st.out.append(st.exploration[2])
    st.exploration[2], st.face_up[2] = "nw_15", True
    with pytest.raises(RuleError):
        act(st, RED, C.CharacterAction(character="admiral", action=1, params=Params(row=3)))
    st.surplus.append(st.market.pop())
    with pytest.raises(RuleError):
        act(
            st,
            RED,
            C.CharacterAction(character="admiral", action=1, params=Params(row=3, market_space=4)),
        )
    act(st, RED, C.CharacterAction(character="admiral", action=1, params=Params(row=3)))
    assert st.market[-1] == "nw_15"


# --- X6 Church completion ---------------------------------------------------------------------


def test_x6_church_completion() -> None:
    st = fresh(3)
    set_order(st, [GREEN, RED, BLUE])
    at_rounds(st, {GREEN: ["cardinal", "merchant"]})
    st.out += st.market
    st.church = ["nw_03", "nw_11", None, "nw_24"]
    st.market = ["nw_07", "nw_16", "nw_02", "nw_22"]  # silver, gems, gold, spices
    st.players[GREEN].rose_up = 1
    st.players[RED].rose_up, st.players[RED].rose_down = 0, 2
    act(
        st,
        GREEN,
        C.CharacterAction(
            character="cardinal",
            action=1,
            params=Params(source="market", church_space=3, rose_window=True),
        ),
    )
    assert st.market == ["nw_07", "nw_16", "nw_22"]
    assert st.players[GREEN].gp == 5
    assert (st.players[GREEN].rose_up, st.players[GREEN].rose_down) == (1, 0)
    assert (st.players[RED].rose_up, st.players[RED].rose_down) == (2, 0)
    assert st.church == [None, None, None, None]
    assert {"nw_03", "nw_11", "nw_02", "nw_24"} <= set(st.out)


# --- X7, X8, X13 scoring ----------------------------------------------------------------------


def test_x7_captured_natives() -> None:
    st = fresh(3)
    for s, k in enumerate((3, 2, 1)):
        st.players[s].captured = [f"nw_{30 + i}" for i in range(k)]
    assert [c["natives"] for c in score_components(st)] == [9, 4, 1]


@pytest.mark.parametrize(
    ("sea", "awards"), [((6, 6, 3, 0), [5, 5, 3, 0]), ((7, 4, 4, 1), [5, 3, 3, 1])]
)
def test_x8_sea_trade(sea: tuple[int, ...], awards: list[int]) -> None:
    st = fresh(4)
    for p, v in zip(st.players, sea, strict=True):
        p.sea_trade = v
    assert [c["sea_trade"] for c in score_components(st)] == awards


def test_x13_conversion() -> None:
    st = fresh(3)
    p = st.players[0]
    p.ducats, p.active, p.tired, p.rose_up, p.rose_down, p.stock = 9, 2, 1, 1, 1, 1
    assert score_components(st)[0]["conversion"] == 3


# --- X9 natives and majority ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("houses", "left", "house_gp", "majority"),
    [
        ([RED, BLUE, RED], [RED, BLUE], (1, 1), (0, 0)),
        ([RED, RED, RED], [RED, RED], (2, 0), (2, 0)),
    ],
)
def test_x9_natives_and_majority(houses, left, house_gp, majority) -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    clear_new_world(st)
    st.colonies = [
        colony("nw_36", []),
        colony("nw_37", []),
        colony("nw_38", []),
        colony("nw_39", houses),
    ]
    st.exploration[3], st.face_up[3] = "nw_30", True
    st.turn = 7
    at_rounds(
        st,
        {RED: ["admiral", "merchant"], BLUE: ["king", "pirate"], GREEN: ["cardinal", "constable"]},
    )
    stock = st.players[RED].stock
    events = finish_turn(st)
    assert of(events, E.NativesAttacked) == [E.NativesAttacked(row=4, seat=RED)]
    assert st.colonies[3].houses == left
    assert st.players[RED].stock == stock + 1
    (end,) = of(events, E.GameEnded)
    comp = end.details["components"]
    assert (comp[RED]["houses"], comp[BLUE]["houses"]) == house_gp
    assert (comp[RED]["majorities"], comp[BLUE]["majorities"]) == majority


# --- X10 Magellan -----------------------------------------------------------------------------


def test_x10_magellan_completion() -> None:
    A, B, C_ = 0, 1, 2
    st = fresh(4)
    at_rounds(st, {C_: ["secretary_of_state", "merchant"]}, actor=C_)
    st.players[A].magellan, st.players[B].magellan, st.magellan_supply = 2, 3, 1
    st.crown = 1
    gp = [p.gp for p in st.players]
    act(
        st,
        C_,
        C.CharacterAction(character="secretary_of_state", action=1, params=Params(item="magellan")),
    )
    assert st.players[C_].ducats == 1 and st.crown == 0
    assert [p.gp - g for p, g in zip(st.players, gp, strict=True)] == [6, 9, 3, 0]
    assert st.magellan_complete and st.magellan_supply == 0
    assert all(c["magellan"] == 0 for c in score_components(st))


def test_magellan_incomplete_scores_one_per_card() -> None:
    st = fresh(4)
    st.players[0].magellan, st.magellan_supply = 2, 4
    assert score_components(st)[0]["magellan"] == 2


# --- X11 empty Crown --------------------------------------------------------------------------


def test_x11_empty_crown_costs_two_own_ducats() -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    at_rounds(st, {RED: ["viceroy", "merchant"]})
    st.colonies = st.colonies or [colony("blue_colony_1", [])]
    st.crown = 0
    st.players[RED].ducats = 1
    cmd = C.CharacterAction(character="viceroy", action=1, params=Params(colony=1))
    assert cmd not in legal_commands(st, RED)
    with pytest.raises(RuleError):
        act(st, RED, cmd)
    st.players[RED].ducats = 2
    act(st, RED, cmd)
    assert st.players[RED].ducats == 0 and st.crown == 0 and st.colonies[0].houses[-1] == RED


# --- X12 peer order ---------------------------------------------------------------------------


def test_x12_peer_order() -> None:
    A, B, C_, D = 0, 1, 2, 3
    st = fresh(4)
    set_order(st, [A, B, C_, D])
    st.turn = 5
    for p in st.players:
        p.ducats, p.active, p.tired = 0, 0, 2
    at_rounds(
        st,
        {
            A: ["admiral", "cardinal"],
            B: ["pirate", "secretary_of_state"],
            C_: ["constable"],
            D: ["conquistador"],
        },
        set_aside="merchant",
    )
    st.phase, st.revealed, st.picks_done = "draft", False, 6
    assert sorted(st.hand) == ["king", "viceroy"]
    events = act(st, C_, C.PickCharacter(character="king"))
    (income,) = of(events, E.PeerIncome)
    assert income.gp == [1, 0, 0, 0] and income.ducats == [0, 0, 1, 2]
    assert awaiting(st) == [A]
    act(st, A, C.PassCharacter(character="admiral"))
    act(st, A, C.EndRound())
    act(st, B, C.PassCharacter(character="pirate"))
    act(st, B, C.EndRound())
    act(st, C_, C.CharacterAction(character="king", action=1))
    assert st.peer == [C_, A, B, D]
    act(st, C_, C.EndRound())
    act(st, D, C.CommonAction(action="visit_court", params=Params(steps=2)))
    assert st.peer == [C_, D, A, B]
    act(st, D, C.PassCharacter(character="conquistador"))  # his round ends by itself
    assert st.acting == [A, B, C_, D] and st.round == 2 and awaiting(st) == [A]
    finish_turn(st)
    assert st.turn == 6 and st.acting == [C_, D, A, B]
    events = drive_until(st, E.PeerIncome, choose=lambda legal: legal[-1])
    (income,) = of(events, E.PeerIncome)
    assert income.gp == [0, 0, 2, 1] and income.ducats == [1, 2, 0, 0]


# --- X14 Pirate raid --------------------------------------------------------------------------


def test_x14_pirate_raid() -> None:
    st = fresh(3)
    set_order(st, [RED, BLUE, GREEN])
    clear_new_world(st)
    st.colonies = [colony("nw_36", []), colony("nw_38", [BLUE, GREEN])]
    st.exploration[1], st.face_up[1] = "nw_21", True
    at_rounds(st, {RED: ["pirate", "merchant"]})
    st.players[BLUE].active, st.players[BLUE].ducats = 1, 3
    st.players[GREEN].active, st.players[GREEN].tired, st.players[GREEN].ducats = 0, 2, 1
    act(st, RED, C.CharacterAction(character="pirate", action=2, params=Params(row=2)))
    assert "nw_21" in st.out and st.exploration[1] is None
    assert st.players[RED].ducats == 4
    assert awaiting(st) == [BLUE]
    assert legal_commands(st, BLUE) == [C.RaidResponse(choice="tire"), C.RaidResponse(choice="pay")]
    events = act(st, BLUE, C.RaidResponse(choice="pay"))
    assert of(events, E.RaidResolved) == [
        E.RaidResolved(seat=BLUE, choice="pay"),
        E.RaidResolved(seat=GREEN, choice="pay", automatic=True),
    ]
    assert st.players[BLUE].ducats == 2 and st.players[GREEN].ducats == 0
    assert st.players[RED].ducats == 4 and awaiting(st) == [RED]


# --- X15 exploration --------------------------------------------------------------------------


@pytest.mark.parametrize("tile", ["nw_40", "nw_06"])
def test_x15_exploration(tile: str) -> None:
    st = fresh(3)
    set_order(st, [RED, GREEN, BLUE])
    clear_new_world(st)
    st.colonies = [colony("nw_36", []), colony("nw_37", [])]
    rows = [None, tile, "nw_01", "nw_02", "nw_03", "nw_04", "nw_05"]
    st.exploration, st.face_up = rows, [False] * 7
    at_rounds(st, {RED: ["conquistador", "merchant"]})
    p = st.players[RED]
    p.stock, p.house_box, p.ducats = 1, 4, 3
    events = act(st, RED, C.CharacterAction(character="conquistador", action=1))
    assert of(events, E.TileExplored) == [
        E.TileExplored(seat=RED, row=2, tile=tile, from_stack=False)
    ]
    if tile == "nw_40":
        assert len(st.colonies) == 3 and st.colonies[2].tile == "nw_40" and st.colonies[2].size == 4
        assert st.exploration[1] is None
        assert legal_commands(st, RED) == [
            C.ResolveColony(place_house=True),
            C.ResolveColony(place_house=False),
        ]
        act(st, RED, C.ResolveColony(place_house=True))
        assert p.ducats == 1 and st.colonies[2].houses == [RED] and p.stock == 0
    else:
        assert p.gp == 2 and st.exploration[1] == tile and st.face_up[1]


def test_exploration_draws_from_stack_when_no_face_down_tile() -> None:
    st = fresh(3)
    clear_new_world(st)
    st.exploration[0], st.face_up[0] = "nw_06", True
    at_rounds(st, {st.acting[0]: ["conquistador", "merchant"]})
    seat = st.acting[0]
    top = st.stack[0]
    (ex,) = of(act(st, seat, C.CharacterAction(character="conquistador", action=1)), E.TileExplored)
    assert ex.from_stack and ex.tile == top and ex.row == 2


# --- X16 bulls and the Cardinal ---------------------------------------------------------------


def test_x16_bulls_and_cardinal() -> None:
    A, B, C_ = 0, 1, 2
    st = fresh(3)
    set_order(st, [A, B, C_])
    at_rounds(st, {B: ["cardinal", "merchant"], A: ["admiral", "king"], C_: ["pirate", "viceroy"]})
    st.phase, st.ask_index = "bulls", 0
    for p in st.players:
        p.ducats = 3
    events = act(st, A, C.BuyBull(accept=True))
    events += act(st, B, C.BuyBull(accept=True))
    events += act(st, C_, C.BuyBull(accept=True))
    assert [e.cardinal for e in of(events, E.BullAnswered)] == [B, None, B]
    assert st.players[B].ducats == 3 - 3 + 2
    for s in awaiting(st):
        act(st, s, C.CommitTercios(count=0))
    st.players[A].estates = ["vineyard"]
    st.estate_stack.pop()
    st.bull_supply = 1
    st.players[C_].bulls = 0
    act(st, A, C.DiscardEstate(estate="vineyard"))
    assert st.players[A].bulls == 2 and st.players[B].ducats == 2


# --- X17 Secretary ----------------------------------------------------------------------------


def _reveal(n: int, picks: dict[int, list[str]], set_aside: str, last: str):
    st = fresh(n)
    set_order(st, list(range(n)))
    at_rounds(st, picks, set_aside=set_aside)
    st.hand.append(last) if last not in st.hand else None
    st.phase, st.revealed, st.picks_done = "draft", False, 2 * n - 1
    return of(act(st, n - 1, C.PickCharacter(character=last)), E.SecretaryBonus)


def test_x17_secretary_king_set_aside() -> None:
    assert _reveal(
        3,
        {0: ["secretary_of_state", "admiral"], 1: ["pirate", "merchant"], 2: ["viceroy"]},
        "king",
        "cardinal",
    ) == [E.SecretaryBonus(seat=0, gp=2)]


def test_x17_secretary_king_among_leftovers() -> None:
    assert _reveal(
        3,
        {0: ["secretary_of_state", "admiral"], 1: ["pirate", "merchant"], 2: ["viceroy"]},
        "constable",
        "cardinal",
    ) == [E.SecretaryBonus(seat=0, gp=2)]


def test_x17_secretary_holds_king() -> None:
    assert _reveal(
        3,
        {0: ["secretary_of_state", "king"], 1: ["pirate", "merchant"], 2: ["viceroy"]},
        "constable",
        "cardinal",
    ) == [E.SecretaryBonus(seat=0, gp=2)]


def test_x17_another_player_holds_king() -> None:
    assert (
        _reveal(
            3,
            {0: ["secretary_of_state", "admiral"], 1: ["pirate", "merchant"], 2: ["viceroy"]},
            "constable",
            "king",
        )
        == []
    )


# --- X18 King ---------------------------------------------------------------------------------


def test_x18_king_action_1() -> None:
    st = fresh(3)
    at_rounds(st, {st.acting[0]: ["king", "merchant"]})
    st.crown = 5
    act(st, st.acting[0], C.CharacterAction(character="king", action=1))
    assert st.players[st.acting[0]].gp == 2 and st.crown == 5


def test_x18_king_levy_with_overflow() -> None:
    st = fresh(3)
    set_order(st, [0, 1, 2])
    at_rounds(st, {1: ["king", "merchant"]}, actor=1)
    st.crown = 5
    st.players[2].ducats = 0
    events = act(st, 1, C.CharacterAction(character="king", action=2))
    assert st.crown == 6 and st.players[0].ducats == 3  # the 1st in acting order gets the excess
    assert st.peer == [1, 0, 2] and st.acting == [0, 1, 2]  # the passive, on the live track only
    assert awaiting(st) == [0]
    assert legal_commands(st, 0) == [C.LevyResponse(pay=True), C.LevyResponse(pay=False)]
    events = act(st, 0, C.LevyResponse(pay=False))
    assert of(events, E.LevyResolved) == [
        E.LevyResolved(seat=0, pay=False),
        E.LevyResolved(seat=2, pay=False, automatic=True),
    ]
    assert st.players[0].gp == -1 and st.players[2].gp == -1  # R28: GP may go negative

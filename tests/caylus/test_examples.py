"""Worked examples of the Caylus rules (docs/games/caylus.md) as given / when / then, with the
exact numbers.

Colours: Blue 0, Green 1, Orange 2, Red 3. 4 players and full favours unless stated.
"""

from __future__ import annotations

import random

import pytest

from domain.caylus import GAME, rules
from domain.caylus import commands as cmd
from domain.caylus import events as ev
from domain.contract import RuleError
from tests.caylus.helpers import (
    BLUE,
    GREEN,
    ORANGE,
    RED,
    do,
    enter,
    holding,
    neutral_on,
    new_state,
    of_type,
    run_until,
    settle,
    tile,
    worker,
)


def d(st, seat):  # deniers
    return st.players[seat].deniers


def pp(st, seat):
    return st.players[seat].pp


# --- E1 -------------------------------------------------------------------------------------


def test_e1_passing_costs() -> None:
    st = new_state(order=[BLUE, GREEN, ORANGE, RED])
    for seat, money in zip((BLUE, GREEN, ORANGE, RED), (5, 6, 6, 10), strict=False):
        holding(st, seat, deniers=money, pp=0)
    tile(st, 9, "mason", GREEN)
    tile(st, 10, "wood_farm_food", RED)

    do(st, BLUE, cmd.PlaceWorker(target="castle"))
    assert d(st, BLUE) == 4 and st.castle_workers == [BLUE]
    do(st, GREEN, cmd.PlaceWorker(target=7))
    assert d(st, GREEN) == 5
    do(st, ORANGE, cmd.Pass())
    assert st.passing == [ORANGE] and d(st, ORANGE) == 7
    do(st, RED, cmd.PlaceWorker(target=9))
    assert d(st, RED) == 8 and pp(st, GREEN) == 1
    do(st, BLUE, cmd.Pass())
    assert st.passing == [ORANGE, BLUE] and d(st, BLUE) == 4
    do(st, GREEN, cmd.PlaceWorker(target="trading_post"))
    assert d(st, GREEN) == 2
    events = do(st, RED, cmd.PlaceWorker(target=10))
    assert d(st, RED) == 7 and pp(st, RED) == 0
    # Green (2 d, cost now 3) can only pass: the single-option rule passes for it
    assert of_type(events, ev.Passed)[0].auto and st.passing == [ORANGE, BLUE, GREEN]
    assert GAME.awaiting(st) == [RED]
    events = do(st, RED, cmd.PlaceWorker(target="castle"))
    assert of_type(events, ev.WorkerPlaced)[0].cost == 4
    assert st.castle_workers == [BLUE, RED]  # castle space 2
    # Red (3 d left, cost 5) can only pass: automatic, scale position 4
    passed = of_type(events, ev.Passed)[0]
    assert passed.auto and passed.position == 4 and d(st, RED) == 3
    assert st.passing == [ORANGE, BLUE, GREEN, RED]
    # phase 3: Green's trading post; phase 4 asks in passing order, Orange first
    assert d(st, GREEN) == 5
    assert st.phase == 4 and GAME.awaiting(st) == [ORANGE]


# --- E2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "circles,expected",
    [([BLUE, RED], [BLUE, RED, GREEN, ORANGE]), ([BLUE, RED, ORANGE], [BLUE, RED, ORANGE, GREEN])],
)
def test_e2_stables(circles: list[int], expected: list[int]) -> None:
    st = new_state(order=[RED, GREEN, ORANGE, BLUE])
    enter(st, 3)
    for seat in circles:
        worker(st, seat, "stables")
    events = settle(st)
    assert of_type(events, ev.StablesResolved)[0].order == expected
    assert st.order == expected and st.stables == []


# --- E3 -------------------------------------------------------------------------------------


def test_e3_inn() -> None:
    st = new_state(order=[ORANGE, GREEN, BLUE, RED])
    worker(st, BLUE, "inn")
    st.inn_left, st.inn_right = -1, BLUE  # from an earlier turn
    assert st.players[BLUE].available == 5
    tile(st, 9, "wood_sawmill", RED)
    for seat in range(4):
        holding(st, seat, deniers=10, pp=0)

    do(st, ORANGE, cmd.Pass())
    do(st, GREEN, cmd.PlaceWorker(target="inn"))
    assert d(st, GREEN) == 8  # pays 2: the left circle
    do(st, BLUE, cmd.PlaceWorker(target="trading_post"))
    assert d(st, BLUE) == 9  # the inn's holder pays 1
    do(st, RED, cmd.Pass())
    do(st, GREEN, cmd.Pass())
    assert len(st.passing) == 3
    do(st, BLUE, cmd.PlaceWorker(target=9))
    assert d(st, BLUE) == 8 and pp(st, RED) == 1  # pays 1 with three passed
    events = do(st, BLUE, cmd.Pass())
    inn = of_type(events, ev.InnResolved)[0]
    assert (inn.moved, inn.returned) == (GREEN, BLUE)
    assert st.inn_right == GREEN and st.inn_left == -1

    run_until(st, lambda s: s.turn == 2 and s.phase == 2)
    assert st.players[GREEN].available == 5
    do(st, ORANGE, cmd.Pass())
    before = d(st, GREEN)
    do(st, GREEN, cmd.PlaceWorker(target="gate"))
    assert d(st, GREEN) == before - 1  # 1 for every placement while holding the inn
    run_until(st, lambda s: s.phase == 3 and GAME.awaiting(s) == [GREEN] and s.gate < 0)
    assert GAME.legal_commands(st, GREEN) == [cmd.InnChoice(stay=True), cmd.InnChoice(stay=False)]
    do(st, GREEN, cmd.InnChoice(stay=False))
    assert st.inn_right == -1 and st.players[GREEN].available == 6


# --- E4 -------------------------------------------------------------------------------------


def test_e4_provost() -> None:
    st = new_state(order=[BLUE, GREEN, ORANGE, RED])
    tile(st, 11, "wood_quarry", GREEN)
    tile(st, 12, "wood_sawmill", BLUE)
    worker(st, ORANGE, 11)
    worker(st, RED, 12)
    holding(st, BLUE, pp=1)  # gained when Red placed on the sawmill
    for seat in range(4):
        holding(st, seat, deniers=5, cubes="")
    st.passing = [BLUE, ORANGE, RED, GREEN]
    enter(st, 4)
    st.provost = 12
    do(st, BLUE, cmd.ProvostMove(delta=0))
    do(st, ORANGE, cmd.ProvostMove(delta=-2))
    assert d(st, ORANGE) == 3 and st.provost == 10
    do(st, RED, cmd.ProvostMove(delta=2))
    assert d(st, RED) == 3 and st.provost == 12
    events = do(st, GREEN, cmd.ProvostMove(delta=-1))
    paid = [e for e in events if isinstance(e, ev.ResourcesChanged) and e.reason == "provost"]
    assert [(e.seat, e.deniers) for e in paid] == [(GREEN, -1)]
    activated = of_type(events, ev.Activated)
    assert [a.space for a in activated] == [11]
    assert st.players[ORANGE].cubes[2] == 2  # 2 S at the quarry on 11
    assert of_type(events, ev.SweepEnded)[0].returned == [12]
    assert st.players[RED].cubes == [0, 0, 0, 0, 0] and pp(st, BLUE) >= 0
    assert of_type(events, ev.BailiffMoved)[0].bailiff == 8  # provost 11 was beyond 6: +2


# --- E5 -------------------------------------------------------------------------------------


def _e5_given():
    st = new_state(order=[RED, BLUE, ORANGE, GREEN])
    for seat in range(4):
        holding(st, seat, deniers=0, cubes="", pp=0)
    holding(st, ORANGE, pp=1)
    holding(st, RED, cubes="FWS")
    holding(st, GREEN, cubes="FFWWSC")
    st.sections[0] = [RED, BLUE, BLUE, BLUE]
    worker(st, RED, "castle")
    worker(st, GREEN, "castle")
    st.bailiff = st.provost = 9
    st.players[RED].markers[0] = 2
    st.players[GREEN].markers[1] = 1
    enter(st, 6)
    return st


def test_e5_castle_best_builder_and_dungeon() -> None:
    st = _e5_given()
    assert GAME.awaiting(st) == [RED]
    do(st, RED, cmd.CastleBatch(batch="FWS"))
    assert pp(st, RED) == 5 and len(st.sections[0]) == 5
    assert GAME.awaiting(st) == [GREEN]  # Red's "done" was automatic (no batch left)
    do(st, GREEN, cmd.CastleBatch(batch="FWS"))
    do(st, GREEN, cmd.CastleBatch(batch="FWC"))
    assert pp(st, GREEN) == 9 and st.sections[0][-1] == GREEN and st.sections[1] == [GREEN]
    # best builder: Green, 1 favour, row b 1 -> 2: +4 d
    assert GAME.awaiting(st) == [GREEN] and st.players[GREEN].pending_favours == 1
    do(st, GREEN, cmd.Favour(row="b", column=2))
    assert d(st, GREEN) == 4 and st.players[GREEN].markers[1] == 2
    # phase 7: bailiff 9 -> 10, dungeon full -> scored with cap 2; Red first
    assert (st.bailiff, st.provost) == (10, 10)
    assert st.scoring == 0 and GAME.awaiting(st) == [RED]
    assert cmd.Favour(row="a", column=2) in GAME.legal_commands(st, RED)
    do(st, RED, cmd.Favour(row="a", column=2))
    assert st.players[RED].markers[0] == 2 and pp(st, RED) == 7
    assert GAME.awaiting(st) == [BLUE]
    events = do(st, BLUE, cmd.Favour(row="c", column=1))
    assert st.players[BLUE].markers[2] == 1 and st.players[BLUE].cubes[0] == 1
    scored = {e.seat: e for e in of_type(events, ev.SectionScored)}
    assert scored[ORANGE].houses == 0 and pp(st, ORANGE) == 0
    assert scored[GREEN].houses == 1 and scored[GREEN].favours == 0 and pp(st, GREEN) == 9
    assert st.scored == [True, False, False] and st.cap() == 4
    assert rules.batch_section(st) == 1  # current section: walls


def test_e5_variant_tie_goes_to_castle_space_one() -> None:
    st = _e5_given()
    do(st, RED, cmd.CastleBatch(batch="FWS"))
    do(st, GREEN, cmd.CastleBatch(batch="FWS"))
    events = do(st, GREEN, cmd.CastleDone())
    assert of_type(events, ev.CastleResolved)[0].best_builder == RED
    assert GAME.awaiting(st) == [RED] and st.players[RED].pending_favours == 1
    assert len(st.sections[0]) == 6
    do(st, RED, cmd.Favour(row="b", column=1))
    assert st.scoring == 0  # the full dungeon is scored


# --- E6 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("already_scored", [False, True])
def test_e6_bailiff_two_spaces_reaches_trigger(already_scored: bool) -> None:
    st = new_state()
    st.bailiff, st.provost = 10, 11
    st.scored[0] = already_scored
    enter(st, 7)
    events = settle(st)
    moved = of_type(events, ev.BailiffMoved)[0]
    assert (moved.bailiff, moved.provost) == (12, 12)
    started = of_type(events, ev.SectionScoringStarted)
    assert [e.section for e in started] == ([] if already_scored else [0])


# --- E7 -------------------------------------------------------------------------------------


def test_e7a_church_favour_with_cap_5() -> None:
    st = new_state()
    st.scored = [True, True, False]
    tile(st, 9, "mason", GREEN)
    worker(st, BLUE, 9)
    holding(st, BLUE, cubes="SC", pp=0)
    st.players[BLUE].markers[2] = 2
    enter(st, 5)
    st.provost = 9
    settle(st)
    assert GAME.awaiting(st) == [BLUE]
    do(st, BLUE, cmd.Build(tile="church"))
    assert st.tiles[10] == "church" and st.owners[10] == BLUE
    assert pp(st, BLUE) == 3 and st.players[BLUE].cubes == [0, 0, 0, 0, 0]
    assert GAME.awaiting(st) == [BLUE] and st.players[BLUE].pending_favours == 1
    do(st, BLUE, cmd.Favour(row="c", column=1))
    assert st.players[BLUE].markers[2] == 3 and st.players[BLUE].cubes[0] == 1


def test_e7b_joust_then_stone_building_by_favour() -> None:
    st = new_state()
    st.scored = [True, False, False]
    worker(st, GREEN, "joust_field")
    holding(st, GREEN, deniers=3, cubes="FC", pp=0)
    st.players[GREEN].markers[3] = 2
    enter(st, 3)
    settle(st)
    assert GAME.awaiting(st) == [GREEN]
    do(st, GREEN, cmd.Joust(accept=True))
    assert d(st, GREEN) == 2 and st.players[GREEN].cubes == [1, 0, 0, 0, 0]
    assert cmd.Favour(row="d", column=3, tile="park") in GAME.legal_commands(st, GREEN)
    do(st, GREEN, cmd.Favour(row="d", column=3, tile="park"))
    assert st.players[GREEN].markers[3] == 3
    assert st.tiles[9] == "park" and st.owners[9] == GREEN  # lowest empty site
    assert st.players[GREEN].cubes == [0, 0, 0, 0, 0] and pp(st, GREEN) == 3


def test_e7c_walls_scoring_two_favours_different_rows() -> None:
    st = new_state(order=[GREEN, BLUE, ORANGE, RED])
    st.scored = [True, False, False]
    st.sections[1] = [GREEN, GREEN, GREEN]
    st.bailiff = st.provost = 18
    holding(st, GREEN, deniers=0, cubes="G", pp=0)
    st.players[GREEN].markers[1] = 3
    st.players[GREEN].markers[2] = 3
    enter(st, 7, stage=1)
    settle(st)
    assert st.scoring == 1 and GAME.awaiting(st) == [GREEN]
    assert st.players[GREEN].pending_favours == 2 and st.cap() == 4
    do(st, GREEN, cmd.Favour(row="b", column=4))
    assert d(st, GREEN) == 6 and st.players[GREEN].markers[1] == 4
    with pytest.raises(RuleError) as info:
        GAME.decide(st, GREEN, cmd.Favour(row="b", column=4), random.Random(0))
    assert info.value.code == "illegal_move.row_used"
    do(st, GREEN, cmd.Favour(row="c", column=4, give="G", take=["S", "C"]))
    assert st.players[GREEN].markers[2] == 4
    assert st.players[GREEN].cubes == [0, 0, 1, 1, 0]


def test_e7d_statue_by_favour_and_its_favour_on_another_row() -> None:
    st = new_state()
    st.scored = [True, True, False]
    tile(st, 3, "residence", RED)
    worker(st, RED, "joust_field")
    holding(st, RED, deniers=1, cubes="SSGC", pp=0)
    st.players[RED].markers[3] = 4
    enter(st, 3)
    settle(st)
    do(st, RED, cmd.Joust(accept=True))
    do(st, RED, cmd.Favour(row="d", column=5, tile="statue", residence_space=3))
    assert st.players[RED].markers[3] == 5
    assert st.tiles[3] == "statue" and st.owners[3] == RED
    assert st.players[RED].cubes == [0, 0, 0, 0, 0] and pp(st, RED) == 7
    assert st.players[RED].pending_favours == 1
    rows = {c.row for c in GAME.legal_commands(st, RED)}
    assert rows == {"a", "b", "c"}


def test_e7e_row_at_five_still_pays() -> None:
    st = new_state()
    st.scored = [True, True, False]
    worker(st, BLUE, "joust_field")
    holding(st, BLUE, deniers=1, cubes="C", pp=0)
    st.players[BLUE].markers[0] = 5
    enter(st, 3)
    settle(st)
    do(st, BLUE, cmd.Joust(accept=True))
    do(st, BLUE, cmd.Favour(row="a", column=5))
    assert st.players[BLUE].markers[0] == 5 and pp(st, BLUE) == 5


# --- E8 -------------------------------------------------------------------------------------


def test_e8_architect_builds_statue_over_residence() -> None:
    st = new_state(order=[ORANGE, GREEN, BLUE, RED])
    tile(st, 15, "architect", BLUE)
    tile(st, 4, "residence", GREEN)
    for seat in range(4):
        holding(st, seat, deniers=5, cubes="", pp=0)
    holding(st, GREEN, cubes="SSG")
    do(st, ORANGE, cmd.Pass())
    do(st, GREEN, cmd.PlaceWorker(target=15))
    assert d(st, GREEN) == 3 and pp(st, BLUE) == 1
    assert rules.income(st, GREEN) == 3
    st.provost = 15
    run_until(st, lambda s: s.phase == 5 and GAME.awaiting(s) == [GREEN])
    assert cmd.BuildPrestige(tile="statue", residence_space=4) in GAME.legal_commands(st, GREEN)
    do(st, GREEN, cmd.BuildPrestige(tile="statue", residence_space=4))
    assert st.tiles[4] == "statue" and st.owners[4] == GREEN
    assert st.players[GREEN].cubes == [0, 0, 0, 0, 0] and pp(st, GREEN) == 7
    assert st.players[GREEN].pending_favours == 1
    assert rules.income(st, GREEN) == 2


# --- E9 -------------------------------------------------------------------------------------


def _e9_given(provost: int):
    st = new_state()
    tile(st, 11, "lawyer", BLUE)
    tile(st, 13, "wood_sawmill", BLUE)
    neutral_on(st, 3, "neutral_quarry")
    worker(st, RED, 13)
    worker(st, BLUE, 11)
    holding(st, BLUE, deniers=5, cubes="C", pp=0)
    holding(st, RED, cubes="", pp=0)
    enter(st, 5)
    st.provost = provost
    settle(st)
    assert GAME.awaiting(st) == [BLUE]
    return st


def test_e9a_lawyer_on_neutral_tile() -> None:
    st = _e9_given(13)
    assert rules.income(st, BLUE) == 2
    events = do(st, BLUE, cmd.Transform(target_space=3))
    assert st.tiles[3] == "residence" and st.owners[3] == BLUE
    paid = [e for e in events if isinstance(e, ev.ResourcesChanged) and e.reason == "lawyer"]
    assert [(e.deniers, e.cloth) for e in paid] == [(-1, -1)]
    assert pp(st, BLUE) == 2 and st.players[BLUE].cubes[3] == 0
    assert "neutral_quarry" not in st.tiles and "neutral_quarry" not in st.stock
    assert rules.income(st, BLUE) == 3
    assert st.players[RED].cubes[1] == 2  # the sweep went on: Red's 2 W on 13


def test_e9b_lawyer_on_occupied_own_building() -> None:
    st = _e9_given(13)
    events = do(st, BLUE, cmd.Transform(target_space=13))
    kinds = [type(e) for e in events if not isinstance(e, ev.ResourcesChanged)]
    i = kinds.index(ev.TransformationScheduled)
    assert kinds[i + 1 : i + 5] == [
        ev.WorkerReturned,  # Blue's lawyer worker
        ev.Activated,  # Red at 13: 2 W
        ev.WorkerReturned,
        ev.Transformed,
    ]
    paid = [e for e in events if isinstance(e, ev.ResourcesChanged) and e.reason == "lawyer"]
    assert [(e.deniers, e.cloth) for e in paid] == [(-1, -1)]  # paid at once
    assert st.players[BLUE].cubes[3] == 0
    assert st.players[RED].cubes[1] == 2
    assert st.tiles[13] == "residence" and st.owners[13] == BLUE and pp(st, BLUE) == 2
    assert "wood_sawmill" in st.stock


def test_e9b_variant_target_beyond_the_provost() -> None:
    st = _e9_given(12)
    events = do(st, BLUE, cmd.Transform(target_space=13))
    assert of_type(events, ev.SweepEnded)[0].returned == [13]
    kinds = [type(e) for e in events if not isinstance(e, ev.ResourcesChanged)]
    assert kinds.index(ev.Transformed) == kinds.index(ev.SweepEnded) + 1
    assert st.players[RED].cubes == [0, 0, 0, 0, 0]
    assert st.tiles[13] == "residence" and pp(st, BLUE) == 2


# --- E10 ------------------------------------------------------------------------------------


def test_e10_end_bonuses_and_shared_win() -> None:
    st = new_state(seats=2, order=[0, 1])
    blue, red = 0, 1
    st.scored = [True, True, False]
    st.sections[2] = [blue, red]
    st.bailiff = st.provost = 24
    holding(st, blue, pp=60, cubes="GGFFFWWCC", deniers=13)
    holding(st, red, pp=67, cubes="FFFWWWSSS", deniers=7)
    enter(st, 7, stage=1)
    events = settle(st)
    assert of_type(events, ev.GameEnded)[0].scores == [71, 71]
    result = GAME.result(st)
    assert result is not None and result.scores == [71, 71] and result.ranks == [1, 1]
    assert GAME.awaiting(st) == []


# --- E11 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("inn", [False, True])
def test_e11_two_player_costs(inn: bool) -> None:
    a, b = 0, 1
    st = new_state(seats=2, order=[a, b])
    tile(st, 9, "wood_quarry", b)
    holding(st, a, deniers=5)
    holding(st, b, deniers=20)
    if inn:
        worker(st, b, "inn")
        st.inn_left, st.inn_right = -1, b
    do(st, a, cmd.Pass())
    assert d(st, a) == 6
    do(st, b, cmd.PlaceWorker(target=1))
    do(st, b, cmd.PlaceWorker(target="castle"))
    do(st, b, cmd.PlaceWorker(target=9))
    assert d(st, b) == (17 if inn else 13)
    assert "stables" not in [c.target for c in GAME.legal_commands(st, b) if hasattr(c, "target")]
    run_until(st, lambda s: s.turn == 2 and s.phase == 2)
    assert st.order == [b, a] and GAME.awaiting(st) == [b]


# --- E12 ------------------------------------------------------------------------------------


def test_e12_stone_production_owner_bonus() -> None:
    st = new_state(order=[GREEN, BLUE, ORANGE, RED])
    tile(st, 9, "workshop", BLUE)
    for seat in range(4):
        holding(st, seat, deniers=5, cubes="", pp=0)
    do(st, GREEN, cmd.PlaceWorker(target=9))
    assert d(st, GREEN) == 4 and pp(st, BLUE) == 1
    st.provost = 9
    run_until(st, lambda s: s.phase == 5 and rules.decision(s) == (BLUE, "owner_bonus"))
    assert st.players[GREEN].cubes == [0, 0, 2, 1, 0]
    assert GAME.legal_commands(st, BLUE) == [cmd.OwnerBonus(cube="S"), cmd.OwnerBonus(cube="C")]
    do(st, BLUE, cmd.OwnerBonus(cube="C"))
    assert st.players[BLUE].cubes == [0, 0, 0, 1, 0]


def test_e12_own_workshop_has_no_extra_cube() -> None:
    st = new_state()
    tile(st, 9, "workshop", BLUE)
    worker(st, BLUE, 9)
    holding(st, BLUE, cubes="")
    enter(st, 5)
    st.provost = 9
    events = settle(st)
    assert st.players[BLUE].cubes == [0, 0, 2, 1, 0]
    assert of_type(events, ev.OwnerBonusTaken) == []


# --- E13 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "towers_full,cubes,pp_before,pp_after",
    [(False, "FWW", 1, 0), (True, "FSC", 1, 1), (True, "FWW", 3, 1)],
)
def test_e13_castle_penalty(towers_full: bool, cubes: str, pp_before: int, pp_after: int) -> None:
    st = new_state()
    if towers_full:
        st.scored = [True, True, False]
        st.sections[2] = [BLUE] * 14
    worker(st, ORANGE, "castle")
    holding(st, ORANGE, cubes=cubes, pp=pp_before)
    enter(st, 6)
    events = settle(st)
    done = of_type(events, ev.CastleDone)[0]
    assert done.auto and done.seat == ORANGE
    i = events.index(done)
    penalty = [
        e for e in events[i:] if isinstance(e, ev.ResourcesChanged) and e.reason == "castle_penalty"
    ]
    assert sum(e.prestige for e in penalty) == pp_after - pp_before
    if towers_full and pp_after == pp_before:
        assert (
            sum(
                1
                for e in events
                if isinstance(e, ev.ResourcesChanged)
                and e.seat == ORANGE
                and (e.food or e.stone or e.cloth)
            )
            == 0
        )  # cubes kept


# --- E14 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prestige,income", [("library", 5), ("hotel", 6)])
def test_e14_income(prestige: str, income: int) -> None:
    st = new_state()
    tile(st, 9, "residence", BLUE)
    tile(st, 10, "residence", BLUE)
    tile(st, 11, prestige, BLUE)
    assert rules.income(st, BLUE) == income
    before = d(st, BLUE)
    events = run_until(st, lambda s: s.turn == 2 and s.phase == 2)
    paid = [e for e in events if isinstance(e, ev.ResourcesChanged) and e.reason == "income"]
    assert {e.seat: e.deniers for e in paid}[BLUE] == income
    assert d(st, BLUE) >= before


# --- E15 ------------------------------------------------------------------------------------


def test_e15_gate() -> None:
    st = new_state()
    tile(st, 10, "wood_sawmill", BLUE)
    worker(st, RED, "gate")
    holding(st, RED, deniers=3, cubes="")
    holding(st, BLUE, pp=0)
    enter(st, 3)
    st.provost = 10
    settle(st)
    assert GAME.awaiting(st) == [RED]
    assert cmd.GateMove(target="gate") not in GAME.legal_commands(st, RED)
    do(st, RED, cmd.GateMove(target=10))
    assert st.workers[10] == RED and pp(st, BLUE) == 1 and d(st, RED) == 3
    run_until(st, lambda s: s.phase >= 6 or s.turn > 1)
    assert st.players[RED].cubes[1] == 2

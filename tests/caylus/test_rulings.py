"""Rulings and options not covered by the worked examples."""

from __future__ import annotations

import pytest

from domain.caylus import GAME, rules
from domain.caylus import commands as cmd
from domain.caylus import events as ev
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
    settle,
    tile,
    worker,
)


def test_simplified_favours_are_three_pp_and_never_a_decision() -> None:
    st = new_state(favours="simplified")
    worker(st, GREEN, "joust_field")
    holding(st, GREEN, deniers=2, cubes="C", pp=0)
    enter(st, 3)
    settle(st)
    do(st, GREEN, cmd.Joust(accept=True))
    assert st.players[GREEN].pp == 3 and st.players[GREEN].pending_favours == 0
    assert st.players[GREEN].markers == [0, 0, 0, 0]


def test_simplified_best_builder_and_scoring_favours() -> None:
    st = new_state(favours="simplified", order=[RED, BLUE, ORANGE, GREEN])
    for seat in range(4):
        holding(st, seat, cubes="", pp=0)
    holding(st, RED, cubes="FWSFWC")
    st.sections[0] = [RED, RED, RED, RED]
    worker(st, RED, "castle")
    enter(st, 6)
    settle(st)
    do(st, RED, cmd.CastleBatch(batch="FWS"))
    events = do(st, RED, cmd.CastleBatch(batch="FWC"))
    # 5 + 5 for the batches, +3 best builder; the full dungeon: 6 houses -> 1 favour = +3
    gained = [e for e in events if isinstance(e, ev.FavoursGained)]
    assert [e.reason for e in gained] == ["best_builder", "dungeon"]
    assert st.players[RED].pp == 5 + 5 + 3 + 3
    assert all(GAME.legal_commands(st, s) == [] or st.phase == 2 for s in range(4))


@pytest.mark.parametrize("lawyer_prestige", [3, 4])
def test_lawyer_prestige_option(lawyer_prestige: int) -> None:
    st = new_state(lawyer_prestige=lawyer_prestige)
    worker(st, BLUE, 8)  # fixed carpenter
    holding(st, BLUE, cubes="WC", pp=0)
    enter(st, 5)
    st.provost = 8
    settle(st)
    do(st, BLUE, cmd.Build(tile="lawyer"))
    assert st.tiles[9] == "lawyer" and st.players[BLUE].pp == lawyer_prestige


@pytest.mark.parametrize("jeweller", [False, True])
def test_jeweller_option(jeweller: bool) -> None:
    st = new_state(jeweller=jeweller)
    assert ("jeweller" in st.stock) is jeweller


def test_wood_x_cost_may_be_gold_and_is_named() -> None:
    st = new_state()
    worker(st, BLUE, 8)
    holding(st, BLUE, cubes="WG", pp=0)
    enter(st, 5)
    st.provost = 8
    settle(st)
    legal = GAME.legal_commands(st, BLUE)
    assert cmd.Build(tile="wood_peddler", any_cube="G") in legal
    assert cmd.Build(tile="wood_farm_food") not in legal  # no food
    do(st, BLUE, cmd.Build(tile="wood_peddler", any_cube="G"))
    assert st.players[BLUE].cubes == [0, 0, 0, 0, 0] and st.players[BLUE].pp == 4


def test_r4_r6_gold_rules() -> None:
    st = new_state()
    st.scored = [True, False, False]
    tile(st, 9, "wood_peddler", RED)
    worker(st, BLUE, 9)
    holding(st, BLUE, deniers=5, cubes="G")
    enter(st, 5)
    st.provost = 9
    settle(st)
    bought = {tuple(c.cubes) for c in GAME.legal_commands(st, BLUE)}
    assert all("G" not in c for c in bought) and ("C", "C") in bought  # R6


def test_favour_lost_when_every_row_is_used() -> None:
    st = new_state()
    worker(st, GREEN, "joust_field")
    holding(st, GREEN, deniers=2, cubes="C")
    enter(st, 3)
    settle(st)
    do(st, GREEN, cmd.Joust(accept=True))
    st.players[GREEN].pending_favours += 4  # 5 favours to resolve in this phase
    for row, col in (("a", 1), ("b", 1), ("c", 0), ("d", 0)):
        assert st.players[GREEN].pending_favours > 1
        events = do(st, GREEN, cmd.Favour(row=row, column=col))
    assert of_type(events, ev.FavourLost) == [ev.FavourLost(seat=GREEN)]
    assert st.players[GREEN].pending_favours == 0


def test_transformation_by_joust_favour_waits_for_phase_5() -> None:
    st = new_state()
    st.scored = [True, False, False]
    neutral_on(st, 2, "neutral_sawmill")
    worker(st, RED, 2)
    worker(st, GREEN, "joust_field")
    holding(st, GREEN, deniers=2, cubes="CC", pp=0)
    holding(st, RED, cubes="")
    st.players[GREEN].markers[3] = 3
    enter(st, 3)
    settle(st)
    do(st, GREEN, cmd.Joust(accept=True))
    events = do(st, GREEN, cmd.Favour(row="d", column=4, target_space=2))
    assert of_type(events, ev.TransformationScheduled) == [
        ev.TransformationScheduled(seat=GREEN, space=2)
    ]
    assert st.players[GREEN].cubes[3] == 0 and st.tiles[2] == "neutral_sawmill"
    assert st.players[GREEN].pp == 0
    # phase 4 then 5: Red's worker on 2 takes its wood, then the swap
    while st.turn == 1 and 3 <= st.phase <= 5:
        seat = GAME.awaiting(st)[0]
        do(st, seat, cmd.ProvostMove(delta=0))
    assert st.players[RED].cubes[1] == 1
    assert st.tiles[2] == "residence" and st.owners[2] == GREEN and st.players[GREEN].pp == 2


def test_r25_inn_holder_takes_the_left_circle_and_keeps_the_inn() -> None:
    st = new_state(order=[BLUE, GREEN, ORANGE, RED])
    worker(st, BLUE, "inn")
    st.inn_left, st.inn_right = -1, BLUE
    holding(st, BLUE, deniers=5)
    do(st, BLUE, cmd.PlaceWorker(target="inn"))
    assert st.players[BLUE].deniers == 4 and st.inn_left == BLUE
    for seat in (GREEN, ORANGE, RED, BLUE):
        do(st, seat, cmd.Pass())
    assert st.inn_right == BLUE and st.inn_left == -1
    assert st.players[BLUE].available == 5


def test_r20_overflow_into_towers() -> None:
    st = new_state()
    st.scored = [True, False, False]
    st.sections[1] = [RED] * 10
    worker(st, BLUE, "castle")
    holding(st, BLUE, cubes="FWS")
    enter(st, 6)
    settle(st)
    events = do(st, BLUE, cmd.CastleBatch(batch="FWS"))
    assert of_type(events, ev.BatchDelivered)[0].section == 2
    assert st.sections[2][0] == BLUE


def test_provost_and_guild_limits() -> None:
    st = new_state()
    worker(st, BLUE, "merchants_guild")
    enter(st, 3)
    st.provost = 27
    settle(st)
    deltas = [c.delta for c in GAME.legal_commands(st, BLUE)]
    assert deltas == [-3, -2, -1, 0, 1]  # R17, R18: stays on 1..28


def test_two_player_game_has_no_stables_and_alternates() -> None:
    st = new_state(seats=2, order=[1, 0])
    targets = [c.target for c in GAME.legal_commands(st, 1) if isinstance(c, cmd.PlaceWorker)]
    assert "stables" not in targets and "castle" in targets
    assert rules.placement_cost(st, 1, "castle") == 1

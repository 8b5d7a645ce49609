"""Worked examples of the Santa Maria rules (docs/games/santa-maria.md) as given/when/then
scenarios, with the exact numbers."""

from __future__ import annotations

import random

import pytest

from domain.contract import RuleError
from domain.santa_maria import GAME
from domain.santa_maria import commands as cmd
from domain.santa_maria import events as ev
from domain.santa_maria.scoring import result
from tests.santa_maria.helpers import cell, given, when


def test_e1_white_die_with_a_change() -> None:
    s = given(["hacienda", "puerto"])
    anna = s.players[0]
    anna.coins, anna.res["wood"], anna.conquistador = 5, 2, 2
    s.white_pool = [1, 2, 5, 5, 6, 6]
    s.docks[0] = "SO1"
    s.ship_stack.remove("SW17")
    s.ship_stack.insert(0, "SW17")

    events = when(s, 0, cmd.ActivateDie(die="white", face=5, value=3))

    assert anna.coins == 3
    assert s.white_pool == [1, 2, 5, 6, 6] and anna.white_taken == 1
    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[2, 3], [5, 3]] and die.cost == 2
    assert anna.die_on[cell(5, 3)] == 1 and anna.die_on[cell(2, 3)] == 0
    assert anna.conquistador == 3 and anna.res["gold"] == 1 and anna.conq_acted
    assert s.pending is not None and s.pending.kind == "ship"
    assert cmd.Ship(dock=1, gold_for=["grain"]) in GAME.legal_commands(s, 0)

    events = when(s, 0, cmd.Ship(dock=1, gold_for=["grain"]))

    assert anna.res["wood"] == 1 and anna.res["gold"] == 0
    assert anna.port[0] == ["SO1"]
    assert s.docks[0] == "SW17"
    assert ev.DockRefilled(dock=1, tile="SW17") in events
    assert s.pending is None and s.main_done


def test_e1_declined_ship_keeps_the_die() -> None:
    s = given(["hacienda", "puerto"])
    s.players[0].coins = 5
    s.white_pool = [1, 2, 5, 5, 6, 6]
    when(s, 0, cmd.ActivateDie(die="white", face=5, value=3))
    when(s, 0, cmd.Decline())
    assert s.players[0].die_on[cell(5, 3)] == 1


def test_e2_blue_die_on_a_row() -> None:
    s = given(["puerto", "hacienda"], active=1)
    ben = s.players[1]
    ben.blue[0], ben.coins = 3, 1

    events = when(s, 1, cmd.ActivateDie(die="blue", index=1, value=3))

    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[3, 2], [3, 5]] and die.cost == 0
    assert ben.die_on[cell(3, 5)] == 2
    assert ben.res["grain"] == 1
    assert s.pending is not None and s.pending.kind == "trade"
    when(s, 1, cmd.Trade(pay="grain", gain="coins"))
    assert ben.res["grain"] == 0 and ben.coins == 4


def test_e2_variant_skips_a_coin_activated_building() -> None:
    s = given(["puerto", "hacienda"], active=1)
    ben = s.players[1]
    ben.blue[0] = 3
    ben.coins_on[cell(3, 5)] = 1
    ben.coin_activations, ben.coins_paid = 1, 1
    events = when(s, 1, cmd.ActivateDie(die="blue", index=1, value=3))
    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[3, 2]]
    assert ben.die_on[cell(3, 2)] == 2


def _turn(s, seat: int, command) -> None:  # type: ignore[no-untyped-def]
    when(s, seat, command)
    if s.pending is not None and s.pending.kind == "religion":
        when(s, seat, cmd.Religion(extra=0))
    while s.pending is not None:
        when(s, seat, cmd.Decline())
    when(s, seat, cmd.EndTurn())


@pytest.mark.parametrize("treasurer", [False, True])
def test_e3_coin_activations_cost_1_2_3(treasurer: bool) -> None:
    s = given(["mision", "hacienda"], year=2)
    carla = s.players[0]
    carla.coins = 10
    if treasurer:
        carla.scholars.append("SC03")
    when(s, 0, cmd.ActivateBuilding(row=4, col=5))
    assert carla.coins == 10  # 10 - 1 + 1
    when(s, 0, cmd.Religion(extra=0))
    while s.pending is not None:
        when(s, 0, cmd.Decline())
    when(s, 0, cmd.EndTurn())
    # Dan retires so that every later turn is Carla's.
    _turn(s, 1, cmd.Retire(space="RS4"))
    assert s.active == 0
    _turn(s, 0, cmd.ActivateBuilding(row=3, col=4))
    assert carla.coins == (9 if treasurer else 8)
    _turn(s, 0, cmd.ActivateBuilding(row=6, col=1))
    if treasurer:
        assert sum(carla.coins_on) == 4 and carla.coins == 10 - 4 + 1 + 2
        return
    assert carla.coins == 7
    assert sum(carla.coins_on) == 6 and carla.coins_paid == 6
    carla.blue[0] = 6
    events = when(s, 0, cmd.ActivateDie(die="blue", index=1, value=6))
    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[6, 5]]
    assert carla.die_on[cell(6, 5)] == 2
    when(s, 0, cmd.Decline())
    when(s, 0, cmd.EndTurn())
    _turn(s, 0, cmd.Retire(space="RS1"))  # the year ends
    assert s.year == 3
    assert sum(carla.coins_on) == 0 and carla.coin_activations == 0
    from domain.santa_maria.rules import coin_activation_price

    assert coin_activation_price(carla) == 1


@pytest.mark.parametrize(
    "scholar,wood,grain,coins", [(None, 3, 3, 2), ("SC04", 3, 3, 4), ("SC05", 5, 3, 0)]
)
def test_e4_storage_overflow(scholar: str | None, wood: int, grain: int, coins: int) -> None:
    s = given(["hacienda", "puerto"])
    dan = s.players[0]
    dan.res["wood"], dan.res["grain"], dan.coins, dan.blue[0] = 3, 2, 0, 1
    if scholar:
        dan.scholars.append(scholar)
    events = when(s, 0, cmd.ActivateDie(die="blue", index=1, value=1))
    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[1, 1], [1, 5]]
    assert dan.die_on[cell(1, 5)] == 2
    assert (dan.res["wood"], dan.res["grain"], dan.coins) == (wood, grain, coins)


def test_e5_religion_with_grain_unlock_and_mission() -> None:
    s = given(["mision", "hacienda"])
    carla = s.players[0]
    carla.religion, carla.res["grain"] = 1, 1
    carla.coins = 1  # the religion building costs 1 coin to activate
    when(s, 0, cmd.ActivateBuilding(row=3, col=4))  # RL
    assert s.pending is not None and s.pending.kind == "religion"
    events = when(s, 0, cmd.Religion(extra=1, gold=0), seed=5)
    assert carla.res["grain"] == 0 and carla.religion == 3
    unlock = next(e for e in events if isinstance(e, ev.BlueDieUnlocked))
    assert unlock.index == 2 and not unlock.locked
    assert len(carla.blue) == 2 and carla.blue[1] == unlock.value
    assert s.pending is not None and s.pending.kind == "recruit"
    assert cmd.Recruit(space="mission-4") in GAME.legal_commands(s, 0)
    points = carla.points
    when(s, 0, cmd.Recruit(space="mission-4"))
    assert carla.points == points + 3
    assert carla.religion == 3 and carla.res["grain"] == 0 and carla.monks_reserve == 5
    # The new die is usable on a later turn this year.
    when(s, 0, cmd.EndTurn())
    _turn(s, 1, cmd.Retire(space="RS4"))
    legal = GAME.legal_commands(s, 0)
    assert any(isinstance(c, cmd.ActivateDie) and c.index == 2 for c in legal)


def test_e6_paying_for_a_shared_monk_space() -> None:
    s = given(["hacienda", "puerto", "mision", "fortaleza"], active=3)
    anna, carla, dan = s.players[0], s.players[2], s.players[3]
    for seat in (0, 2):
        s.monks["bishop-2"].append(seat)
        s.players[seat].monks_reserve -= 1
        s.players[seat].symbols_entered = 1
        s.players[seat].bishops.append(s.bishops[1])
    # Dan is at religion 3 (symbol 2 passed, so 2 blue dice) and activates his RL for 1 coin.
    dan.religion, dan.symbols_entered = 3, 1
    dan.blue.append(1), dan.blue_used.append(False), dan.blue_locked.append(False)
    s.blue_supply -= 1
    dan.coins, dan.res["sugar"] = 3 + 1, 1
    when(s, 3, cmd.ActivateBuilding(row=3, col=6))  # fortaleza RL
    when(s, 3, cmd.Religion(extra=0))
    assert dan.religion == 4 and dan.coins == 3
    assert s.pending is not None and s.pending.kind == "recruit"
    assert cmd.Recruit(space="bishop-2") not in GAME.legal_commands(s, 3)
    with pytest.raises(RuleError) as err:
        GAME.decide(s, 3, cmd.Recruit(space="bishop-2"), random.Random(0))
    assert err.value.code == "illegal_move.cannot_afford"
    when(s, 3, cmd.Sell(resource="sugar", count=1))
    assert dan.coins == 5
    events = when(s, 3, cmd.Recruit(space="bishop-2"))
    assert ev.MonkRecruited(seat=3, space="bishop-2", payments=[[0, 2], [2, 2]]) in events
    assert dan.coins == 1 and anna.coins == 2 and carla.coins == 2
    assert dan.bishops == [s.bishops[1]]


def test_e7_retiring_and_ship_income() -> None:
    s = given(["hacienda", "puerto"])
    anna, ben = s.players
    # Ben is already on RS1.
    s.retire_spaces["RS1"] = 1
    s.retire_order = [1]
    ben.retired = True
    anna.coins, anna.res["grain"], anna.religion, anna.conquistador, anna.points = 2, 1, 5, 3, 4
    anna.blue.append(4), anna.blue_used.append(False), anna.blue_locked.append(False)
    s.blue_supply -= 1
    anna.symbols_entered = 2
    anna.port = [["SO1"], ["SW09"], [], ["SW03", "SW13"]]
    for t in ("SW09", "SW03", "SW13"):
        s.ship_stack.remove(t)
    s.docks[s.docks.index("SO1")] = s.ship_stack.pop(0)

    events = when(s, 0, cmd.Retire(space="RS3"))
    assert anna.conquistador == 4 and anna.conq_acted and anna.res["gold"] == 0
    assert anna.coins == 5
    assert s.pending is not None and s.pending.kind == "religion"
    events = when(s, 0, cmd.Religion(extra=1, gold=0))
    assert anna.res["grain"] == 0 and anna.religion == 7
    unlock = next(e for e in events if isinstance(e, ev.BlueDieUnlocked))
    assert unlock.locked and unlock.index == 3  # R29: usable only in year 2
    assert s.pending is not None and s.pending.kind == "recruit"
    events = when(s, 0, cmd.Decline())
    assert [e.amount for e in events if isinstance(e, ev.PointsScored)] == [2, 2]
    assert anna.points == 8
    assert s.pending is None
    events = when(s, 0, cmd.EndTurn())
    started = next(e for e in events if isinstance(e, ev.YearStarted))
    assert started.year == 2 and started.start_player == 1
    assert s.active == 1
    assert anna.blue_locked == [False, False, False]


def test_e8_conquistador_scoring() -> None:
    s = given(["hacienda", "puerto", "mision", "fortaleza"], year=2, active=3)
    a, b, c, d = s.players
    a.conquistador, a.conq_arrival, a.conq_acted = 7, 10, True
    b.conquistador, b.conq_arrival, b.conq_acted = 7, 11, True
    c.conquistador, c.conq_arrival, c.conq_acted = 9, 12, False
    d.conquistador, d.conq_arrival, d.conq_acted = 2, 13, True
    for seat, space in enumerate(("RS1", "RS2", "RS3", "RS4")):
        s.retire_spaces[space] = seat
        s.retire_order.append(seat)
        s.players[seat].retired = True
    s.main_done = True
    events = when(s, 3, cmd.EndTurn())
    scored = next(e for e in events if isinstance(e, ev.ConquistadorScored))
    assert scored.order == [2, 1, 0, 3]
    assert scored.points == [2, 4, 0, 0]


def test_e9_triple_tile_with_a_rotation() -> None:
    s = given(["hacienda", "puerto"])
    anna = s.players[0]
    anna.res["wood"], anna.res["gold"] = 2, 1
    if "TR04" not in s.display_triples:
        s.triple_stack.append(s.display_triples.pop())
        s.triple_stack.remove("TR04")
        s.display_triples.append("TR04")
    legal = GAME.legal_commands(s, 0)
    assert cmd.Expand(tile="TR04", cells=[[5, 4], [5, 5], [6, 4]], gold_for=["grain"]) in legal
    assert cmd.Expand(tile="TR04", cells=[[5, 5], [6, 5], [5, 4]], gold_for=["grain"]) in legal
    with pytest.raises(RuleError) as err:
        GAME.decide(
            s, 0, cmd.Expand(tile="TR04", cells=[[2, 4], [3, 4], [2, 3]], gold_for=["grain"]), None
        )
    assert err.value.code == "illegal_move.bad_placement"

    when(s, 0, cmd.Expand(tile="TR04", cells=[[5, 4], [5, 5], [6, 4]], gold_for=["grain"]))

    assert anna.res["wood"] == 0 and anna.res["gold"] == 0
    assert [anna.cells[cell(5, c)] for c in range(3, 7)] == ["SH", "W", "W", "W"]
    assert anna.cells[cell(6, 4)] == "G"
    assert "TR04" not in s.display_triples
    from domain.santa_maria.rules import line_buildings

    assert [i for i in line_buildings(anna, "blue", 5)] == [cell(5, c) for c in range(3, 7)]


def test_e10_religion_at_the_end_of_the_track() -> None:
    s = given(["mision", "hacienda"])
    carla = s.players[0]
    carla.scholars.append("SC07")
    carla.religion, carla.res["grain"], carla.coins = 14, 2, 1
    carla.symbols_entered = 5
    when(s, 0, cmd.ActivateBuilding(row=3, col=4))
    assert s.pending is not None and s.pending.max_extra == 2
    points = carla.points
    when(s, 0, cmd.Religion(extra=2, gold=0))
    assert carla.res["grain"] == 0 and carla.religion == 15
    assert carla.points == points + 2
    assert s.pending is not None and s.pending.kind == "recruit"


def test_e11_final_scoring_and_tie_break() -> None:
    s = given(["hacienda", "puerto"])
    anna, ben = s.players
    anna.points = 41
    anna.port = [["SO1"], ["SW09"], [], ["SW03", "SW13"]]
    anna.scholars = ["SC05"]
    anna.bishops = ["BI01"]
    ben.points = 60
    anna.coins, ben.coins = 3, 2
    s.phase = "over"
    res = result(s)
    assert res is not None
    assert res.details["players"][0] == {
        "points": 41,
        "ships": 10,
        "scholars": 3,
        "bishops": 6,
        "total": 60,
    }
    assert res.scores == [60, 60] and res.ranks == [1, 2]
    ben.coins = 3
    res = result(s)
    assert res is not None and res.ranks == [1, 1]
    ben.res["wood"] = 1
    res = result(s)
    assert res is not None and res.ranks == [2, 1]

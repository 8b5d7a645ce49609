"""Targeted rulings as given/when/then slices."""

from __future__ import annotations

import random

import pytest

from domain.contract import RuleError
from domain.santa_maria import GAME, data
from domain.santa_maria import commands as cmd
from domain.santa_maria import events as ev
from domain.santa_maria.scoring import bishop_score
from tests.santa_maria.helpers import cell, given, when


def refused(s, seat, command, code: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RuleError) as err:
        GAME.decide(s, seat, command, random.Random(0))
    assert err.value.code == f"illegal_move.{code}", err.value
    assert command not in GAME.legal_commands(s, seat)


def test_turn_structure_r11() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.coins, p.res["grain"] = 5, 1
    refused(s, 0, cmd.EndTurn(), "no_main_action_yet")
    refused(s, 1, cmd.Sell(resource="wood", count=1), "not_your_turn")
    refused(s, 0, cmd.Decline(), "wrong_phase")
    when(s, 0, cmd.ActivateBuilding(row=3, col=5))  # TG: trade decision
    refused(s, 0, cmd.EndTurn(), "decision_pending")
    refused(s, 0, cmd.ActivateBuilding(row=1, col=1), "decision_pending")
    when(s, 0, cmd.Sell(resource="grain", count=1))  # free action while pending
    assert s.pending is not None and p.coins == 5
    assert cmd.Trade(pay="grain", gain="coins") not in GAME.legal_commands(s, 0)
    when(s, 0, cmd.Decline())
    refused(s, 0, cmd.ActivateBuilding(row=1, col=1), "main_action_taken")
    assert cmd.EndTurn() in GAME.legal_commands(s, 0)
    when(s, 0, cmd.EndTurn())
    assert s.active == 1


def test_buy_and_sell_limits_r12() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.coins, p.res["wood"], p.res["gold"] = 9, 2, 1
    refused(s, 0, cmd.Buy(resource="wood", count=2), "storage_full")
    refused(s, 0, cmd.Buy(resource="sugar", count=1), "not_available")
    refused(s, 0, cmd.Buy(resource="grain", count=4), "cannot_afford")
    when(s, 0, cmd.Buy(resource="grain", count=3))
    assert p.coins == 0 and p.res["grain"] == 3
    when(s, 0, cmd.Sell(resource="gold", count=1))
    assert p.coins == 2
    p.scholars.append("SC04")
    when(s, 0, cmd.Sell(resource="wood", count=2))
    assert p.coins == 2 + 2 * 2


def test_roads_r16() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    when(s, 0, cmd.Retire(space="RS5"))
    assert s.pending is not None and s.pending.kind == "road"
    refused(s, 0, cmd.PlaceRoad(row=1, col=1), "bad_placement")
    when(s, 0, cmd.PlaceRoad(row=1, col=2))
    assert p.cells[cell(1, 2)] == "=" and s.road_stack == 2
    # With an empty road stack the space can still be chosen and nothing happens.
    s2 = given(["hacienda", "puerto"])
    s2.road_stack = 0
    events = when(s2, 0, cmd.Retire(space="RS5"))
    assert s2.pending is None and not any(isinstance(e, ev.DecisionOpened) for e in events)


def test_no_ship_decision_without_dock_tiles_r26_r37() -> None:
    s = given(["hacienda", "puerto"])
    s.ship_stack.extend(t for t in s.docks if t)
    s.docks = ["", "", "", ""]
    s.players[0].coins = 1
    events = when(s, 0, cmd.ActivateBuilding(row=5, col=3))  # SH
    assert s.pending is None
    assert not any(isinstance(e, ev.DecisionOpened) for e in events)


def test_ship_with_gold_and_navigator_coins() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    s.docks[1] = "SW13"  # sugar sugar gem, 4 points
    s.ship_stack.remove("SW13")
    p.coins, p.res["sugar"], p.res["gold"] = 3, 1, 1
    p.scholars.append("SC06")
    when(s, 0, cmd.ActivateBuilding(row=5, col=3))
    legal = GAME.legal_commands(s, 0)
    good = cmd.Ship(dock=2, gold_for=["gem"], coins_for="sugar")
    assert good in legal
    refused(s, 0, cmd.Ship(dock=2, gold_for=["gem"]), "cannot_afford")
    refused(s, 0, cmd.Ship(dock=2, gold_for=["wood"]), "bad_payment")
    refused(s, 0, cmd.Ship(dock=2, gold_for=["gem", "gem"], coins_for="sugar"), "bad_payment")
    top = s.ship_stack[0]
    when(s, 0, good)
    assert p.port[1] == ["SW13"] and s.docks[1] == top
    assert p.coins == 0 and p.res == {"wood": 0, "grain": 0, "sugar": 0, "gem": 0, "gold": 0}


def test_trade_luxury_with_gold_r32() -> None:
    s = given(["puerto", "hacienda"])
    p = s.players[0]
    p.coins, p.res["gold"] = 1, 1
    when(s, 0, cmd.ActivateBuilding(row=4, col=6))  # TL
    assert set(map(str, GAME.legal_commands(s, 0)[:2])) == {
        str(cmd.Trade(pay="gold", gain="points")),
        str(cmd.Trade(pay="gold", gain="coins")),
    }
    refused(s, 0, cmd.Trade(pay="grain", gain="points"), "bad_parameter")
    refused(s, 0, cmd.Trade(pay="sugar", gain="points"), "cannot_afford")
    when(s, 0, cmd.Trade(pay="gold", gain="points"))
    assert p.points == 2 and p.res["gold"] == 0


def test_captain_and_gold_symbols_r6() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.scholars.append("SC08")
    p.coins, p.conquistador = 1 + 2, 4
    when(s, 0, cmd.ActivateBuilding(row=2, col=3))  # CQ
    assert s.pending is not None and s.pending.kind == "conquistador"
    refused(s, 0, cmd.Decline(), "wrong_phase")
    when(s, 0, cmd.Conquistador(extra=1))
    assert p.conquistador == 6 and p.res["gold"] == 1 and p.coins == 0 and p.conq_acted
    # At the end of the track: steps lost, still flagged.
    s2 = given(["hacienda", "puerto"])
    q = s2.players[0]
    q.coins, q.conquistador = 1, 15
    events = when(s2, 0, cmd.ActivateBuilding(row=2, col=3))
    assert q.conquistador == 15 and q.conq_acted and q.points == 0
    adv = next(e for e in events if isinstance(e, ev.ConquistadorAdvanced))
    assert adv.from_space == adv.to_space == 15


def test_religion_with_gold_and_mission_rewards() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.coins, p.res["gold"], p.religion = 1, 1, 2
    p.blue.append(2), p.blue_used.append(False), p.blue_locked.append(False)
    s.blue_supply -= 1
    p.symbols_entered = 1
    when(s, 0, cmd.ActivateBuilding(row=4, col=4))  # RL
    refused(s, 0, cmd.Religion(extra=2, gold=0), "bad_parameter")
    refused(s, 0, cmd.Religion(extra=1, gold=0), "cannot_afford")
    when(s, 0, cmd.Religion(extra=1, gold=1))
    assert p.religion == 4 and p.res["gold"] == 0
    when(s, 0, cmd.Recruit(space="mission-3"))
    assert p.res["gold"] == 1 and p.coins == 2


def test_scholar_applies_at_once_r28() -> None:
    s = given(["mision", "hacienda"])
    p = s.players[0]
    s.scholars[0] = "SC05"
    p.coins, p.religion, p.res["grain"] = 1, 3, 3
    p.blue.append(2), p.blue_used.append(False), p.blue_locked.append(False)
    s.blue_supply -= 1
    p.symbols_entered = 1
    when(s, 0, cmd.ActivateBuilding(row=4, col=5))  # C1+RL: the coin comes first (R31)
    assert p.coins == 1
    when(s, 0, cmd.Religion(extra=0))
    when(s, 0, cmd.Recruit(space="scholar-1"))
    assert "SC05" in p.scholars
    refused(s, 0, cmd.Buy(resource="grain", count=3), "cannot_afford")
    p.coins = 6
    when(s, 0, cmd.Buy(resource="grain", count=2))
    assert p.res["grain"] == 5


def test_retire_income_order_r18() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.port = [["SO1", "SO2"], [], ["SO3"], ["SO4"]]
    for t in ("SO1", "SO2", "SO3", "SO4"):
        s.docks[s.docks.index(t)] = s.ship_stack.pop(0)
    events = when(s, 0, cmd.Retire(space="RS1"))
    started = [e.effect for e in events if isinstance(e, ev.EffectStarted)]
    assert started == ["C2", data.SHIPPING_INCOME, "C3", "C3", "CQ", "P2"]
    assert ev.ShippingIncomeQueued(seat=0, effects=["C3", "C3", "CQ", "P2"]) in events
    assert p.coins == 2 + 3 + 3 and p.conquistador == 1 and p.points == 2
    refused(s, 1, cmd.Retire(space="RS1"), "not_your_turn")
    when(s, 0, cmd.EndTurn())
    refused(s, 1, cmd.Retire(space="RS1"), "space_taken")


def _dock_first(s, tile: str) -> None:  # type: ignore[no-untyped-def]
    """Put `tile` at common dock 1 (swapping docks keeps every tile in one place)."""
    i = s.docks.index(tile)
    s.docks[0], s.docks[i] = s.docks[i], s.docks[0]


def test_rs4_ship_pays_its_own_income_in_the_same_retire() -> None:
    """the space's action runs first, then income is paid for every tile in port,
    so a tile shipped by RS4 pays its dock's income at once (the issue's repro)."""
    s = given(["hacienda", "puerto"])
    anna = s.players[0]
    anna.res["wood"], anna.res["grain"] = 1, 1
    _dock_first(s, "SO1")

    when(s, 0, cmd.Retire(space="RS4"))
    assert s.pending is not None and s.pending.kind == "ship" and anna.coins == 0
    events = when(s, 0, cmd.Ship(dock=1))

    assert anna.port[0] == ["SO1"] and anna.res["wood"] == anna.res["grain"] == 0
    assert ev.CoinsGained(seat=0, amount=3) in events
    when(s, 0, cmd.EndTurn())
    assert anna.coins == 3


def test_rs4_income_keeps_dock_order_with_the_new_tile() -> None:
    """R18: docks 1 to 4, so the tile RS4 ships to dock 1 pays before an older dock-4 tile."""
    s = given(["hacienda", "puerto"])
    anna = s.players[0]
    anna.res["wood"], anna.res["grain"] = 1, 1
    s.ship_stack.remove("SW03")
    anna.port[3] = ["SW03"]
    _dock_first(s, "SO1")

    when(s, 0, cmd.Retire(space="RS4"))
    events = when(s, 0, cmd.Ship(dock=1))

    gains = [e for e in events if isinstance(e, (ev.CoinsGained, ev.PointsScored))]
    assert gains == [
        ev.CoinsGained(seat=0, amount=3),
        ev.PointsScored(seat=0, amount=2, reason="effect"),
    ]
    assert anna.coins == 3 and anna.points == 2


def test_rs4_declined_pays_only_the_tiles_already_in_port() -> None:
    s = given(["hacienda", "puerto"])
    anna = s.players[0]
    s.ship_stack.remove("SW03")
    anna.port[3] = ["SW03"]

    when(s, 0, cmd.Retire(space="RS4"))
    when(s, 0, cmd.Decline())

    assert anna.coins == 0 and anna.points == 2 and s.pending is None and not s.queue


def test_alchemy_once_per_year() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.res["sugar"] = 1
    refused(s, 0, cmd.Alchemy(pay="sugar", gain="gem"), "not_available")
    p.scholars.append("SC10")
    refused(s, 0, cmd.Alchemy(pay="sugar", gain="sugar"), "bad_parameter")
    refused(s, 0, cmd.Alchemy(pay="gold", gain="gem"), "bad_parameter")
    when(s, 0, cmd.Alchemy(pay="sugar", gain="gem"))
    assert p.res["sugar"] == 0 and p.res["gem"] == 1
    refused(s, 0, cmd.Alchemy(pay="gem", gain="wood"), "not_available")


def test_bishops() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.port = [["SO1"], ["SO2"], [], []]
    assert bishop_score(s, p, "BI01") == 4
    assert bishop_score(s, p, "BI02") == 0
    for c in range(1, 7):
        if p.cells[cell(2, c)] == ".":
            p.cells[cell(2, c)] = "="
    assert bishop_score(s, p, "BI02") == 2
    assert bishop_score(s, p, "BI06") == 2 * 4
    p.monks_reserve = 3
    assert bishop_score(s, p, "BI03") == 6
    p.conquistador, p.coins = 7, 8
    assert bishop_score(s, p, "BI04") == 3 and bishop_score(s, p, "BI05") == 2


def test_year_end_cleanup_and_next_year() -> None:
    s = given(["hacienda", "puerto"])
    a, _b = s.players
    a.coins, a.res["wood"] = 5, 3
    when(s, 0, cmd.ActivateBuilding(row=1, col=5))
    when(s, 0, cmd.EndTurn())
    when(s, 1, cmd.Retire(space="RS2"))
    when(s, 1, cmd.Religion(extra=0))
    when(s, 1, cmd.EndTurn())
    leftovers = s.display_doubles + s.display_triples
    when(s, 0, cmd.Retire(space="RS1"))
    events = when(s, 0, cmd.EndTurn())
    assert s.year == 2 and s.active == 1 and s.start_player == 1
    assert sum(a.coins_on) == 0 and a.coin_activations == 0
    assert len(s.white_pool) == 6 and s.retire_order == []
    assert all(t in s.out_of_game for t in leftovers)
    rolled = next(e for e in events if isinstance(e, ev.BlueDiceRolled))
    assert [r[0] for r in rolled.rolls] == [1, 0]
    assert len(s.display_doubles) == len(s.display_triples) == data.DISPLAY_PER_KIND

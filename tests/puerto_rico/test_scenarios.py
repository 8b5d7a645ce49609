"""Worked examples of the Puerto Rico rules (docs/games/puerto-rico.md) as given/when/then
tests, with the exact numbers."""

from __future__ import annotations

from typing import Any

import pytest

from domain.contract import RuleError
from domain.puerto_rico import GAME
from domain.puerto_rico import commands as C
from domain.puerto_rico import events as E
from domain.puerto_rico.board import net_cost, score_breakdown
from tests.puerto_rico.helpers import act, give, of, pick, table


def test_s1_quarry_discounts() -> None:
    s = table(4)
    give(s, 1, tiles={"quarry": 3}, occupied={"quarry": 3})
    s.phase, s.chooser = "builder", 0
    names = ["construction_hut", "office", "harbor", "city_hall"]
    assert [net_cost(s, 1, b) for b in names] == [1, 3, 5, 7]
    s.chooser = 1
    assert [net_cost(s, 1, b) for b in names] == [0, 2, 4, 6]


def _mayor_table(empty_on_seat3: str) -> object:
    s = table(4)
    s.colonists, s.ship_colonists = 20, 6
    give(s, 0, tiles={"corn": 3})
    give(s, 1, tiles={"corn": 2})
    give(s, 2, tiles={"corn": 1})
    if empty_on_seat3 == "2":
        give(s, 3, tiles={"corn": 1}, buildings={"coffee_roaster": 0})
    else:
        give(
            s,
            3,
            tiles={"corn": 1},
            buildings={"coffee_roaster": 0, "tobacco_storage": 0, "small_market": 0, "hacienda": 0},
        )
    return s


@pytest.mark.parametrize("empty,ship", [("2", 4), ("7", 7)])
def test_s2_mayor_distribution(empty: str, ship: int) -> None:
    s = _mayor_table(empty)
    events = pick(s, 0, "mayor")
    assert of(events, E.ColonistsDistributed)[0].counts == [2, 2, 1, 1]
    events = act(s, 0, C.PlaceColonists(layout={"corn": 3}, privilege=1))
    assert s.players[0].occupied[0] == 3
    assert s.colonists == 19 and s.ship_colonists == 0
    # seats 1 and 2 have a single layout: auto-applied; seat 3 chooses
    assert [e.seat for e in of(events, E.ColonistsPlaced)] == [0, 1, 2]
    assert s.actor == 3 and s.step == "place_colonists"
    events = act(s, 3, C.PlaceColonists(layout={"corn": 1}))
    refill = of(events, E.ColonistShipRefilled)[0]
    assert refill.count == ship and s.ship_colonists == ship and s.colonists == 19 - ship
    assert not s.end_triggered


def test_s2_mayor_shortage_triggers_end() -> None:
    s = _mayor_table("2")
    s.colonists = 4
    pick(s, 0, "mayor")
    act(s, 0, C.PlaceColonists(layout={"corn": 3}, privilege=1))  # supply 3 left
    events = act(s, 3, C.PlaceColonists(layout={"corn": 1}))
    refill = of(events, E.ColonistShipRefilled)[0]
    assert (refill.required, refill.count, refill.end_triggered) == (4, 3, True)
    assert s.colonists == 0 and s.ship_colonists == 3 and s.end_triggered


def test_s3_production() -> None:
    s = table(4)
    give(
        s,
        1,
        tiles={"corn": 3, "sugar": 4, "tobacco": 2},
        occupied={"corn": 2, "sugar": 3, "tobacco": 2},
        buildings={"small_sugar_mill": 1, "sugar_mill": 3, "tobacco_storage": 1},
    )
    events = pick(s, 0, "craftsman")
    produced = next(e for e in of(events, E.Produced) if e.seat == 1)
    assert produced.goods == [2, 0, 3, 1, 0]
    assert s.players[1].goods == [2, 0, 3, 1, 0]


def test_s4_factory() -> None:
    s = table(4)
    give(
        s,
        1,
        tiles={"corn": 3, "sugar": 3, "tobacco": 1},
        occupied={"corn": 3, "sugar": 3, "tobacco": 1},
        buildings={"factory": 1, "sugar_mill": 3, "tobacco_storage": 1},
    )
    s.supply = [0, 11, 2, 5, 9]
    events = pick(s, 0, "craftsman")
    produced = next(e for e in of(events, E.Produced) if e.seat == 1)
    assert produced.goods == [0, 0, 2, 1, 0] and produced.factory == 1
    assert s.players[1].doubloons == 1


def test_s5_captain_phase() -> None:
    s = table(4)
    s.ship_good, s.ship_load = [-1, 0, -1], [0, 3, 0]
    give(s, 0, goods={"corn": 2, "sugar": 6})
    give(s, 1, goods={"sugar": 2, "tobacco": 3})
    give(s, 2, goods={"corn": 2, "tobacco": 1})
    give(s, 3, goods={"corn": 1, "indigo": 5})
    supply0 = s.supply[:]
    pick(s, 0, "captain")
    assert GAME.legal_commands(s, 0) == [C.Load(good="corn", ship=1), C.Load(good="sugar", ship=2)]
    ev = act(s, 0, C.Load(good="sugar", ship=2))
    assert of(ev, E.Loaded)[0].vp == 7
    assert C.Load(good="tobacco", ship=0) in GAME.legal_commands(s, 1)
    ev = act(s, 1, C.Load(good="sugar", ship=2))
    assert of(ev, E.Loaded)[0].vp == 1
    ev = act(s, 2, C.Load(good="tobacco", ship=0))
    loads = [(e.seat, e.good, e.ship, e.count, e.vp) for e in of(ev, E.Loaded)]
    # D must load corn (auto), A must load 2 corn (auto), B must load 3 tobacco (auto)
    assert loads == [
        (2, "tobacco", 0, 1, 1),
        (3, "corn", 1, 1, 1),
        (0, "corn", 1, 2, 2),
        (1, "tobacco", 0, 3, 3),
    ]
    assert [e.seat for e in of(ev, E.Passed)] == [2, 3, 0, 1]
    assert [p.vp for p in s.players] == [9, 4, 1, 1]
    assert s.players[1].goods == [0, 0, 1, 0, 0]
    assert s.players[2].goods == [1, 0, 0, 0, 0]
    assert s.players[3].goods == [0, 1, 0, 0, 0]
    assert of(ev, E.ShipsUnloaded)[0].ships == [1, 2]
    assert (s.ship_good, s.ship_load) == ([3, -1, -1], [4, 0, 0])
    delta = [s.supply[g] - supply0[g] for g in range(5)]
    assert delta == [7, 4, 7, 0, 0]


def _harbor_table() -> object:
    s = table(3)
    s.ship_good, s.ship_load = [0, 3, 2], [1, 2, 1]
    give(s, 1, goods={"tobacco": 5, "sugar": 2}, buildings={"harbor": 1, "wharf": 1})
    pick(s, 0, "captain")
    assert s.actor == 1
    return s


def test_s6_harbor_and_wharf() -> None:
    s = _harbor_table()
    assert of(act(s, 1, C.Load(good="tobacco", ship=1)), E.Loaded)[0].vp == 4
    assert of(act(s, 1, C.Load(good="sugar", ship=2)), E.Loaded)[0].vp == 3
    assert C.Pass() in GAME.legal_commands(s, 1)
    ev = act(s, 1, C.ShipWharf(good="tobacco"))
    assert of(ev, E.WharfShipped)[0].vp == 3
    assert s.players[1].vp == 10
    assert (s.ship_good, s.ship_load) == ([0, -1, 2], [1, 0, 3])


def test_s6_variant_wharf_first() -> None:
    s = _harbor_table()
    ev = act(s, 1, C.ShipWharf(good="tobacco"))
    assert of(ev, E.WharfShipped)[0].vp == 6
    assert of(ev, E.Loaded)[0].vp == 3  # the only possible command next turn: auto-applied
    assert s.players[1].vp == 9
    assert (s.ship_good, s.ship_load) == ([0, 3, 2], [1, 2, 3])


def test_s7_small_market_and_office() -> None:
    s = table(5)
    s.house = [3]
    give(s, 1, goods={"corn": 1}, buildings={"small_market": 1})
    give(s, 2, goods={"tobacco": 1}, buildings={"office": 1})
    give(s, 3, goods={"tobacco": 1}, buildings={"office": 1})
    give(s, 4, goods={"coffee": 1})
    assert of(pick(s, 0, "trader"), E.Passed)[0].seat == 0  # T cannot sell: auto-pass
    assert of(act(s, 1, C.Sell(good="corn")), E.Sold)[0].price == 1
    assert of(act(s, 2, C.Sell(good="tobacco")), E.Sold)[0].price == 3
    ev = act(s, 3, C.Sell(good="tobacco"))
    assert of(ev, E.Sold)[0].price == 3
    assert of(ev, E.Passed)[0].seat == 4  # P4 auto-passes
    assert of(ev, E.TradingHouseEmptied)[0].goods == ["tobacco", "corn", "tobacco", "tobacco"]
    assert s.house == []


def test_s7_house_not_full_stays() -> None:
    s = table(5)
    s.house = [3]
    give(s, 1, goods={"corn": 1}, buildings={"small_market": 1})
    pick(s, 0, "trader")
    ev = act(s, 1, C.Sell(good="corn"))
    assert not of(ev, E.TradingHouseEmptied) and s.house == [3, 0]


def test_s8_prospector_and_role_doubloons() -> None:
    s = table(4)
    s.roles["prospector_1"] = 2
    ev = pick(s, 0, "prospector_1")
    assert s.players[0].doubloons == 3
    assert of(ev, E.Prospected)[0].doubloons == 1
    # finish the round: three more prospector-like quick picks are not available, so play on
    for seat, role in ((1, "builder"), (2, "trader"), (3, "craftsman")):
        assert s.step == "choose_role" and s.actor == seat
        act(s, seat, C.ChooseRole(role=role))
        while s.step != "choose_role" and s.round == 1:
            act(s, s.actor, GAME.legal_commands(s, s.actor)[-1])
    assert s.round == 2 and s.governor == 1
    assert {r: s.roles[r] for r in ("settler", "mayor", "captain")} == {
        "settler": 1,
        "mayor": 1,
        "captain": 1,
    }
    assert s.roles["prospector_1"] == 0


def _score(**kw: object) -> dict[str, int]:
    s = table(4, expansion=True)
    give(s, 0, **kw)  # type: ignore[arg-type]
    return score_breakdown(s.players[0])


def test_s9_guild_hall() -> None:
    d = _score(
        buildings={
            "guild_hall": 1,
            "small_sugar_mill": 0,
            "sugar_mill": 0,
            "small_indigo_plant": 0,
            "coffee_roaster": 0,
        }
    )
    assert d["guild_hall"] == 6 and d["buildings"] == 11


@pytest.mark.parametrize("filled,bonus", [(10, 5), (9, 4), (11, 6), (12, 7), (3, 4)])
def test_s10_residence(filled: int, bonus: int) -> None:
    assert _score(buildings={"residence": 1}, tiles={"corn": filled})["residence"] == bonus


@pytest.mark.parametrize("colonists,bonus", [(20, 6), (21, 7)])
def test_s11_fortress(colonists: int, bonus: int) -> None:
    # fortress colonist + the rest in San Juan
    assert _score(buildings={"fortress": 1}, san_juan=colonists - 1)["fortress"] == bonus


@pytest.mark.parametrize("vp,bonus", [(23, 5), (24, 6)])
def test_s12_customs_house(vp: int, bonus: int) -> None:
    assert _score(buildings={"customs_house": 1}, vp=vp)["customs_house"] == bonus


def test_s13_city_hall() -> None:
    owned = {
        "city_hall": 1,
        "hacienda": 0,
        "harbor": 0,
        "office": 0,
        "construction_hut": 0,
        "large_warehouse": 0,
        "residence": 0,
    }
    assert _score(buildings=owned)["city_hall"] == 7
    d = _score(buildings={**owned, "city_hall": 0})
    assert "city_hall" not in d and d["buildings"] == 4 + 1 + 3 + 2 + 1 + 2 + 4


def test_s14_two_player_round() -> None:
    s = table(2)
    choosers = []
    for role in ("prospector_1", "builder", "trader", "craftsman", "settler", "captain"):
        choosers.append(s.actor)
        act(s, s.actor, C.ChooseRole(role=role))
        while s.step != "choose_role":
            act(s, s.actor, GAME.legal_commands(s, s.actor)[-1])
    assert choosers == [0, 1, 0, 1, 0, 1]
    assert s.roles["mayor"] == 1 and s.governor == 1 and s.round == 2


def _draft_table(**opts: object) -> object:
    s = GAME.initial(GAME.options_type(expansion="new-buildings", **opts), 4)  # type: ignore
    import random

    from domain.puerto_rico import rules

    rules.setup_events(s, random.Random(1))
    return s


def test_s15_draft() -> None:
    s = _draft_table()
    first = s.first_governor
    act(s, first, C.DraftBuilding(building="black_market"))
    act(s, (first + 1) % 4, C.DraftBuilding(building="hacienda"))
    legal = {c.building for c in GAME.legal_commands(s, (first + 2) % 4)}
    assert "construction_hut" not in legal and "forest_house" not in legal
    with pytest.raises(RuleError):
        GAME.decide(s, (first + 2) % 4, C.DraftBuilding(building="forest_house"), None)
    seat = (first + 2) % 4
    picks = {seat: 0 for seat in range(4)}
    picks[first] = picks[(first + 1) % 4] = 1
    while s.step == "draft_building":
        seat = s.actor
        picks[seat] += 1
        act(s, seat, GAME.legal_commands(s, seat)[0])
    assert picks[first] == 5 and sorted(picks.values()) == [4, 4, 4, 5]
    assert "construction_hut" not in s.buildings_left and "forest_house" not in s.buildings_left
    assert len(s.drafted) == 17 and s.step == "choose_role"


def test_s15_exclusive() -> None:
    s = _draft_table(forest_house_with_hacienda="exclusive")
    act(s, s.first_governor, C.DraftBuilding(building="hacienda"))
    legal = {c.building for c in GAME.legal_commands(s, s.actor)}
    assert "forest_house" not in legal and "construction_hut" in legal


def _produce(n: int = 4, **kw: object) -> E.Produced:
    s = table(n, expansion=True)
    give(s, 1, **kw)  # type: ignore[arg-type]
    return next(e for e in of(pick(s, 0, "craftsman"), E.Produced) if e.seat == 1)


def test_s16_aqueduct() -> None:
    a = _produce(
        tiles={"sugar": 1}, occupied={"sugar": 1}, buildings={"aqueduct": 1, "small_sugar_mill": 1}
    )
    assert a.goods == [0, 0, 1, 0, 0] and a.aqueduct == [0] * 5
    b = _produce(
        tiles={"indigo": 1, "sugar": 3},
        occupied={"indigo": 1, "sugar": 3},
        buildings={"aqueduct": 1, "indigo_plant": 1, "sugar_mill": 3},
    )
    assert [x + y for x, y in zip(b.goods, b.aqueduct, strict=False)] == [0, 2, 4, 0, 0]


def test_s17_forest_discount() -> None:
    s = table(4, expansion=True)
    give(
        s, 1, tiles={"quarry": 2}, occupied={"quarry": 2}, forests=6, buildings={"forest_house": 0}
    )
    s.phase, s.chooser = "builder", 1
    assert net_cost(s, 1, "large_warehouse") == 0
    s.chooser = 0
    assert net_cost(s, 1, "large_warehouse") == 1


def _black_market_table() -> object:
    s = table(4, expansion=True)
    give(s, 1, buildings={"black_market": 1}, doubloons=6, goods={"indigo": 2}, san_juan=1, vp=4)
    pick(s, 0, "builder")
    act(s, 0, C.Pass())
    return s


def test_s18_black_market() -> None:
    s = _black_market_table()
    colonists, indigo = s.colonists, s.supply[1]
    bm = C.BlackMarket(colonist_from="san_juan", good="indigo")
    ev = act(s, 1, C.Build(building="harbor", black_market=bm))
    assert of(ev, E.Built)[0].paid == 6
    p = s.players[1]
    assert p.doubloons == 0 and "harbor" in p.buildings and p.goods[1] == 1 and p.san_juan == 0
    assert s.colonists == colonists + 1 and s.supply[1] == indigo + 1


@pytest.mark.parametrize(
    "bm",
    [
        C.BlackMarket(colonist_from="san_juan", good="indigo", vp=True),
        C.BlackMarket(good="indigo"),
        C.BlackMarket(colonist_from="black_market", good="indigo"),
    ],
)
def test_s18_black_market_illegal(bm: C.BlackMarket) -> None:
    s = _black_market_table()
    with pytest.raises(RuleError):
        GAME.decide(s, 1, C.Build(building="harbor", black_market=bm), None)


def test_s18_black_market_not_with_enough_money() -> None:
    s = _black_market_table()
    s.players[1].doubloons = 8
    with pytest.raises(RuleError):
        GAME.decide(s, 1, C.Build(building="harbor", black_market=C.BlackMarket(vp=True)), None)


def test_s19_storehouse_and_large_warehouse() -> None:
    s = table(4, expansion=True)
    give(
        s,
        0,
        goods={"corn": 5, "indigo": 3, "sugar": 4, "coffee": 2},
        buildings={"storehouse": 1, "large_warehouse": 1},
    )
    s.phase, s.step, s.actor, s.chooser = "captain", "store", 0, 0
    legal = GAME.legal_commands(s, 0)
    assert C.Store(keep={"corn": 5, "indigo": 2, "sugar": 4, "coffee": 2}) in legal
    # a keep is legal when no single barrel could be added (local maximality, R22)
    assert C.Store(keep={"corn": 5, "indigo": 3, "sugar": 4, "coffee": 1}) in legal
    with pytest.raises(RuleError):
        GAME.decide(s, 0, C.Store(keep={"corn": 5, "sugar": 4, "indigo": 3}), None)


def test_s20_guest_house() -> None:
    s = table(4, expansion=True)
    give(
        s,
        0,
        buildings={"guest_house": 2, "storehouse": 0, "library": 0},
        goods={"corn": 2, "indigo": 2, "sugar": 1},
    )
    s.phase, s.step, s.actor, s.chooser = "captain", "store", 0, 1
    assert C.MoveGuest(to="storehouse") in GAME.legal_commands(s, 0)
    act(s, 0, C.MoveGuest(to="storehouse"))
    assert s.step == "store" and s.actor == 0
    assert C.Store(keep={"corn": 1, "indigo": 2, "sugar": 1}) in GAME.legal_commands(s, 0)
    act(s, 0, C.Store(keep={"corn": 1, "indigo": 2, "sugar": 1}))
    assert s.players[0].goods == [1, 2, 1, 0, 0]
    # next round: trader; the second guest moves to the library at choose_role
    pick_state = s
    pick_state.governor = 0
    pick_state.picks, pick_state.picked = 0, []
    pick_state.phase, pick_state.step, pick_state.actor = "roles", "choose_role", 0
    assert C.MoveGuest(to="library") in GAME.legal_commands(s, 0)
    act(s, 0, C.MoveGuest(to="library"))
    act(s, 0, C.ChooseRole(role="trader"))
    ev = act(s, 0, C.Sell(good="sugar"))
    assert of(ev, E.Sold)[0].price == 4
    p = s.players[0]
    assert p.buildings == {"guest_house": 0, "storehouse": 1, "library": 1}
    assert (
        not [c for c in GAME.legal_commands(s, s.actor) if isinstance(c, C.MoveGuest)]
        or s.actor != 0
    )


def test_s21_small_wharf() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"small_wharf": 1}, goods={"corn": 3, "sugar": 2, "tobacco": 3})
    s.ship_good, s.ship_load = [0, 2, 3], [5, 6, 7]  # every ship full: no cargo loads
    s.phase, s.step, s.actor, s.chooser = "captain", "captain_turn", 1, 0
    s.wharf_used, s.small_wharf_used = [False] * 4, [False] * 4
    supply = s.supply[:]
    ev = act(s, 1, C.ShipSmallWharf(goods={"corn": 3, "sugar": 1, "tobacco": 2}))
    assert of(ev, E.SmallWharfShipped)[0].vp == 3
    assert [s.supply[g] - supply[g] for g in (0, 2, 3)] == [3, 1, 2]
    s2 = table(4, expansion=True)
    give(s2, 1, buildings={"small_wharf": 1}, goods={"tobacco": 3})
    s2.ship_good, s2.ship_load = [0, 2, 3], [5, 6, 7]
    s2.phase, s2.step, s2.actor, s2.chooser = "captain", "captain_turn", 1, 0
    s2.wharf_used, s2.small_wharf_used = [False] * 4, [False] * 4
    ev = act(s2, 1, C.ShipSmallWharf(goods={"tobacco": 3}))
    assert of(ev, E.SmallWharfShipped)[0].vp == 1


def test_s22_lighthouse() -> None:
    s = table(4, expansion=True)
    give(
        s,
        0,
        buildings={"lighthouse": 1, "wharf": 1, "small_wharf": 1},
        goods={"corn": 2, "indigo": 3, "sugar": 3},
    )
    s.ship_good, s.ship_load = [0, 2, -1], [3, 6, 0]  # corn ship 3/5; sugar ship full
    s.supply[1] = 0
    ev = pick(s, 0, "captain")
    assert of(ev, E.LighthousePaid) and s.players[0].doubloons == 1
    ev = act(s, 0, C.Load(good="corn", ship=0))
    assert of(ev, E.Loaded)[0].vp == 3
    # indigo could go on the empty 7-ship; the wharf is used instead
    while s.actor != 0:
        act(s, s.actor, GAME.legal_commands(s, s.actor)[0])
    assert of(act(s, 0, C.ShipWharf(good="indigo")), E.WharfShipped)[0].vp == 3
    while s.actor != 0:
        act(s, s.actor, GAME.legal_commands(s, s.actor)[0])
    ev = act(s, 0, C.ShipSmallWharf(goods={"sugar": 3}))
    assert of(ev, E.SmallWharfShipped)[0].vp == 1
    assert s.players[0].vp == 7 and s.players[0].doubloons == 4


def test_s23_specialty_factory() -> None:
    a = _produce(
        tiles={"corn": 4, "sugar": 3, "coffee": 2},
        occupied={"corn": 4, "sugar": 3, "coffee": 2},
        buildings={"specialty_factory": 1, "sugar_mill": 3, "coffee_roaster": 2},
    )
    assert a.specialty == 2


@pytest.mark.parametrize("mode,doubloons", [("any", 6), ("different", 5)])
def test_s23_specialty_factory_craftsman(mode: str, doubloons: int) -> None:
    s = table(4, expansion=True, library_craftsman_goods=mode)
    give(
        s,
        0,
        tiles={"indigo": 4},
        occupied={"indigo": 4},
        buildings={
            "small_indigo_plant": 1,
            "indigo_plant": 3,
            "aqueduct": 1,
            "library": 1,
            "specialty_factory": 1,
        },
    )
    ev = pick(s, 0, "craftsman")
    if mode == "any":
        assert s.step == "craftsman_bonus" or of(ev, E.CraftsmanBonusTaken)
        if s.step == "craftsman_bonus":
            ev = act(s, 0, C.CraftsmanBonus(goods=["indigo", "indigo"]))
    bonus = of(ev, E.CraftsmanBonusTaken)[0]
    assert bonus.specialty == doubloons
    assert s.players[0].goods[1] == doubloons + 1


@pytest.mark.parametrize(
    "goods,vp", [({"corn": 3, "indigo": 2, "coffee": 1}, 2), ({"corn": 4, "coffee": 2}, 3)]
)
def test_s24_union_hall(goods: dict[str, int], vp: int) -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"union_hall": 1}, goods=goods)
    ev = pick(s, 0, "captain")
    assert of(ev, E.UnionHallScored)[0].vp == vp
    assert sum(s.players[1].goods) == sum(goods.values()) or s.step != "captain_turn"


def test_s25_cloister() -> None:
    d = _score(buildings={"cloister": 1}, forests=6, tiles={"quarry": 3, "corn": 2, "coffee": 1})
    assert d["cloister"] == 6
    d = _score(buildings={"cloister": 1}, forests=6, tiles={"quarry": 3, "corn": 3})
    assert d["cloister"] == 10


@pytest.mark.parametrize(
    "building,vp",
    [("harbor", 1), ("city_hall", 2), ("statue", 2), ("small_market", 0), ("indigo_plant", 1)],
)
def test_s26_church(building: str, vp: int) -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"church": 1}, doubloons=20)
    pick(s, 0, "builder")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.Build(building=building))
    assert of(ev, E.Built)[0].church_vp == vp and s.players[1].vp == vp


def test_s26_church_itself() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"university": 1}, doubloons=20)
    pick(s, 0, "builder")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.Build(building="church", university=True))
    assert of(ev, E.Built)[0].church_vp == 0


def test_s27_library() -> None:
    s = table(4, expansion=True)
    give(s, 0, buildings={"library": 1, "hospice": 1}, tiles={})
    s.row = ["corn", "sugar", "coffee", "indigo", "corn"]
    pick(s, 0, "settler")
    ev = act(s, 0, C.Settle(source="quarry", hospice=True))
    assert s.players[0].occupied[5] == 1
    while s.step == "settler_turn":
        act(s, s.actor, C.Pass())
    assert s.step == "settler_library" and s.actor == 0
    assert C.Settle(source="face_up", kind="corn", hospice=True) not in GAME.legal_commands(s, 0)
    ev = act(s, 0, C.Settle(source="face_up", kind="corn"))
    assert s.players[0].tiles[0] == 1 and s.players[0].occupied[0] == 0
    assert of(ev, E.RowDrawn)
    # builder
    b = table(4, expansion=True)
    give(b, 0, buildings={"library": 1}, tiles={"quarry": 1}, occupied={"quarry": 1})
    b.phase, b.chooser = "builder", 0
    assert net_cost(b, 0, "factory") == 4
    # trader
    t = table(4, expansion=True)
    give(t, 0, buildings={"library": 1, "small_market": 1}, goods={"coffee": 1})
    pick(t, 0, "trader")
    assert of(act(t, 0, C.Sell(good="coffee")), E.Sold)[0].price == 7
    # mayor
    m = table(4, expansion=True)
    give(m, 0, buildings={"library": 1}, tiles={"corn": 5})
    pick(m, 0, "mayor")
    assert max(c.privilege for c in GAME.legal_commands(m, 0)) == 2
    # captain
    c = table(4, expansion=True)
    give(c, 0, buildings={"library": 1}, goods={"corn": 1})
    pick(c, 0, "captain")
    assert of(act(c, 0, C.Load(good="corn", ship=0)), E.Loaded)[0].vp == 3
    # prospector
    p = table(4, expansion=True)
    give(p, 0, buildings={"library": 1})
    p.roles["prospector_1"] = 1
    pick(p, 0, "prospector_1")
    assert p.players[0].doubloons == 3


def test_s28_hospice_and_hacienda() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"hospice": 1, "hacienda": 1}, tiles={"corn": 10})
    s.stack.append("coffee")
    s.row = ["sugar", "corn", "corn", "indigo", "indigo"]
    pick(s, 0, "settler")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.HaciendaDraw())
    assert of(ev, E.HaciendaDrawn)[0].tile == "coffee" and not of(ev, E.HaciendaDrawn)[0].pending
    colonists = s.colonists
    act(s, 1, C.Settle(source="face_up", kind="sugar", hospice=True))
    p = s.players[1]
    assert p.tiles[4] == 1 and p.occupied[4] == 0 and p.tiles[2] == 1 and p.occupied[2] == 1
    assert s.colonists == colonists - 1


@pytest.mark.parametrize("building,where", [("coffee_roaster", "building"), ("statue", "san_juan")])
def test_s29_university(building: str, where: str) -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"university": 1}, doubloons=20)
    pick(s, 0, "builder")
    act(s, 0, C.Pass())
    act(s, 1, C.Build(building=building, university=True))
    p = s.players[1]
    if where == "building":
        assert p.buildings[building] == 1 and p.san_juan == 0
    else:
        assert p.buildings[building] == 0 and p.san_juan == 1


def test_s29_university_from_ship() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"university": 1}, doubloons=20)
    s.colonists, s.ship_colonists = 0, 3
    pick(s, 0, "builder")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.Build(building="coffee_roaster", university=True))
    assert of(ev, E.Built)[0].university == "ship" and s.ship_colonists == 2


def test_s30_trading_post() -> None:
    s = table(4, expansion=True)
    s.house = [0, 1, 2, 3]
    give(s, 0, buildings={"trading_post": 1, "large_market": 1}, goods={"coffee": 1})
    pick(s, 0, "trader")
    assert GAME.legal_commands(s, 0) == [C.Sell(good="coffee", venue="trading_post"), C.Pass()]
    supply = s.supply[4]
    assert of(act(s, 0, C.Sell(good="coffee", venue="trading_post")), E.Sold)[0].price == 5
    assert s.supply[4] == supply + 1


def test_s31_end_timing() -> None:
    s = table(4)
    give(
        s,
        2,
        buildings={
            b: 0
            for b in (
                "small_indigo_plant",
                "small_sugar_mill",
                "indigo_plant",
                "sugar_mill",
                "tobacco_storage",
                "small_market",
                "hacienda",
                "construction_hut",
                "small_warehouse",
                "hospice",
            )
        },
        doubloons=20,
    )
    pick(s, 0, "builder")
    act(s, 0, C.Pass())  # seat 1 cannot build: auto-passed
    ev = act(s, 2, C.Build(building="guild_hall"))
    assert of(ev, E.Built)[0].city_full and s.end_triggered
    while not s.over:
        assert s.round == 1
        seat = s.actor
        act(s, seat, GAME.legal_commands(s, seat)[-1])
    assert s.picks == 4 and GAME.result(s) is not None


def test_s32_vp_exhaustion() -> None:
    s = table(4, expansion=True)
    s.vp_supply = 2
    give(s, 1, goods={"corn": 5}, buildings={"black_market": 1}, doubloons=0)
    s.phase, s.step, s.actor, s.chooser = "captain", "captain_turn", 1, 0
    s.wharf_used, s.small_wharf_used = [False] * 4, [False] * 4
    act(s, 1, C.Load(good="corn", ship=0))
    assert s.players[1].vp == 5 and s.vp_supply == 0 and s.vp_paper == 3 and s.end_triggered
    s.phase, s.step, s.actor, s.chooser = "builder", "builder_turn", 1, 0
    act(s, 1, C.Build(building="small_market", black_market=C.BlackMarket(vp=True)))
    assert s.vp_supply == 1 and s.end_triggered


def test_s33_ship_choice() -> None:
    s = table(4)
    s.ship_capacity = [5, 7]
    s.ship_good, s.ship_load = [-1, -1], [0, 0]
    give(s, 1, goods={"corn": 3})
    s.phase, s.step, s.actor, s.chooser = "captain", "captain_turn", 1, 0
    assert GAME.legal_commands(s, 1) == [C.Load(good="corn", ship=0), C.Load(good="corn", ship=1)]
    give(s, 1, goods={"sugar": 6})
    assert GAME.legal_commands(s, 1) == [C.Load(good="sugar", ship=1)]
    s.ship_capacity = [6, 7]
    s.ship_good, s.ship_load = [0, -1], [4, 0]
    give(s, 1, goods={"corn": 3})
    assert GAME.legal_commands(s, 1) == [C.Load(good="corn", ship=0)]
    ev = act(s, 1, C.Load(good="corn", ship=0))
    assert of(ev, E.Loaded)[0].count == 2


def test_s34_forest_house_hacienda_hospice() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"forest_house": 1, "hacienda": 1, "hospice": 1}, tiles={"corn": 9})
    s.stack += ["sugar", "tobacco"]
    stack = len(s.stack)
    pick(s, 0, "settler")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.HaciendaDraw())
    drawn = of(ev, E.HaciendaDrawn)[0]
    assert drawn.pending and drawn.tile == "tobacco" and s.step == "hacienda_place"
    assert GAME.view(s, 1).hacienda_tile == "tobacco"
    assert GAME.view(s, 0).hacienda_tile is None and GAME.view(s, None).hacienda_tile is None
    assert GAME.redact(drawn, 0).tile is None and GAME.redact(drawn, 1).tile == "tobacco"
    act(s, 1, C.HaciendaPlace(as_forest=True))
    sj = s.players[1].san_juan
    ev = act(s, 1, C.Settle(source="forest", hospice=True))
    p = s.players[1]
    assert len(p.forests) == 2 and p.san_juan == sj + 1
    assert len(s.stack) == stack - 2 or of(ev, E.RowDrawn)
    s.phase, s.chooser = "builder", 0
    assert net_cost(s, 1, "office") == 4


def test_s35_must_fill() -> None:
    s = table(4)
    give(s, 1, tiles={"corn": 2}, buildings={"small_market": 0, "indigo_plant": 0}, san_juan=5)
    s.ship_colonists = 0
    give(s, 0, tiles={"corn": 1})
    pick(s, 0, "mayor")
    act(s, 0, C.PlaceColonists(layout={"corn": 1}, privilege=1))
    legal = GAME.legal_commands(s, 1)
    assert all(sum(c.layout.values()) == 5 for c in legal) and len(legal) == 3
    s2 = table(4)
    give(s2, 1, tiles={"corn": 2}, buildings={"small_market": 0, "indigo_plant": 0}, san_juan=8)
    s2.ship_colonists = 0
    give(s2, 0, tiles={"corn": 1})
    pick(s2, 0, "mayor")
    ev = act(s2, 0, C.PlaceColonists(layout={"corn": 1}, privilege=1))
    placed = next(e for e in of(ev, E.ColonistsPlaced) if e.seat == 1)
    assert (
        placed.layout == {"corn": 2, "small_market": 1, "indigo_plant": 3} and placed.san_juan == 2
    )


def test_r21_library_once_per_round_2p() -> None:
    s = table(2, expansion=True, library_2p_once_per_round=True)
    give(s, 0, buildings={"library": 1}, goods={"coffee": 1, "sugar": 1})
    s.roles["prospector_1"] = 0
    pick(s, 0, "prospector_1")  # the doubling role of the round: 2 doubloons
    assert s.players[0].doubloons == 2
    act(s, 1, C.ChooseRole(role="builder"))
    while s.step != "choose_role":
        act(s, s.actor, C.Pass())
    act(s, 0, C.ChooseRole(role="trader"))
    ev = act(s, 0, C.Sell(good="coffee"))
    assert [e.price for e in ev if isinstance(e, E.Sold)] == [5]  # 4 + 1, not doubled


def test_r21_default_doubles_every_pick_2p() -> None:
    s = table(2, expansion=True)
    give(s, 0, buildings={"library": 1}, goods={"coffee": 1})
    pick(s, 0, "prospector_1")
    act(s, 1, C.ChooseRole(role="builder"))
    while s.step != "choose_role":
        act(s, s.actor, C.Pass())
    act(s, 0, C.ChooseRole(role="trader"))
    ev = act(s, 0, C.Sell(good="coffee"))
    assert [e.price for e in ev if isinstance(e, E.Sold)] == [6]


def test_options_validation() -> None:
    for bad in (
        dict(expansion="nobles"),
        dict(vp_pool_5p=100),
        dict(forest_house_with_hacienda="maybe"),
        dict(library_craftsman_goods="x"),
    ):
        with pytest.raises(RuleError) as exc:
            GAME.validate_options(GAME.options_type(**bad), 4)  # type: ignore[arg-type]
        assert exc.value.code.startswith("invalid_options.")
    with pytest.raises(RuleError):
        GAME.validate_options(GAME.options_type(), 6)
    GAME.validate_options(GAME.options_type(vp_pool_5p=126), 5)


def test_vp_pool_5p_option() -> None:
    s = GAME.initial(GAME.options_type(vp_pool_5p=126), 5)
    assert s.vp_supply == 126
    assert GAME.initial(GAME.options_type(), 4).vp_supply == 100


@pytest.mark.parametrize(
    ("seats", "options", "code"),
    [
        (4, dict(forest_house_with_hacienda="exclusive"), "forest_house_with_hacienda"),
        (3, dict(library_craftsman_goods="different"), "library_craftsman_goods"),
        (2, dict(library_2p_once_per_round=True), "library_2p_once_per_round"),
        (
            4,
            dict(expansion="new-buildings", library_2p_once_per_round=True),
            "library_2p_once_per_round",
        ),
        (4, dict(vp_pool_5p=126), "vp_pool_5p"),
        (2, dict(expansion="new-buildings", vp_pool_5p=126), "vp_pool_5p"),
    ],
)
def test_options_that_cannot_apply_are_refused(seats: int, options: Any, code: str) -> None:
    """the forest house and the library exist only with the expansion (R5, R20, R21),
    the once-per-round library only with 2 players (R21), the 126-chip pool only with 5."""
    with pytest.raises(RuleError) as exc:
        GAME.validate_options(GAME.options_type(**options), seats)
    assert exc.value.code == f"invalid_options.{code}"


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (2, dict(expansion="new-buildings", library_2p_once_per_round=True)),
        (5, dict(expansion="new-buildings", vp_pool_5p=126, library_craftsman_goods="different")),
        (3, dict(expansion="new-buildings", forest_house_with_hacienda="exclusive")),
        (4, dict(forest_house_with_hacienda="allowed", library_craftsman_goods="any")),
    ],
)
def test_options_that_apply_are_accepted(seats: int, options: Any) -> None:
    GAME.validate_options(GAME.options_type(**options), seats)


def test_derived_starting_state() -> None:
    import random

    from domain.puerto_rico import rules

    for n, stack in ((2, 30), (3, 50 - 3 - 4), (4, 50 - 4 - 5), (5, 50 - 5 - 6)):
        s = GAME.initial(GAME.options_type(), n)
        rules.setup_events(s, random.Random(n))
        assert len(s.stack) == stack and len(s.row) == n + 1
        assert sum(sum(p.tiles) for p in s.players) == n

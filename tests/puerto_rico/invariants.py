"""Invariants of the Puerto Rico rules (docs/games/puerto-rico.md), checked after every event of
the property games."""

from __future__ import annotations

from domain.puerto_rico.board import circles, city_used, island_used, score_breakdown
from domain.puerto_rico.data import BUILDINGS, CITY_SPACES, ISLAND_SPACES, TRADING_HOUSE_SIZE
from domain.puerto_rico.state import State


def check(s: State, where: str = "") -> None:
    n = s.n
    ps = s.players
    # 1. goods
    for g in range(5):
        total = (
            s.supply[g]
            + sum(p.goods[g] for p in ps)
            + s.house.count(g)
            + sum(s.ship_load[i] for i in range(len(s.ship_capacity)) if s.ship_good[i] == g)
        )
        assert total == s.goods_total[g], f"goods {g}: {total} != {s.goods_total[g]} {where}"
        assert s.supply[g] >= 0 and all(p.goods[g] >= 0 for p in ps), where
    # 2. colonists
    on_boards = sum(sum(p.occupied) + sum(p.buildings.values()) + p.san_juan for p in ps)
    assert s.colonists + s.ship_colonists + on_boards == s.colonists_total, f"colonists {where}"
    assert s.colonists >= 0 and s.ship_colonists >= 0, where
    for p in ps:
        assert p.san_juan >= 0 and min(p.occupied) >= 0, where
        assert all(c >= 0 for c in p.buildings.values()), where
    # 3. doubloons
    money = sum(p.doubloons for p in ps) + sum(s.roles.values())
    assert money == s.doubloons_start + s.bank_out - s.bank_in, f"doubloons {where}"
    assert all(p.doubloons >= 0 for p in ps), f"negative doubloons {where}"
    # 4. VP
    assert sum(p.vp for p in ps) + s.vp_supply == s.vp_pool + s.vp_paper, f"vp {where}"
    assert s.vp_supply >= 0 and all(p.vp >= 0 for p in ps), where
    if s.vp_supply == 0 and s.round > 0 and s.vp_paper + sum(p.vp for p in ps) > 0:
        assert s.end_triggered, f"VP out but no end {where}"
    # 5. plantations and quarries
    plantations = (
        len(s.stack)
        + len(s.row)
        + len(s.discard)
        + sum(sum(p.tiles[:5]) + len(p.forests) for p in ps)
        + (1 if s.hacienda_tile is not None else 0)
    )
    assert plantations == s.plantations_total, f"plantations {plantations} {where}"
    assert s.quarries + sum(p.tiles[5] for p in ps) == s.quarries_total, f"quarries {where}"
    assert len(s.row) <= n + 1, where
    # 6. buildings
    for b, total in s.copies_total.items():
        owned = sum(1 for p in ps if b in p.buildings)
        assert s.buildings_left[b] + owned == total, f"building {b} {where}"
    for p in ps:
        assert all(b in s.copies_total for b in p.buildings), where
    # 7. bounds
    for p in ps:
        assert island_used(p) <= ISLAND_SPACES, where
        assert city_used(p) <= CITY_SPACES, where
        for i in range(6):
            assert p.occupied[i] <= p.tiles[i], f"occupied > tiles {where}"
        for b, c in p.buildings.items():
            assert c <= BUILDINGS[b].circles, f"{b} over {where}"
    assert len(s.house) <= TRADING_HOUSE_SIZE, where
    if len(set(s.house)) < len(s.house):
        assert any("office" in p.buildings for p in ps), f"house duplicate {where}"
    kinds = [g for g in s.ship_good if g >= 0]
    assert len(kinds) == len(set(kinds)), f"two ships one kind {where}"
    for i, cap in enumerate(s.ship_capacity):
        assert 0 <= s.ship_load[i] <= cap, where
        assert (s.ship_load[i] == 0) == (s.ship_good[i] == -1), where
    # 9. round
    assert len(s.picked) == len(set(s.picked)), where
    # 11. final scores
    if s.over:
        assert s.end_triggered, where


def check_must_fill(s: State, seat: int, where: str = "") -> None:
    """8: right after place_colonists, San Juan > 0 implies no empty circle."""
    p = s.players[seat]
    if p.san_juan > 0:
        placed = sum(p.occupied) + sum(p.buildings.values())
        assert placed == circles(p), f"must-fill broken {where}"


def final_scores(s: State) -> list[int]:
    return [score_breakdown(p)["total"] for p in s.players]

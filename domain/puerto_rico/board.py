"""Read-only questions about a player's board and the table (shared by rules, evolve, view)."""

from __future__ import annotations

from domain.puerto_rico.data import (
    BUILDINGS,
    CITY_SPACES,
    CLOISTER_BONUS,
    ISLAND,
    ISLAND_SPACES,
    NO_GUEST_TARGET,
    QUARRY,
    RESIDENCE_BONUS,
    RESIDENCE_MIN,
)
from domain.puerto_rico.state import Player, State

# City spaces by building, looked up without the property (the hot path of random games).
SPACES: dict[str, int] = {b: info.spaces for b, info in BUILDINGS.items()}


def active(p: Player, building: str) -> bool:
    """A building acts only while occupied."""
    return p.buildings.get(building, 0) > 0


def city_used(p: Player) -> int:
    return sum(map(SPACES.__getitem__, p.buildings))


def island_used(p: Player) -> int:
    return sum(p.tiles) + len(p.forests)


def island_free(p: Player) -> bool:
    return sum(p.tiles) + len(p.forests) < ISLAND_SPACES


def city_free(p: Player) -> int:
    return CITY_SPACES - city_used(p)


def circles(p: Player) -> int:
    return sum(p.tiles) + sum(BUILDINGS[b].circles for b in p.buildings)


def colonists_on_board(p: Player) -> int:
    return sum(p.occupied) + sum(p.buildings.values()) + p.san_juan


def empty_building_circles(p: Player) -> int:
    return sum(BUILDINGS[b].circles - c for b, c in p.buildings.items())


def library_doubles(s: State, seat: int) -> bool:
    """Whether the chooser's privilege is doubled now (R21)."""
    p = s.players[seat]
    if p.buildings.get("library", 0) <= 0:
        return False
    if s.n == 2 and s.options.library_2p_once_per_round:
        return p.doubling_role == s.role
    return True


def guest_targets(p: Player) -> list[str]:
    """Empty circles a guest may move to: island tiles and other buildings."""
    out = [ISLAND[i] for i in range(6) if p.tiles[i] > p.occupied[i]]
    for b, c in p.buildings.items():
        if b not in NO_GUEST_TARGET and c < BUILDINGS[b].circles:
            out.append(b)
    return out


def movable_guest(s: State, seat: int) -> bool:
    p = s.players[seat]
    if p.buildings.get("guest_house", 0) <= 0 or s.phase == "mayor":
        return False
    if any(p.tiles[i] > p.occupied[i] for i in range(6)):
        return True
    return any(
        b not in NO_GUEST_TARGET and c < BUILDINGS[b].circles for b, c in p.buildings.items()
    )


def net_cost(s: State, seat: int, building: str, p: Player | None = None) -> int:
    """cost - privilege - min(occupied quarries, column) - floor(forests/2), ≥ 0.
    `p` may be a hypothetical board (black-market colonist already removed, R18)."""
    if p is None:
        p = s.players[seat]
    b = BUILDINGS[building]
    privilege = 0
    if seat == s.chooser and s.phase == "builder":
        privilege = 1
        if p.buildings.get("library", 0) > 0 and (
            not (s.n == 2 and s.options.library_2p_once_per_round) or p.doubling_role == s.role
        ):
            privilege = 2
    return max(0, b.cost - privilege - min(p.occupied[QUARRY], b.column) - len(p.forests) // 2)


def drawable(s: State) -> bool:
    return bool(s.stack) or bool(s.discard)


def score_breakdown(p: Player) -> dict[str, int]:
    """The final score of one player, by source."""
    building_vp = sum(BUILDINGS[b].vp for b in p.buildings)
    out = {"vp": p.vp, "buildings": building_vp}
    if active(p, "guild_hall"):
        out["guild_hall"] = sum(
            1 if BUILDINGS[b].kind == "prod_small" else 2
            for b in p.buildings
            if BUILDINGS[b].kind in ("prod_small", "prod_large")
        )
    if active(p, "residence"):
        out["residence"] = RESIDENCE_BONUS.get(island_used(p), RESIDENCE_MIN)
    if active(p, "fortress"):
        out["fortress"] = colonists_on_board(p) // 3
    if active(p, "customs_house"):
        out["customs_house"] = p.vp // 4
    if active(p, "city_hall"):
        out["city_hall"] = sum(1 for b in p.buildings if BUILDINGS[b].violet)
    if active(p, "cloister"):
        groups = sum(t // 3 for t in p.tiles) + len(p.forests) // 3
        out["cloister"] = CLOISTER_BONUS[min(groups, len(CLOISTER_BONUS) - 1)]
    out["total"] = sum(out.values())
    return out


def tiebreak(p: Player) -> int:
    return p.doubloons + sum(p.goods)

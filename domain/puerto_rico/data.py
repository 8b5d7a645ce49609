"""Component data of Puerto Rico and The New Buildings. Tables, not branches: the
rules read every number from here."""

from __future__ import annotations

from typing import Annotated, Literal, NamedTuple, get_args

from domain.enums import one_of

# --- goods, plantations, quarries ---------------------------------------------------

GOODS: tuple[str, ...] = ("corn", "indigo", "sugar", "tobacco", "coffee")
CORN, INDIGO, SUGAR, TOBACCO, COFFEE = range(5)
GOOD_INDEX: dict[str, int] = {g: i for i, g in enumerate(GOODS)}
PRICE: tuple[int, ...] = (0, 1, 2, 3, 4)  # trading-house price by good

# Island tile kinds: the five plantations, then quarries. Forests are counted apart.
ISLAND: tuple[str, ...] = (*GOODS, "quarry")
QUARRY = 5  # index of "quarry" in ISLAND, so in a player's tile and occupied counts
ISLAND_INDEX: dict[str, int] = {k: i for i, k in enumerate(ISLAND)}
PLANTATIONS: tuple[str, ...] = GOODS

BARRELS: dict[str, tuple[int, ...]] = {  # (3-5p, 2p)
    "corn": (10, 8),
    "indigo": (11, 9),
    "sugar": (11, 9),
    "tobacco": (9, 7),
    "coffee": (9, 7),
}
PLANTATION_TILES: dict[str, tuple[int, ...]] = {  # (3-5p, 2p)
    "corn": (10, 7),
    "indigo": (12, 9),
    "sugar": (11, 8),
    "tobacco": (9, 6),
    "coffee": (8, 5),
}

# --- set-up by player count ------------------------------------------------------------


class Setup(NamedTuple):
    doubloons: int
    plantations: tuple[str, ...]  # governor first, then clockwise
    quarries: int
    roles: tuple[str, ...]
    picks_per_player: int
    ships: tuple[int, ...]
    colonists: int  # in the supply
    ship_colonists: int  # on the colonist ship at start
    min_refill: int
    vp: int


BASE_ROLES = ("settler", "mayor", "builder", "craftsman", "trader", "captain")
SETUP: dict[int, Setup] = {
    2: Setup(3, ("indigo", "corn"), 5, (*BASE_ROLES, "prospector_1"), 3, (4, 6), 40, 2, 2, 65),
    3: Setup(2, ("indigo", "indigo", "corn"), 8, BASE_ROLES, 1, (4, 5, 6), 55, 3, 3, 75),
    4: Setup(
        3,
        ("indigo", "indigo", "corn", "corn"),
        8,
        (*BASE_ROLES, "prospector_1"),
        1,
        (5, 6, 7),
        75,
        4,
        4,
        100,
    ),
    5: Setup(
        4,
        ("indigo", "indigo", "indigo", "corn", "corn"),
        8,
        (*BASE_ROLES, "prospector_1", "prospector_2"),
        1,
        (6, 7, 8),
        95,
        5,
        5,
        122,
    ),
}
VP_POOL_5P: tuple[int, ...] = (122, 126)
ROLES: tuple[str, ...] = (*BASE_ROLES, "prospector_1", "prospector_2")
TRADING_HOUSE_SIZE = 4  # barrels the trading house holds; emptied if full at a trader phase's end
ISLAND_SPACES = 12  # island spaces per player, for plantations, quarries and forests
CITY_SPACES = 12  # city spaces per player; a large violet building takes 2 (R3)

# --- buildings ----------------------------------------------------------------------


BuildingKind = Literal["prod_small", "prod_large", "violet_small", "violet_large"]


class Building(NamedTuple):
    id: str
    kind: BuildingKind
    good: int  # GOODS index for production buildings, else -1
    cost: int
    vp: int
    column: int
    circles: int
    copies: int  # 3-5 players
    copies_2p: int
    expansion: bool
    slot: int  # draft slot cost (violet only; 0 for production)

    @property
    def large(self) -> bool:
        return self.kind == "violet_large"

    @property
    def violet(self) -> bool:
        return self.kind.startswith("violet")

    @property
    def spaces(self) -> int:
        return 2 if self.kind == "violet_large" else 1


def _b(
    id: str,
    kind: BuildingKind,
    good: str,
    cost: int,
    vp: int,
    col: int,
    circles: int,
    copies: int,
    copies_2p: int,
    expansion: bool = False,
    slot: int = 0,
) -> Building:
    violet = kind.startswith("violet")
    return Building(
        id,
        kind,
        GOOD_INDEX[good] if good else -1,
        cost,
        vp,
        col,
        circles,
        copies,
        copies_2p,
        expansion,
        (slot or cost) if violet else 0,
    )


BUILDINGS: dict[str, Building] = {
    b.id: b
    for b in (
        _b("small_indigo_plant", "prod_small", "indigo", 1, 1, 1, 1, 4, 2),
        _b("small_sugar_mill", "prod_small", "sugar", 2, 1, 1, 1, 4, 2),
        _b("indigo_plant", "prod_large", "indigo", 3, 2, 2, 3, 3, 2),
        _b("sugar_mill", "prod_large", "sugar", 4, 2, 2, 3, 3, 2),
        _b("tobacco_storage", "prod_large", "tobacco", 5, 3, 3, 3, 3, 2),
        _b("coffee_roaster", "prod_large", "coffee", 6, 3, 3, 2, 3, 2),
        _b("small_market", "violet_small", "", 1, 1, 1, 1, 2, 1),
        _b("hacienda", "violet_small", "", 2, 1, 1, 1, 2, 1),
        _b("construction_hut", "violet_small", "", 2, 1, 1, 1, 2, 1),
        _b("small_warehouse", "violet_small", "", 3, 1, 1, 1, 2, 1),
        _b("hospice", "violet_small", "", 4, 2, 2, 1, 2, 1),
        _b("office", "violet_small", "", 5, 2, 2, 1, 2, 1),
        _b("large_market", "violet_small", "", 5, 2, 2, 1, 2, 1),
        _b("large_warehouse", "violet_small", "", 6, 2, 2, 1, 2, 1),
        _b("factory", "violet_small", "", 7, 3, 3, 1, 2, 1),
        _b("university", "violet_small", "", 8, 3, 3, 1, 2, 1),
        _b("harbor", "violet_small", "", 8, 3, 3, 1, 2, 1),
        _b("wharf", "violet_small", "", 9, 3, 3, 1, 2, 1),
        _b("guild_hall", "violet_large", "", 10, 4, 4, 1, 1, 1),
        _b("residence", "violet_large", "", 10, 4, 4, 1, 1, 1),
        _b("fortress", "violet_large", "", 10, 4, 4, 1, 1, 1),
        _b("customs_house", "violet_large", "", 10, 4, 4, 1, 1, 1),
        _b("city_hall", "violet_large", "", 10, 4, 4, 1, 1, 1),
        # The New Buildings
        _b("aqueduct", "violet_small", "", 1, 1, 1, 1, 2, 1, True, 1),
        _b("forest_house", "violet_small", "", 2, 1, 1, 1, 2, 1, True, 2),
        _b("black_market", "violet_small", "", 2, 1, 1, 1, 2, 1, True, 2),
        _b("storehouse", "violet_small", "", 3, 1, 1, 1, 2, 1, True, 3),
        _b("guest_house", "violet_small", "", 4, 2, 2, 2, 2, 1, True, 4),
        _b("trading_post", "violet_small", "", 5, 2, 2, 1, 2, 1, True, 5),
        _b("church", "violet_small", "", 5, 2, 2, 1, 2, 1, True, 5),
        _b("small_wharf", "violet_small", "", 6, 2, 2, 1, 2, 1, True, 6),
        _b("lighthouse", "violet_small", "", 7, 3, 3, 1, 2, 1, True, 7),
        _b("specialty_factory", "violet_small", "", 8, 3, 3, 1, 2, 1, True, 8),
        _b("library", "violet_small", "", 8, 3, 3, 1, 2, 1, True, 8),
        _b("union_hall", "violet_small", "", 9, 3, 3, 1, 2, 1, True, 9),
        _b("statue", "violet_large", "", 10, 8, 4, 0, 1, 1, True, 10),
        _b("cloister", "violet_large", "", 10, 4, 4, 1, 1, 1, True, 10),
    )
}
BUILDING_ORDER: tuple[str, ...] = tuple(BUILDINGS)
PRODUCTION_BUILDINGS: tuple[str, ...] = tuple(b for b in BUILDINGS if not BUILDINGS[b].violet)
BASE_VIOLET: tuple[str, ...] = tuple(
    b for b in BUILDINGS if BUILDINGS[b].violet and not BUILDINGS[b].expansion
)
DRAFTABLE: tuple[str, ...] = tuple(b for b in BUILDINGS if BUILDINGS[b].violet)
# Production buildings of each good, (small, large) — the aqueduct credits the large one (R17).
LARGE_PRODUCER: dict[int, str] = {INDIGO: "indigo_plant", SUGAR: "sugar_mill"}
PRODUCERS: dict[int, tuple[str, ...]] = {
    g: tuple(b for b in PRODUCTION_BUILDINGS if BUILDINGS[b].good == g) for g in range(5)
}

# draft: violet slots by cost.
DRAFT_SLOTS: dict[int, int] = {1: 1, 2: 2, 3: 1, 4: 1, 5: 2, 6: 1, 7: 1, 8: 2, 9: 1, 10: 5}
EXCLUSIVE_PAIR: tuple[str, str] = ("hacienda", "forest_house")  # option `exclusive` (R5)

# factory payout by number of kinds produced.
FACTORY_PAYOUT: tuple[int, ...] = (0, 0, 1, 2, 3, 5)
# residence bonus by filled island spaces (≤9 → 4).
RESIDENCE_BONUS: dict[int, int] = {10: 5, 11: 6, 12: 7}
RESIDENCE_MIN = 4  # residence bonus VP with 9 or fewer filled island spaces (R32)
# cloister bonus by number of groups of three.
CLOISTER_BONUS: tuple[int, ...] = (0, 1, 3, 6, 10)
# Guest house moves may not go to these.
NO_GUEST_TARGET: frozenset[str] = frozenset({"guest_house", "statue"})

LOCATIONS_ISLAND: frozenset[str] = frozenset(ISLAND)
SAN_JUAN = "san_juan"  # a player's San Juan as a location, holding colonists with no circle

# Places with circles for colonists: the island kinds, then the buildings with circles.
CIRCLE_PLACES: tuple[str, ...] = (
    *ISLAND,
    *(b for b in BUILDING_ORDER if BUILDINGS[b].circles > 0),
)
# Where the black market's colonist may come from: any circle but its own, or San Juan (R18).
BLACK_MARKET_COLONIST: tuple[str, ...] = (
    *(p for p in CIRCLE_PLACES if p != "black_market"),
    SAN_JUAN,
)
# Where a guest may move to.
GUEST_TARGETS: tuple[str, ...] = tuple(p for p in CIRCLE_PLACES if p not in NO_GUEST_TARGET)

# --- options, flow and wire values ---------------------------------------------------

EXPANSIONS: tuple[str, ...] = ("none", "new-buildings")
FOREST_HOUSE_WITH_HACIENDA: tuple[str, ...] = ("allowed", "exclusive")
LIBRARY_CRAFTSMAN_GOODS: tuple[str, ...] = ("any", "different")
# The phase of each role (both prospector cards play the "prospector" phase).
ROLE_PHASES: tuple[str, ...] = (*BASE_ROLES, "prospector")
PHASES: tuple[str, ...] = ("setup", "draft", "roles", *ROLE_PHASES, "end", "over")
# The decisions one seat is asked for (a guest window asks several seats: "guest_window").
STEPS: tuple[str, ...] = (
    "draft_building",
    "choose_role",
    "settler_turn",
    "settler_library",
    "hacienda_place",
    "place_colonists",
    "builder_turn",
    "craftsman_bonus",
    "trader_turn",
    "captain_turn",
    "store",
)
GUEST_WINDOW = "guest_window"  # the step while a guest window waits on every seat in it
PASS_STEPS: tuple[str, ...] = (
    "settler_turn",
    "settler_library",
    "builder_turn",
    "trader_turn",
    "captain_turn",
)
SettleSource = Literal["face_up", "quarry", "forest"]
SETTLE_SOURCES: tuple[str, ...] = get_args(SettleSource)
VENUES: tuple[str, ...] = ("trading_house", "trading_post")
# A forest's kind as events show it while the game runs (R11).
FOREST = "forest"
# The parts of a final score (`board.score_breakdown`); the bonuses only for occupied buildings.
SCORE_PARTS: tuple[str, ...] = (
    "vp",
    "buildings",
    "guild_hall",
    "residence",
    "fortress",
    "customs_house",
    "city_hall",
    "cloister",
    "total",
)


def copies(building: str, seats: int) -> int:
    b = BUILDINGS[building]
    return b.copies_2p if seats == 2 else b.copies


def setup_for(seats: int, vp_pool_5p: int = 122) -> Setup:
    s = SETUP[seats]
    if seats == 5:
        return s._replace(vp=vp_pool_5p)
    return s


# --- field types for the API schemas: a str (or int) holding one of a fixed set ---------

Good = Annotated[str, one_of(GOODS)]
IslandKind = Annotated[str, one_of(ISLAND)]  # a plantation kind or "quarry"
Role = Annotated[str, one_of(ROLES)]
BuildingId = Annotated[str, one_of(BUILDING_ORDER)]
VioletId = Annotated[str, one_of(DRAFTABLE)]
CirclePlace = Annotated[str, one_of(CIRCLE_PLACES)]
GuestTarget = Annotated[str, one_of(GUEST_TARGETS)]
Step = Annotated[str, one_of(STEPS)]

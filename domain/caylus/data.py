"""Static tables of Caylus: cubes, locations, tiles, castle, favour table, set-up."""

from __future__ import annotations

from typing import Literal, NamedTuple

# --- cubes -----------------------------------------------------------------------------

CUBES = ("F", "W", "S", "C", "G")  # food, wood, stone, cloth, gold
CUBE_INDEX = {c: i for i, c in enumerate(CUBES)}
NON_GOLD = ("F", "W", "S", "C")  # "Y"
F, W, S, C, G = range(5)

# --- options ---------------------------------------------------------------------------

FAVOUR_MODES = ("full", "simplified")  # the favours option: favour table | 3 PP per favour
LAWYER_PRESTIGE = (3, 4)  # the lawyer_prestige option (R7)

# --- turn ------------------------------------------------------------------------------

# Phase numbers and names: 0 set-up, 1..7 the phases of a turn, 8 the game is over.
PHASE_NAMES = {
    0: "setup",
    1: "income",
    2: "placement",
    3: "special_buildings",
    4: "provost",
    5: "road",
    6: "castle",
    7: "end_of_turn",
    8: "over",
}
# The decision a seat is awaited for (`rules.decision`).
DECISIONS = (
    "place",
    "gate",
    "guild",
    "joust",
    "inn",
    "provost",
    "activate",
    "owner_bonus",
    "castle",
    "favour",
)
PROVOST_DELTAS = range(-3, 4)  # merchants' guild and phase-4 moves of the provost

# --- locations -------------------------------------------------------------------------

ROAD_SPACES = range(1, 29)
SPECIALS = ("gate", "trading_post", "merchants_guild", "joust_field", "stables", "inn")
SINGLE_SPECIALS = ("gate", "trading_post", "merchants_guild", "joust_field")
PLACE_TARGETS_NAMED = (*SPECIALS, "castle")
GATE_TARGETS_NAMED = tuple(t for t in PLACE_TARGETS_NAMED if t != "gate")
BUILDING_SITES = tuple(list(range(9, 16)) + list(range(17, 29)))  # 19 sites
START_PAWNS = 6  # bailiff and provost start on space 6
WORKERS = 6  # workers per player; placing one needs one not on the board

# --- tiles -----------------------------------------------------------------------------


Family = Literal["neutral", "fixed", "wood", "stone", "residence", "prestige"]
Kind = Literal["production", "market", "peddler", "construction", "lawyer", "exchange", "none"]


class Tile(NamedTuple):
    id: str
    family: Family
    kind: Kind
    cost: tuple[str, ...] = ()  # cube letters; "X" = any cube (gold included)
    pp: int = 0
    favours: int = 0
    income: int = 0  # phase-1 income beyond the base 2 d


TILES: dict[str, Tile] = {}


def _t(*args: object, **kw: object) -> None:
    tile = Tile(*args, **kw)  # type: ignore[arg-type]
    TILES[tile.id] = tile


for _id in ("neutral_farm", "neutral_forest", "neutral_sawmill", "neutral_quarry"):
    _t(_id, "neutral", "production")
_t("neutral_marketplace", "neutral", "market")
_t("neutral_carpenter", "neutral", "construction")
_t("fixed_peddler", "fixed", "peddler")
_t("fixed_carpenter", "fixed", "construction")
_t("gold_mine", "fixed", "production")

_t("wood_farm_food", "wood", "production", ("W", "F"), 2)
_t("wood_farm_cloth", "wood", "production", ("W", "F"), 2)
_t("wood_quarry", "wood", "production", ("W", "F"), 2)
_t("wood_sawmill", "wood", "production", ("W", "F"), 2)
_t("wood_marketplace", "wood", "market", ("W", "X"), 4)
_t("wood_peddler", "wood", "peddler", ("W", "X"), 4)
_t("mason", "wood", "construction", ("W", "F"), 4)
_t("lawyer", "wood", "lawyer", ("W", "C"), 4)  # PP from the lawyer_prestige option (R7)

_t("stone_farm", "stone", "production", ("S", "F"), 3)
_t("park", "stone", "production", ("S", "F"), 3)
_t("workshop", "stone", "production", ("S", "F"), 3)
_t("architect", "stone", "construction", ("S", "F"), 6)
_t("church", "stone", "exchange", ("S", "C"), 3, 1)
_t("tailor", "stone", "exchange", ("S", "W"), 6)
_t("bank", "stone", "exchange", ("S", "W"), 6)
_t("alchemist", "stone", "exchange", ("S", "F"), 6)
_t("jeweller", "stone", "exchange", ("S", "C"), 6)

_t("residence", "residence", "none", (), 2, 0, 1)

_t("statue", "prestige", "none", ("S", "S", "G"), 7, 1)
_t("granary", "prestige", "none", ("F", "F", "F", "G"), 10)
_t("library", "prestige", "none", ("W", "W", "W", "G"), 10, 0, 1)
_t("weaver", "prestige", "none", ("C", "C", "C", "G"), 12)
_t("theater", "prestige", "none", ("W", "W", "W", "G", "G"), 14, 1)
_t("college", "prestige", "none", ("S", "S", "S", "G", "G"), 14, 1)
_t("monument", "prestige", "none", ("S", "S", "S", "S", "G", "G"), 14, 2)
_t("hotel", "prestige", "none", ("S", "S", "S", "G", "G"), 16, 0, 2)
_t("cathedral", "prestige", "none", ("S",) * 5 + ("G",) * 3, 25)

NEUTRAL_TILES = tuple(t for t, d in TILES.items() if d.family == "neutral")
WOOD_TILES = tuple(t for t, d in TILES.items() if d.family == "wood")
STONE_TILES_BASE = tuple(t for t, d in TILES.items() if d.family == "stone" and t != "jeweller")
STONE_TILES = tuple(t for t, d in TILES.items() if d.family == "stone")  # jeweller included
PRESTIGE_TILES = tuple(t for t, d in TILES.items() if d.family == "prestige")
STOCK_TILES = (*WOOD_TILES, *STONE_TILES, *PRESTIGE_TILES)  # tiles players build from the stock
FIXED_ON_ROAD = {7: "fixed_peddler", 8: "fixed_carpenter", 16: "gold_mine"}
# Tiles a worker may be placed on: never residences, prestige tiles or empty sites.
WORKABLE_FAMILIES = frozenset({"neutral", "fixed", "wood", "stone"})
WORKABLE_TILES = tuple(t for t, d in TILES.items() if d.family in WORKABLE_FAMILIES)
# Tiles a lawyer transformation may remove (R9): neutral, wood and stone, never a lawyer.
TRANSFORMABLE_TILES = tuple(
    t for t, d in TILES.items() if d.family in ("neutral", "wood", "stone") and t != "lawyer"
)

# Production outputs: option -> cube counts [F, W, S, C, G]. One entry = no choice.
PRODUCTION: dict[str, dict[str, tuple[int, ...]]] = {
    "neutral_farm": {"F": (1, 0, 0, 0, 0), "C": (0, 0, 0, 1, 0)},
    "neutral_forest": {"W": (0, 1, 0, 0, 0), "F": (1, 0, 0, 0, 0)},
    "neutral_sawmill": {"W": (0, 1, 0, 0, 0)},
    "neutral_quarry": {"S": (0, 0, 1, 0, 0)},
    "gold_mine": {"G": (0, 0, 0, 0, 1)},
    "wood_farm_food": {"F": (2, 0, 0, 0, 0), "C": (0, 0, 0, 1, 0)},
    "wood_farm_cloth": {"C": (0, 0, 0, 2, 0), "F": (1, 0, 0, 0, 0)},
    "wood_quarry": {"S": (0, 0, 2, 0, 0)},
    "wood_sawmill": {"W": (0, 2, 0, 0, 0)},
    "stone_farm": {"FFC": (2, 0, 0, 1, 0)},
    "park": {"WWF": (1, 2, 0, 0, 0)},
    "workshop": {"SSC": (0, 0, 2, 1, 0)},
}
PRODUCTION_OPTIONS = tuple(dict.fromkeys(o for options in PRODUCTION.values() for o in options))
# Extra owner bonus of the stone production tiles: the owner picks one of two cubes.
OWNER_BONUS = {"stone_farm": ("F", "C"), "park": ("W", "F"), "workshop": ("S", "C")}

MARKET_GAIN = {"neutral_marketplace": 4, "wood_marketplace": 6}
# Peddlers: (max cubes, deniers per cube); the fixed one sells 1 Y for 2 d.
PEDDLER = {"fixed_peddler": (1, 2), "wood_peddler": (2, 1)}

# Exchange tiles: option -> (deniers paid, cubes paid [F,W,S,C,G], PP gained, cubes gained).
# The Alchemist's "Y" payment is chosen by the player (handled in rules).
EXCHANGE: dict[str, dict[str, tuple[int, tuple[int, ...], int, tuple[int, ...]]]] = {
    "church": {
        "first": (2, (0, 0, 0, 0, 0), 3, (0, 0, 0, 0, 0)),
        "second": (4, (0, 0, 0, 0, 0), 5, (0, 0, 0, 0, 0)),
    },
    "tailor": {
        "first": (0, (0, 0, 0, 2, 0), 4, (0, 0, 0, 0, 0)),
        "second": (0, (0, 0, 0, 3, 0), 6, (0, 0, 0, 0, 0)),
    },
    "bank": {
        "first": (2, (0, 0, 0, 0, 0), 0, (0, 0, 0, 0, 1)),
        "second": (5, (0, 0, 0, 0, 0), 0, (0, 0, 0, 0, 2)),
    },
    "jeweller": {
        "first": (0, (0, 0, 0, 0, 1), 5, (0, 0, 0, 0, 0)),
        "second": (0, (0, 0, 0, 0, 2), 9, (0, 0, 0, 0, 0)),
    },
}
ALCHEMIST = {"first": (2, 1), "second": (4, 2)}  # Y given -> G gained
EXCHANGE_OPTIONS = ("first", "second")  # the two alternatives of every exchange tile

# --- castle ----------------------------------------------------------------------------

SECTIONS = ("dungeon", "walls", "towers")
SECTION_SIZE = (6, 10, 14)
SECTION_PP = (5, 4, 3)
SECTION_TRIGGER = (12, 18, 24)
SECTION_PENALTY = (2, 3, 4)  # houses = 0 (R11)


def section_favours(section: int, houses: int) -> int:
    """Favours for `houses` of one player in a section being scored (0 or 1 house: none)."""
    if houses < 2:
        return 0
    if section == 0:
        return 1
    if section == 1:
        return 1 if houses == 2 else 2 if houses <= 4 else 3
    return 1 if houses <= 3 else 2 if houses <= 5 else 3


BATCHES = ("FWS", "FWC", "FWG", "FSC", "FSG", "FCG")

# --- favour table ----------------------------------------------------------------------

ROWS = ("a", "b", "c", "d")  # prestige, deniers, cubes, buildings
ROW_INDEX = {r: i for i, r in enumerate(ROWS)}
FAVOUR_COLUMNS = range(6)  # 1..5 the table's columns; 0 declines a row c or d effect
FAVOUR_CAPS = (2, 4, 5)  # highest column: from the start, after the dungeon, after the walls
FAVOUR_C2_CUBES = ("W", "S")  # row c column 2: +1 W or +1 S


# --- set-up ------------------------------------------------------------------------------

STARTING_DENIERS = {
    2: (5, 5),
    3: (5, 6, 6),
    4: (5, 6, 6, 7),
    5: (5, 6, 6, 7, 7),
}
STARTING_CUBES = (2, 1, 0, 0, 0)  # 2 F + 1 W


def cube_vector(letters: str | tuple[str, ...] | list[str]) -> list[int]:
    out = [0, 0, 0, 0, 0]
    for letter in letters:
        out[CUBE_INDEX[letter]] += 1
    return out


# --- events ----------------------------------------------------------------------------

# Why deniers, cubes or PP changed (`resources_changed`), in about the order they happen.
RESOURCE_REASONS = (
    "start",  # starting deniers and cubes
    "income",  # phase 1
    "placement",  # a worker placed (phase 2)
    "first_to_pass",  # +1 d for passing-scale position 1
    "owner_bonus",  # +1 PP for another's worker on an owned tile, or a stone tile's extra cube
    "trading_post",
    "joust_field",
    "provost",  # a phase-4 provost move
    "production",
    "market",
    "peddler",
    "build",  # a tile built by a road building (its cost and PP)
    "lawyer",  # a lawyer tile's payment
    "residence",  # +2 PP for a transformation into a residence
    "exchange",
    "favour",  # a favour's effect (or its 3 PP with simplified favours)
    "castle",  # a batch handed in
    "castle_penalty",
    "scoring_penalty",
    "final_bonus",
)
# Why favours were won (`favours_gained`): a tile's build, the joust field, the best castle
# builder, or the scoring of a castle section (named).
FAVOUR_REASONS = ("build", "joust_field", "best_builder", *SECTIONS)

"""Component data of Santa Maria. Every value marked *[Tabletop edition]* (ours where the
printed game gives none) lives here and nowhere else, so the publisher's data can replace it
without touching the rules.

Boards are 6x6 grids of cell codes: `.` empty, `#` blocked, `=` road, else a building code of
BUILDING_EFFECTS. Coordinates are (row, col), both 1..6; a flat index is (row-1)*6 + (col-1).
"""

from __future__ import annotations

# --- economy ----------------------------------------------------------------------

RESOURCES: tuple[str, ...] = ("wood", "grain", "sugar", "gem", "gold")
COST_KINDS: tuple[str, ...] = ("wood", "grain", "sugar", "gem")  # what a cost may name (R13)
SORT_ORDER: dict[str, int] = {k: i for i, k in enumerate(COST_KINDS)}

STORAGE_LIMIT = 3  # most of each resource a player may hold; a gain past it is sold at once (R14)
STORAGE_LIMIT_SC05 = 5  # the storage limit with scholar SC05 (Quartermaster)
SELL_PRICE: dict[str, int] = {"wood": 1, "grain": 1, "sugar": 2, "gem": 2, "gold": 2}
SELL_BONUS_SC04 = 1  # extra coins per resource sold, overflow sales included, with SC04 (Merchant)
BUY_PRICE: dict[str, int] = {"wood": 3, "grain": 3}
EXPANSION_COST: dict[str, dict[str, int]] = {
    "double": {"wood": 2},
    "triple": {"wood": 2, "grain": 1},  # R1
}
EXPANSION_WOOD_DISCOUNT_SC01 = 1  # wood off each expansion's cost with SC01 (Surveyor)
WHITE_DICE_CAP = 3  # white dice a player may take per year (R24)
WHITE_DICE_CAP_SC09 = 4  # the white-dice cap with SC09 (Foreman)
STARTING_WOOD = 2  # wood each player gains at set-up
STARTING_COINS: tuple[int, ...] = (3, 4, 5, 6)  # by turn position in year 1
YEARS = 3  # years (rounds) in a game; final scoring follows year 3's conquistador scoring
DICE_PER_PLAYER = 3  # white dice rolled per player per year; blue dice per player in the supply
DISPLAY_PER_KIND = 5  # tiles of each kind (double, triple) dealt face up to the display each year

# --- building effect codes [Tabletop edition] ---------------------------------------
# Each building code resolves these atomic effects in order. Atomic effects:
#   W G S J: gain 1 wood/grain/sugar/gem; Cn: gain n coins; Pn: score n points;
#   RL religion action; CQ conquistador action; SH shipping action; TG/TL trades.
BUILDING_EFFECTS: dict[str, tuple[str, ...]] = {
    "W": ("W",),
    "G": ("G",),
    "S": ("S",),
    "J": ("J",),
    "C2": ("C2",),
    "P1": ("P1",),
    "RL": ("RL",),
    "CQ": ("CQ",),
    "SH": ("SH",),
    "TG": ("TG",),
    "TL": ("TL",),
    "W+G": ("W", "G"),
    "C1+SH": ("C1", "SH"),
    "C1+RL": ("C1", "RL"),
    "C1+CQ": ("C1", "CQ"),
}
PRODUCTION: dict[str, str] = {"W": "wood", "G": "grain", "S": "sugar", "J": "gem"}
EMPTY, BLOCKED, ROAD = ".", "#", "="

# Trades: code -> (input kinds, {output: amount}); gold may replace the input (R32).
TRADES: dict[str, tuple[tuple[str, ...], dict[str, int]]] = {
    "TG": (("grain",), {"coins": 3}),
    "TL": (("sugar", "gem"), {"points": 2, "coins": 4}),
}

# --- colony boards (side A) [Tabletop edition] -------------------------------------

BOARD_NAMES: tuple[str, ...] = ("hacienda", "puerto", "mision", "fortaleza")
BOARDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "hacienda": (
        ("W+G", ".", ".", ".", "W", "."),
        (".", ".", "CQ", ".", ".", "#"),
        (".", "G", ".", ".", "TG", "."),
        ("C2", ".", ".", "RL", ".", "."),
        (".", ".", "SH", ".", ".", "W"),
        ("#", "S", ".", ".", ".", "."),
    ),
    "puerto": (
        (".", "S", ".", ".", ".", "C1+SH"),
        ("#", ".", ".", "SH", ".", "."),
        (".", "W", ".", ".", "G", "."),
        (".", ".", "C2", ".", ".", "TL"),
        ("W", ".", ".", "RL", ".", "."),
        (".", ".", ".", ".", "CQ", "#"),
    ),
    "mision": (
        ("#", "J", ".", ".", ".", "."),
        (".", ".", "SH", ".", ".", "W"),
        ("W", ".", ".", "RL", ".", "."),
        (".", "G", ".", ".", "C1+RL", "."),
        (".", ".", "CQ", ".", ".", "#"),
        ("C2", ".", ".", ".", "TG", "."),
    ),
    "fortaleza": (
        (".", ".", ".", ".", "G", "#"),
        ("W", ".", ".", "CQ", ".", "."),
        (".", ".", "C2", ".", ".", "RL"),
        (".", "J", ".", ".", "TL", "."),
        ("#", ".", ".", "C1+CQ", ".", "."),
        (".", "W", ".", ".", ".", "SH"),
    ),
}
GRID = 6  # rows and columns of a colony board (coordinates 1..6)

# --- expansion tiles [Tabletop edition] ---------------------------------------------

SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "double": ((0, 0), (0, 1)),
    "I": ((0, 0), (0, 1), (0, 2)),
    "L": ((0, 0), (0, 1), (1, 0)),
}
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)

# id -> (shape, square codes in square order a, b, c)
DOUBLE_TILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "DB01": ("double", ("W", "G")),
    "DB02": ("double", ("W", "S")),
    "DB03": ("double", ("G", "J")),
    "DB04": ("double", ("W", "J")),
    "DB05": ("double", ("G", "J")),
    "DB06": ("double", ("S", "C2")),
    "DB07": ("double", ("J", "P1")),
    "DB08": ("double", ("G", "RL")),
    "DB09": ("double", ("W", "CQ")),
    "DB10": ("double", ("S", "SH")),
    "DB11": ("double", ("C2", "CQ")),
    "DB12": ("double", ("RL", "=")),
    "DB13": ("double", ("CQ", "=")),
    "DB14": ("double", ("SH", "=")),
    "DB15": ("double", ("TG", "G")),
}
TRIPLE_TILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "TR01": ("I", ("W", "G", "S")),
    "TR02": ("I", ("W", "G", "J")),
    "TR03": ("L", ("S", "J", "=")),
    "TR04": ("L", ("W", "W", "G")),
    "TR05": ("I", ("G", "RL", "=")),
    "TR06": ("L", ("CQ", "J", "=")),
    "TR07": ("I", ("C2", "P1", "S")),
    "TR08": ("L", ("S", "SH", "J")),
    "TR09": ("I", ("G", "G", "RL")),
    "TR10": ("L", ("TG", "G", "W")),
    "TR11": ("I", ("W", "CQ", "S")),
    "TR12": ("L", ("P1", "C2", "J")),
    "TR13": ("I", ("SH", "=", "S")),
    "TR14": ("L", ("J", "TL", "S")),
    "TR15": ("L", ("RL", "CQ", "=")),
}
TILES: dict[str, tuple[str, tuple[str, ...]]] = {**DOUBLE_TILES, **TRIPLE_TILES}


def tile_kind(tile: str) -> str:
    """`double` or `triple` (the cost class of a tile)."""
    return "double" if tile in DOUBLE_TILES else "triple"


# --- road tiles -------------------------------------------------------------------------

ROAD_TILES = 3  # road tiles for the whole game, stacked on RS5 and never replenished (R16)
ROAD_TILE_ID = "RD"  # a road tile's id in a colony's per-cell tile_on

# --- religion track [Tabletop edition] -----------------------------------------------

RELIGION_END = 15  # last religion-track space (start 0); each step past it scores 1 point (R19)
MONK_SYMBOLS: tuple[int, ...] = (2, 4, 7, 10, 13, 15)
BLUE_UNLOCK_SYMBOLS: tuple[int, ...] = (2, 7)  # the 1st and 3rd symbols
MAX_BLUE_DICE = 1 + len(BLUE_UNLOCK_SYMBOLS)  # blue dice a player may own: 1 + 1 per unlock symbol
MONKS_PER_PLAYER = 6  # monks each player starts with in reserve

# --- conquistador track and year-end table [Tabletop edition] ------------------------

CONQUISTADOR_END = 15  # last conquistador-track space (start 0); steps past it are lost
GOLD_SYMBOLS: tuple[int, ...] = (3, 6, 9, 12, 15)
# players -> year -> points by rank (rank 1 first); ranks not listed (and the last) score 0.
CONQUISTADOR_TABLE: dict[int, dict[int, tuple[int, ...]]] = {
    2: {1: (3,), 2: (5,), 3: (7,)},
    3: {1: (4, 2), 2: (6, 3), 3: (8, 4)},
    4: {1: (5, 3, 1), 2: (7, 4, 2), 3: (9, 5, 3)},
}

# --- monk spaces --------------------------------------------------------------------

SCHOLAR_SPACES: tuple[str, ...] = ("scholar-1", "scholar-2", "scholar-3")
BISHOP_SPACES: tuple[str, ...] = ("bishop-1", "bishop-2", "bishop-3")
MISSION_SPACES: tuple[str, ...] = ("mission-1", "mission-2", "mission-3", "mission-4")
MONK_SPACES: tuple[str, ...] = SCHOLAR_SPACES + BISHOP_SPACES + MISSION_SPACES
RECRUIT_FEE = 2  # coins to each other player already on the space

# id -> (name, end-game points). Abilities are keyed by id in the rules (SC01..SC10).
SCHOLARS: dict[str, tuple[str, int]] = {
    "SC01": ("Surveyor", 1),
    "SC02": ("Astronomer", 2),
    "SC03": ("Treasurer", 2),
    "SC04": ("Merchant", 2),
    "SC05": ("Quartermaster", 3),
    "SC06": ("Navigator", 2),
    "SC07": ("Preacher", 2),
    "SC08": ("Captain", 2),
    "SC09": ("Foreman", 1),
    "SC10": ("Alchemist", 3),
}
NAVIGATOR_COINS = 2  # SC06: coins in place of one resource of a ship's cost
PREACHER_MAX_EXTRA = 2  # SC07
RELIGION_MAX_EXTRA = 1  # extra steps a religion action may buy, 1 grain or gold each (SC07: 2)
CAPTAIN_COST = 2  # SC08: coins for one extra conquistador step

# id -> (name, scoring rule key, points per unit, unit size). Each also costs BISHOP_COST.
BISHOPS: dict[str, tuple[str, str, int, int]] = {
    "BI01": ("Bishop of the Harbour", "ship_tiles", 2, 1),
    "BI02": ("Bishop of Order", "complete_lines", 2, 1),
    "BI03": ("Bishop of Faith", "monks_placed", 2, 1),
    "BI04": ("Bishop of Conquest", "conquistador_position", 1, 2),
    "BI05": ("Bishop of Treasure", "coins", 1, 3),
    "BI06": ("Bishop of Roads", "roads", 2, 1),
}
BISHOP_COST = 2  # points each bishop a player has a monk on costs at game end

# mission space -> (station id, reward {resource|coins|points: n}) gained at recruitment.
MISSIONS: dict[str, tuple[str, dict[str, int]]] = {
    "mission-1": ("MS1", {"wood": 2, "grain": 1}),
    "mission-2": ("MS2", {"sugar": 1, "gem": 1}),
    "mission-3": ("MS3", {"gold": 1, "coins": 2}),
    "mission-4": ("MS4", {"points": 3}),
}

# --- shipping tiles and docks [Tabletop edition] -------------------------------------

_K = {"W": "wood", "G": "grain", "S": "sugar", "J": "gem"}


def _ship(cost: str, points: int) -> tuple[tuple[str, ...], int]:
    return tuple(_K[c] for c in cost.split()), points


STARTING_SHIPS: dict[str, tuple[tuple[str, ...], int]] = {
    "SO1": _ship("W G", 1),
    "SO2": _ship("W S", 1),
    "SO3": _ship("G J", 1),
    "SO4": _ship("S J", 2),
}
STANDARD_SHIPS: dict[str, tuple[tuple[str, ...], int]] = {
    "SW01": _ship("W W", 1),
    "SW02": _ship("G G", 1),
    "SW03": _ship("S S", 2),
    "SW04": _ship("J J", 2),
    "SW05": _ship("W S", 1),
    "SW06": _ship("G J", 1),
    "SW07": _ship("W J", 1),
    "SW08": _ship("G S", 1),
    "SW09": _ship("W G S", 3),
    "SW10": _ship("W G J", 3),
    "SW11": _ship("W W G", 2),
    "SW12": _ship("W G G", 2),
    "SW13": _ship("S S J", 4),
    "SW14": _ship("S J J", 4),
    "SW15": _ship("W S S", 3),
    "SW16": _ship("G J J", 3),
    "SW17": _ship("W S J", 3),
    "SW18": _ship("G S J", 3),
    "SW19": _ship("W W S", 3),
    "SW20": _ship("G G J", 3),
    "SW21": _ship("S S S", 4),
    "SW22": _ship("J J J", 4),
    "SW23": _ship("W W G G", 4),
    "SW24": _ship("W G S J", 5),
    "SW25": _ship("S S J J", 6),
    "SW26": _ship("W W S J", 5),
    "SW27": _ship("G G S J", 5),
    "SW28": _ship("W G S S", 5),
    "SW29": _ship("W G J J", 5),
    "SW30": _ship("W G S J", 5),
}
SHIPS: dict[str, tuple[tuple[str, ...], int]] = {**STARTING_SHIPS, **STANDARD_SHIPS}
DOCKS = 4  # docks on the common board and in each port, 1 to 4
# dock -> atomic income effect per tile in that port dock when its owner retires.
DOCK_INCOME: dict[int, str] = {1: "C3", 2: "RL", 3: "CQ", 4: "P2"}

# --- retire spaces ---------------------------------------------------------------------

RETIRE_SPACES: tuple[str, ...] = ("RS1", "RS2", "RS3", "RS4", "RS5")
# space -> atomic effects of its action ("ROAD" is the optional road placement).
RETIRE_ACTIONS: dict[str, tuple[str, ...]] = {
    "RS1": ("C2",),
    "RS2": ("RL",),
    "RS3": ("CQ",),
    "RS4": ("SH",),
    "RS5": ("ROAD",),
}
# Queued after a retire space's action: the income step reads the port only when it starts, so a
# tile shipped by RS4 pays its dock's income in the same retire.
SHIPPING_INCOME = "INCOME"

# --- fixed vocabularies (the JSON Schema enums of commands, views and events) ------------------

COLONY_BOARD_MODES: tuple[str, ...] = ("random", "draft")  # option colony_boards
DIE_COLOURS: tuple[str, ...] = ("white", "blue")
DOCK_NUMBERS: tuple[int, ...] = tuple(range(1, DOCKS + 1))
CELL_CODES: tuple[str, ...] = (EMPTY, BLOCKED, ROAD, *BUILDING_EFFECTS)
# What an expansion may be paid with: the kinds of its cost, and gold in their place (R13).
EXPANSION_COST_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(k for cost in EXPANSION_COST.values() for k in cost)
)
EXPANSION_PAID_KINDS: tuple[str, ...] = (*EXPANSION_COST_KINDS, "gold")
SHIP_PAID_KINDS: tuple[str, ...] = (*COST_KINDS, "gold", "coins")  # coins: SC06 only
TRADE_PAY: tuple[str, ...] = (
    *dict.fromkeys(k for inputs, _ in TRADES.values() for k in inputs),
    "gold",  # R32
)
TRADE_GAIN: tuple[str, ...] = tuple(dict.fromkeys(k for _, out in TRADES.values() for k in out))
POINT_REASONS: tuple[str, ...] = ("effect", "mission")  # a building/income effect, a mission
BUILDING_ATOMS: tuple[str, ...] = tuple(
    dict.fromkeys(e for effects in BUILDING_EFFECTS.values() for e in effects)
)
RETIRE_ATOMS: tuple[str, ...] = (
    *dict.fromkeys(e for effects in RETIRE_ACTIONS.values() for e in effects),
    SHIPPING_INCOME,
)
# Every atomic effect a queue may hold; "M<space>" resolves a monk symbol entered on the
# religion track (the blue-die unlock, then the recruit decision).
EFFECTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *BUILDING_ATOMS,
            *DOCK_INCOME.values(),
            *RETIRE_ATOMS,
            *(f"M{space}" for space in MONK_SYMBOLS),
        ]
    )
)

"""Component data. Every value marked *[Tabletop edition]* (ours where the printed game gives
none) lives here and only here, so the publisher's data can replace it without touching the
rules. No rule depends on a particular tile or estate id."""

from __future__ import annotations

NAME = "plus-ultra"  # the name the engine registers the game under
TITLE = "Plus Ultra"  # the game's printed title
MIN_PLAYERS = 2  # fewest players
MAX_PLAYERS = 4  # most players
TURNS = 7  # game turns; final scoring follows turn 7
ROUNDS_PER_TURN = 2  # rounds per turn: each player uses one of his 2 characters in each

# --- options and vocabularies ----------------------------------------------------------
COMMON_ACTIONS_PER_TURN = (1, 2)  # option values (R3)
INITIAL_ORDERS = ("random", "seats")  # option values (R41)
# the state's phases, in turn order; the views stop only at reactivate, draft, bulls,
# commit, rounds and over (the engine runs through the others)
PHASES = (
    "setup",
    "turn_start",
    "reactivate",
    "draft",
    "bulls",
    "commit",
    "rounds",
    "end_turn",
    "scoring",
    "over",
)
PENDING_KINDS = ("natives", "colony", "levy", "raid")  # sub-decisions
ACTION_NUMBERS = (1, 2)  # each character's action 1 and action 2
SOURCES = ("market", "surplus")  # where the Cardinal and the Merchant take a good
ITEMS = ("rose_window", "house", "magellan")  # Secretary action 1; workshops: the first two
CAPTURE_METHODS = ("bull", "pay")  # Viceroy action 2; natives found exploring: or decline
NATIVES_CHOICES = (*CAPTURE_METHODS, "decline")
RAID_CHOICES = ("tire", "pay")
MERCHANT_PAYS = (2, 3, 4)  # Merchant action 2: ducats paid for pay - 1 GP
VISIT_COURT_STEPS = (1, 2)
RESULT_KEYS = ("scores", "ranks", "positions", "details")  # the final result
RESULT_DETAILS = ("in_game_gp", "components", "totals", "positions")  # its details

# --- goods -----------------------------------------------------------------------------
GOODS = ("gold", "silver", "gems", "spices")
ROSE_WINDOW_GP = {"gold": 2, "gems": 2, "silver": 1, "spices": 1}

# --- characters: id -> resource icon (hoarded good) ------------------------------------
CHARACTERS = (
    "admiral",
    "cardinal",
    "merchant",
    "constable",
    "conquistador",
    "pirate",
    "king",
    "secretary_of_state",
    "viceroy",
)
CHARACTER_ICON = {
    "admiral": "spices",  # [Tabletop edition]
    "cardinal": "gold",  # [Tabletop edition]
    "merchant": "silver",  # printed
    "constable": "silver",  # [Tabletop edition]
    "conquistador": "gold",  # [Tabletop edition]
    "pirate": "gems",  # [Tabletop edition]
    "king": "gems",  # [Tabletop edition]
    "secretary_of_state": "spices",  # [Tabletop edition]
    "viceroy": "silver",  # [Tabletop edition]
}

# --- common actions: id -> ducat cost (visit_court costs `steps`) ----------------------
COMMON_ACTIONS = (
    "court_painter",
    "loan",
    "fund_tercios",
    "trade_routes",
    "open_mission",
    "visit_court",
    "workshops",
    "buy_estate",
)
COMMON_COST = {
    "court_painter": 4,
    "loan": 0,
    "fund_tercios": 2,
    "trade_routes": 2,
    "open_mission": 2,
    "visit_court": None,  # 1 or 2, the number of steps
    "workshops": 2,
    "buy_estate": 4,
}
COURT_PAINTER_GP = 2  # GP the court_painter common action gives
LOAN_GP_COST = 1  # GP the loan common action costs; GP may go negative (R28)
LOAN_DUCATS = 3  # ducats the loan common action gives

# --- New World tiles -------------------------------------------------------------
# id -> (kind, good or None, colony max size or None); kind in goods | natives | colony


def _new_world() -> dict[str, tuple[str, str | None, int | None]]:
    tiles: dict[str, tuple[str, str | None, int | None]] = {}
    spec = (  # [Tabletop edition] (first id, count, kind, good, size)
        (1, 5, "goods", "gold", None),
        (6, 9, "goods", "silver", None),
        (15, 6, "goods", "gems", None),
        (21, 9, "goods", "spices", None),
        (30, 6, "natives", None, None),
        (36, 2, "colony", None, 2),
        (38, 2, "colony", None, 3),
        (40, 1, "colony", None, 4),
    )
    for first, count, kind, good, size in spec:
        for i in range(first, first + count):
            tiles[f"nw_{i:02d}"] = (kind, good, size)
    return tiles


NEW_WORLD_TILES = _new_world()  # the 40 stack tiles
STARTING_GOODS = (  # placed in this order into the Market, the fifth starts the Surplus (R10)
    ("start_gold", "gold"),
    ("start_spices", "spices"),
    ("start_silver_1", "silver"),
    ("start_silver_2", "silver"),
    ("start_silver_3", "silver"),
)
BLUE_COLONIES = (("blue_colony_1", 3), ("blue_colony_2", 3))  # [Tabletop edition] sizes
BLUE_COLONY_TURNS = (2, 5)

TILES: dict[str, tuple[str, str | None, int | None]] = dict(NEW_WORLD_TILES)
for _tid, _good in STARTING_GOODS:
    TILES[_tid] = ("goods", _good, None)
for _tid, _size in BLUE_COLONIES:
    TILES[_tid] = ("colony", None, _size)
ALL_TILE_IDS = tuple(TILES)  # 47
GOODS_TILES = tuple(t for t, (kind, _, _) in TILES.items() if kind == "goods")  # 29 + 5
NATIVES_TILES = tuple(t for t, (kind, _, _) in TILES.items() if kind == "natives")
COLONY_TILES = tuple(t for t, (kind, _, _) in TILES.items() if kind == "colony")  # 5 + 2 blue
BLUE_COLONY_TILES = tuple(t for t, _ in BLUE_COLONIES)


def tile_kind(tile: str) -> str:
    return TILES[tile][0]


def tile_good(tile: str) -> str | None:
    return TILES[tile][1]


def colony_size(tile: str) -> int:
    size = TILES[tile][2]
    assert size is not None
    return size


# --- estates [Tabletop edition] --------------------------------------------------------
# id -> (GP at game end, one-shot effect or None)
ESTATES: dict[str, tuple[int, str | None]] = {
    "olive_grove": (1, "tercio_active"),
    "vineyard": (1, "bull"),
    "cloister_lands": (1, "bull"),
    "wheat_fields": (1, "ducats_3"),
    "quarry": (1, "rose_window"),
    "hacienda": (1, "house"),
    "shipyard": (1, "sea_trade"),
    "horse_stud": (2, "refresh_tercios"),
    "manor_house": (2, None),
    "castle": (3, None),
}
ESTATES_IN_PLAY = 6  # estates of the 10 dealt into the stack; the other 4 are out of the game (R1)

# --- pieces and supplies -----------------------------------------------------------
TERCIOS_PER_PLAYER = 5  # tercios per player: reserve, war track and box
START_TERCIOS_ACTIVE = 2  # active tercios each player starts with; the rest in his box (R34)
HOUSES_PER_PLAYER = 5  # houses per player: stock, colonies and box (R2)
START_HOUSES = 2  # houses each player starts with in stock; the rest in his box
ROSE_WINDOWS = 10  # rose-window cards, shared: 1 face up per player at set-up, the rest the supply
START_DUCATS = 2  # ducats each player starts with
START_CROWN = 4  # ducats on the Crown at set-up
BULLS_BY_PLAYERS = {2: 3, 3: 4, 4: 5}
MAGELLAN_BY_PLAYERS = {2: 5, 3: 5, 4: 6}
BULL_PRICE = 3  # ducats a bull costs in S6 (at most one per player per turn)
REACTIVATION_PRICE = 1  # ducats to make all of a player's tercios active in S2 (R34)
DICE = 3  # six-sided war dice rolled in S3; the war level is their median (R32)

# --- board sizes -----------------------------------------------------------------------
EXPLORATION_SPACES = 7  # exploration rows, 1 to 7 from the top (set-up deals 7 tiles)
COLONY_SPACES = 7  # [Tabletop edition]
MARKET_SPACES = 4  # [Tabletop edition]
CHURCH_SPACES = 4  # [Tabletop edition]
WAR_SPACES = 6  # [Tabletop edition]
SEA_TRADE_MAX = 15  # [Tabletop edition]
CROWN_MAX = 6  # most ducats on the Crown; any excess goes at once to the players (R7)

# --- income, rewards and scoring --------------------------------------------------------------
PEER_DUCATS = {3: 1, 4: 2}  # acting position -> ducats (R6)
PEER_GP = {5: {1: 1}, 6: {1: 2, 2: 1}, 7: {1: 2, 2: 1}}  # turn -> position -> GP


def king_gp(crown: int) -> int:
    return (0, 0, 1, 1, 2, 2, 3)[crown]


SECRETARY_BONUS_GP = 2  # GP to the Secretary's holder at the reveal if no other player has the King
EXPLORE_GOODS_GP = 2  # GP for a goods tile revealed by Conquistador action 1
ADMIRAL_BONUS_GP = 2  # GP for Admiral action 1 when no good of that kind is in the Market (R13)
DONATION_GP = 1  # GP for each Church donation, Cardinal action 1 (R14)
CHURCH_COMPLETION_GP = 2  # GP to the donor who fills the last church space (R14)
MAGELLAN_COMPLETION_GP = 3  # per card held (R29)
MAGELLAN_INCOMPLETE_GP = 1  # per card at the end
MAJORITY_GP = {2: 1, 3: 2, 4: 3}  # colony max size -> majority GP
SEA_TRADE_AWARDS = (5, 3, 1)  # highest, next distinct, every other with presence (R37)
CONVERSION_RATE = 5  # ducats, tercios, rose windows and houses in stock per GP at the end (R36)
MERCHANT_BASE_PRICE = 4  # ducats a Merchant sale pays, less 1 per same good in the Market (R11)

"""The whole game state as plain data (msgspec Structs). Hidden values (the order of the ship
stack and of the two expansion stacks) live here and stop at `view.py`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec.structs import replace

from domain.enums import one_of
from domain.santa_maria import data

# Fixed vocabularies (schema-only enums: the values stay plain str/int), from data.py.
Resource = Annotated[str, one_of(data.RESOURCES)]
CostKind = Annotated[str, one_of(data.COST_KINDS)]
BoardName = Annotated[str, one_of(data.BOARD_NAMES)]
TileId = Annotated[str, one_of(data.TILES)]
DoubleTile = Annotated[str, one_of(data.DOUBLE_TILES)]
TripleTile = Annotated[str, one_of(data.TRIPLE_TILES)]
ShipId = Annotated[str, one_of(data.SHIPS)]
StandardShip = Annotated[str, one_of(data.STANDARD_SHIPS)]
ScholarId = Annotated[str, one_of(data.SCHOLARS)]
BishopId = Annotated[str, one_of(data.BISHOPS)]
MonkSpace = Annotated[str, one_of(data.MONK_SPACES)]
RetireSpace = Annotated[str, one_of(data.RETIRE_SPACES)]
Effect = Annotated[str, one_of(data.EFFECTS)]
BuildingAtom = Annotated[str, one_of(data.BUILDING_ATOMS)]
DieColour = Annotated[str, one_of(data.DIE_COLOURS)]
Dock = Annotated[int, one_of(data.DOCK_NUMBERS)]


class SantaMariaOptions(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    # How colony boards are assigned: random (dealt clockwise from the start player) or draft
    # (chosen one seat at a time, counter-clockwise, the start player last).
    colony_boards: Annotated[str, one_of(data.COLONY_BOARD_MODES)] = "random"


DecisionKind = Literal["trade", "ship", "religion", "conquistador", "recruit", "road"]
Phase = Literal["setup", "draft", "play", "year_end", "over"]


class Decision(msgspec.Struct, kw_only=True):
    """A pending optional choice of the active player."""

    # The decision awaited, answered by the command of that name (road: place_road); decline
    # is an answer to trade, ship, recruit and road only.
    kind: DecisionKind
    # The trade building (TG or TL) for a trade decision; "" for any other kind.
    building: Annotated[str, one_of(("", *data.TRADES))] = ""
    # Most extra steps allowed: religion 1 (2 with SC07); conquistador 1 (SC08); else 0.
    max_extra: int = 0


class PlayerState(msgspec.Struct, kw_only=True):
    seat: int  # the player's seat, 0-based
    board: Annotated[str, one_of(("", *data.BOARD_NAMES))] = ""  # colony board; "" not yet drafted
    # Cell codes of the colony, flat 6x6 row by row: index (row-1)*6 + (col-1); "." empty,
    # "#" blocked, "=" road, else a building code (the same index in every per-cell list).
    cells: list[Annotated[str, one_of(data.CELL_CODES)]] = msgspec.field(
        default_factory=lambda: ["."] * 36
    )
    # Per cell: true where the board has it pre-printed (a building or blocked cell).
    printed: list[bool] = msgspec.field(default_factory=lambda: [False] * 36)
    # Per cell: the expansion tile covering it, "RD" for a road tile, "" for none.
    tile_on: list[Annotated[str, one_of(("", *data.TILES, data.ROAD_TILE_ID))]] = msgspec.field(
        default_factory=lambda: [""] * 36
    )
    # Per cell: the die on it this year: 0 none, 1 white, 2 blue.
    die_on: list[Annotated[int, one_of((0, 1, 2))]] = msgspec.field(
        default_factory=lambda: [0] * 36
    )
    # Per cell: coins paid onto it by a coin activation this year (0: none).
    coins_on: list[int] = msgspec.field(default_factory=lambda: [0] * 36)
    # Resources held, keyed by resource (0 to the storage limit: 3, 5 with SC05).
    res: dict[Resource, int] = msgspec.field(default_factory=lambda: {k: 0 for k in data.RESOURCES})
    coins: int = 0  # coins held
    points: int = 0  # points scored so far in play (ships, scholars, bishops count at the end)
    religion: int = 0  # religion track space, 0 (start) to 15 (end)
    conquistador: int = 0  # conquistador track space, 0 (start) to 15 (end)
    conq_arrival: int = 0  # stack height key on a shared space: later arrival ranks ahead
    conq_acted: bool = False  # "conquistador action this year" (R6)
    # Coin activations this year; the next costs this + 1 coins (SC03: max(1, this)).
    coin_activations: int = 0
    coins_paid: int = 0  # coins lying on buildings this year
    white_taken: int = 0  # white dice taken this year (cap 3, 4 with SC09)
    # Values of the white dice on the colony this year, in the order taken.
    white_faces: list[int] = msgspec.field(default_factory=list)
    blue: list[int] = msgspec.field(default_factory=list)  # blue dice faces, die i at index i-1
    # Per blue die (index i-1): true once it has been placed this year.
    blue_used: list[bool] = msgspec.field(default_factory=list)
    blue_locked: list[bool] = msgspec.field(default_factory=list)  # unlocked on retire turn (R29)
    monks_reserve: int = data.MONKS_PER_PLAYER  # monks not yet placed (of 6)
    symbols_entered: int = 0  # religion-track monk symbols entered so far (0..6)
    # Scholars the player has a monk on, in recruitment order.
    scholars: list[ScholarId] = msgspec.field(default_factory=list)
    # Bishops the player has a monk on, in recruitment order.
    bishops: list[BishopId] = msgspec.field(default_factory=list)
    # Shipped tiles by port dock (dock d at index d-1), each dock in arrival order.
    port: list[list[ShipId]] = msgspec.field(default_factory=lambda: [[], [], [], []])
    retired: bool = False  # retired this year: skipped until the year ends
    alchemy_used: bool = False  # SC10's alchemy used this year
    main_actions: int = 0  # main actions this year (termination invariant)


class SantaMariaState(msgspec.Struct, kw_only=True):
    seats: int
    options: SantaMariaOptions
    phase: Phase = "setup"
    year: int = 0
    start_player: int = 0
    active: int = -1
    draft_order: list[int] = msgspec.field(default_factory=list)
    players: list[PlayerState] = msgspec.field(default_factory=list)
    # Turn structure: main action taken, effects still to resolve, the pending decision.
    main_done: bool = False
    queue: list[str] = msgspec.field(default_factory=list)
    pending: Decision | None = None
    # Common board.
    white_pool: list[int] = msgspec.field(default_factory=list)
    blue_supply: int = 0
    docks: list[str] = msgspec.field(default_factory=lambda: ["", "", "", ""])
    ship_stack: list[str] = msgspec.field(default_factory=list)  # HIDDEN order, top = [0]
    double_stack: list[str] = msgspec.field(default_factory=list)  # HIDDEN order
    triple_stack: list[str] = msgspec.field(default_factory=list)  # HIDDEN order
    display_doubles: list[str] = msgspec.field(default_factory=list)
    display_triples: list[str] = msgspec.field(default_factory=list)
    out_of_game: list[str] = msgspec.field(default_factory=list)
    road_stack: int = data.ROAD_TILES
    retire_spaces: dict[str, int] = msgspec.field(
        default_factory=lambda: {s: -1 for s in data.RETIRE_SPACES}
    )
    retire_order: list[int] = msgspec.field(default_factory=list)
    scholars: list[str] = msgspec.field(default_factory=list)  # scholar-1..3
    bishops: list[str] = msgspec.field(default_factory=list)  # bishop-1..3
    monks: dict[str, list[int]] = msgspec.field(
        default_factory=lambda: {s: [] for s in data.MONK_SPACES}
    )
    conq_clock: int = 0
    conquistador_history: list[list[int]] = msgspec.field(default_factory=list)  # per year


def clone_player(p: PlayerState) -> PlayerState:
    return PlayerState(
        seat=p.seat,
        board=p.board,
        cells=p.cells[:],
        printed=p.printed,  # never mutated after the board is set
        tile_on=p.tile_on[:],
        die_on=p.die_on[:],
        coins_on=p.coins_on[:],
        res=dict(p.res),
        coins=p.coins,
        points=p.points,
        religion=p.religion,
        conquistador=p.conquistador,
        conq_arrival=p.conq_arrival,
        conq_acted=p.conq_acted,
        coin_activations=p.coin_activations,
        coins_paid=p.coins_paid,
        white_taken=p.white_taken,
        white_faces=p.white_faces[:],
        blue=p.blue[:],
        blue_used=p.blue_used[:],
        blue_locked=p.blue_locked[:],
        monks_reserve=p.monks_reserve,
        symbols_entered=p.symbols_entered,
        scholars=p.scholars[:],
        bishops=p.bishops[:],
        port=[d[:] for d in p.port],
        retired=p.retired,
        alchemy_used=p.alchemy_used,
        main_actions=p.main_actions,
    )


def working_copy(s: SantaMariaState) -> SantaMariaState:
    """The copy `decide` evolves: new structs for the state and its players, whose lists and
    dicts it shares with `s` (evolve replaces them, never changes them in place)."""
    w = replace(s)
    w.players = [replace(p) for p in s.players]
    return w


def clone(s: SantaMariaState) -> SantaMariaState:
    """A hand-written deep copy (much faster than pickle for this shape)."""
    pending = s.pending
    return SantaMariaState(
        seats=s.seats,
        options=s.options,
        phase=s.phase,
        year=s.year,
        start_player=s.start_player,
        active=s.active,
        draft_order=s.draft_order[:],
        players=[clone_player(p) for p in s.players],
        main_done=s.main_done,
        queue=s.queue[:],
        pending=None
        if pending is None
        else Decision(kind=pending.kind, building=pending.building, max_extra=pending.max_extra),
        white_pool=s.white_pool[:],
        blue_supply=s.blue_supply,
        docks=s.docks[:],
        ship_stack=s.ship_stack[:],
        double_stack=s.double_stack[:],
        triple_stack=s.triple_stack[:],
        display_doubles=s.display_doubles[:],
        display_triples=s.display_triples[:],
        out_of_game=s.out_of_game[:],
        road_stack=s.road_stack,
        retire_spaces=dict(s.retire_spaces),
        retire_order=s.retire_order[:],
        scholars=s.scholars[:],
        bishops=s.bishops[:],
        monks={k: v[:] for k, v in s.monks.items()},
        conq_clock=s.conq_clock,
        conquistador_history=[h[:] for h in s.conquistador_history],
    )


def idx(row: int, col: int) -> int:
    return (row - 1) * 6 + (col - 1)


def rc(i: int) -> tuple[int, int]:
    return i // 6 + 1, i % 6 + 1


def storage_limit(p: PlayerState) -> int:
    return data.STORAGE_LIMIT_SC05 if "SC05" in p.scholars else data.STORAGE_LIMIT

"""The whole game state as plain data (msgspec Structs). Hidden values (the order of the ship
stack and of the two expansion stacks) live here and stop at `view.py`."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec.structs import replace

from domain.santa_maria import data


class SantaMariaOptions(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    colony_boards: str = "random"  # random | draft


DecisionKind = Literal["trade", "ship", "religion", "conquistador", "recruit", "road"]
Phase = Literal["setup", "draft", "play", "year_end", "over"]


class Decision(msgspec.Struct, kw_only=True):
    """A pending optional choice of the active player."""

    kind: DecisionKind
    building: str = ""  # TG | TL for a trade
    max_extra: int = 0  # religion: 1 (2 with SC07); conquistador: 1 (SC08)


class PlayerState(msgspec.Struct, kw_only=True):
    seat: int
    board: str = ""
    # Flat 6x6 grids, index (row-1)*6 + (col-1).
    cells: list[str] = msgspec.field(default_factory=lambda: ["."] * 36)
    printed: list[bool] = msgspec.field(default_factory=lambda: [False] * 36)
    tile_on: list[str] = msgspec.field(default_factory=lambda: [""] * 36)  # tile id or RD
    die_on: list[int] = msgspec.field(default_factory=lambda: [0] * 36)  # 0, 1 white, 2 blue
    coins_on: list[int] = msgspec.field(default_factory=lambda: [0] * 36)
    res: dict[str, int] = msgspec.field(default_factory=lambda: {k: 0 for k in data.RESOURCES})
    coins: int = 0
    points: int = 0
    religion: int = 0
    conquistador: int = 0
    conq_arrival: int = 0  # stack height key on a shared space: later arrival ranks ahead
    conq_acted: bool = False  # "conquistador action this year" (R6)
    coin_activations: int = 0
    coins_paid: int = 0  # coins lying on buildings this year
    white_taken: int = 0
    white_faces: list[int] = msgspec.field(default_factory=list)  # values of white dice on colony
    blue: list[int] = msgspec.field(default_factory=list)  # faces, index i-1
    blue_used: list[bool] = msgspec.field(default_factory=list)
    blue_locked: list[bool] = msgspec.field(default_factory=list)  # unlocked on retire turn (R29)
    monks_reserve: int = data.MONKS_PER_PLAYER
    symbols_entered: int = 0
    scholars: list[str] = msgspec.field(default_factory=list)
    bishops: list[str] = msgspec.field(default_factory=list)
    port: list[list[str]] = msgspec.field(default_factory=lambda: [[], [], [], []])
    retired: bool = False
    alchemy_used: bool = False
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

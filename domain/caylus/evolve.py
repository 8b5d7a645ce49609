"""evolve: apply one event to the state, in place. No randomness, no validation.

Fields are assigned, lists and dicts are replaced, never changed in place: `decide` works on
a shallow copy (`CaylusState.working_copy`) that shares them with the state it was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.caylus import data
from domain.caylus import events as ev
from domain.caylus.state import CaylusState

_HANDLERS: dict[type, Callable[[CaylusState, Any], None]] = {}


def _on(kind: type) -> Callable[[Callable[[CaylusState, Any], None]], Callable[..., None]]:
    def register(fn: Callable[[CaylusState, Any], None]) -> Callable[..., None]:
        _HANDLERS[kind] = fn
        return fn

    return register


def evolve(state: CaylusState, event: Any) -> CaylusState:
    _HANDLERS[type(event)](state, event)
    return state


# --- helpers ----------------------------------------------------------------------------------


def _replaced(values: list[Any], i: int, value: Any) -> list[Any]:
    """`values` with item `i` replaced, as a new list."""
    out = values[:]
    out[i] = value
    return out


def put_worker(st: CaylusState, seat: int, target: int | str) -> None:
    """Put a worker of `seat` on `target`: castle/stables take the lowest free slot."""
    if isinstance(target, int):
        st.workers = _replaced(st.workers, target, seat)
    elif target == "gate":
        st.gate = seat
    elif target == "trading_post":
        st.trading_post = seat
    elif target == "merchants_guild":
        st.merchants_guild = seat
    elif target == "joust_field":
        st.joust_field = seat
    elif target == "stables":
        st.stables = [*st.stables, seat]
    elif target == "inn":
        st.inn_left = seat
    elif target == "castle":
        st.castle_workers = [*st.castle_workers, seat]


def _next_actor(st: CaylusState) -> None:
    """Phase 2: the next player in turn order who has not passed (cycling), or -1."""
    order = st.order
    n = len(order)
    i = order.index(st.actor)
    for k in range(1, n + 1):
        seat = order[(i + k) % n]
        if seat not in st.passing:
            st.actor = seat
            return
    st.actor = -1


# --- set-up -----------------------------------------------------------------------------------


@_on(ev.TurnOrderDrawn)
def _turn_order(st: CaylusState, e: ev.TurnOrderDrawn) -> None:
    st.order = list(e.order)


@_on(ev.RoadSetUp)
def _road(st: CaylusState, e: ev.RoadSetUp) -> None:
    tiles = st.tiles[:]
    for i, tile in enumerate(e.neutral):
        tiles[i + 1] = tile
    for space, tile in data.FIXED_ON_ROAD.items():
        tiles[space] = tile
    st.tiles = tiles
    st.stock = list(e.stock)


@_on(ev.ResourcesChanged)
def _resources(st: CaylusState, e: ev.ResourcesChanged) -> None:
    p = st.players[e.seat]
    p.deniers += e.deniers
    food, wood, stone, cloth, gold = p.cubes
    p.cubes = [food + e.food, wood + e.wood, stone + e.stone, cloth + e.cloth, gold + e.gold]
    p.pp += e.prestige


# --- turn flow --------------------------------------------------------------------------------


@_on(ev.TurnStarted)
def _turn_started(st: CaylusState, e: ev.TurnStarted) -> None:
    st.turn = e.turn
    st.phase = 1
    st.stage = 0


@_on(ev.PhaseStarted)
def _phase_started(st: CaylusState, e: ev.PhaseStarted) -> None:
    st.phase = e.phase
    st.stage = 0
    st.cursor = 0
    for p in st.players:
        p.rows_used = [False, False, False, False]  # R15: rows are per phase
    if e.phase == 2:
        st.passing = []
        st.actor = st.order[0]
    elif e.phase == 6:
        for p in st.players:
            p.batches = 0
    elif e.phase == 7:
        st.scoring = -1
        st.score_index = 0


@_on(ev.WorkerPlaced)
def _placed(st: CaylusState, e: ev.WorkerPlaced) -> None:
    put_worker(st, e.seat, e.target)
    st.players[e.seat].available -= 1
    _next_actor(st)


@_on(ev.Passed)
def _passed(st: CaylusState, e: ev.Passed) -> None:
    st.passing = [*st.passing, e.seat]
    _next_actor(st)


# --- phase 3 ----------------------------------------------------------------------------------


@_on(ev.GateMoved)
def _gate(st: CaylusState, e: ev.GateMoved) -> None:
    st.gate = -1
    if e.target == "none":
        st.players[e.seat].available += 1
    else:
        put_worker(st, e.seat, e.target)


@_on(ev.TradingPostUsed)
def _trading_post(st: CaylusState, e: ev.TradingPostUsed) -> None:
    st.trading_post = -1
    st.players[e.seat].available += 1


@_on(ev.ProvostMoved)
def _provost(st: CaylusState, e: ev.ProvostMoved) -> None:
    st.provost = e.position
    if e.source == "merchants_guild":
        st.merchants_guild = -1
        st.players[e.seat].available += 1
    else:
        st.stage += 1  # next player in passing order


@_on(ev.JoustResolved)
def _joust(st: CaylusState, e: ev.JoustResolved) -> None:
    st.joust_field = -1
    st.players[e.seat].available += 1


@_on(ev.StablesResolved)
def _stables(st: CaylusState, e: ev.StablesResolved) -> None:
    for seat in st.stables:
        st.players[seat].available += 1
    st.stables = []
    st.order = list(e.order)


@_on(ev.InnResolved)
def _inn(st: CaylusState, e: ev.InnResolved) -> None:
    if e.returned >= 0:
        st.players[e.returned].available += 1
    st.inn_right = e.moved
    st.inn_left = -1
    st.stage = 1  # inn done


@_on(ev.InnDecided)
def _inn_decided(st: CaylusState, e: ev.InnDecided) -> None:
    if not e.stay:
        st.inn_right = -1
        st.players[e.seat].available += 1
    st.stage = 1


# --- phase 5 ----------------------------------------------------------------------------------


@_on(ev.Activated)
def _activated(st: CaylusState, e: ev.Activated) -> None:
    st.cursor = e.space
    owner = st.owners[e.space]
    # stage 1: the owner's extra cube of a stone production tile is due
    st.stage = 1 if e.tile in data.OWNER_BONUS and owner >= 0 and owner != e.seat else 2


@_on(ev.OwnerBonusTaken)
def _owner_bonus(st: CaylusState, e: ev.OwnerBonusTaken) -> None:
    st.stage = 2


@_on(ev.WorkerReturned)
def _returned(st: CaylusState, e: ev.WorkerReturned) -> None:
    st.workers = _replaced(st.workers, e.space, -1)
    st.players[e.seat].available += 1
    st.stage = 0


@_on(ev.SweepEnded)
def _sweep_ended(st: CaylusState, e: ev.SweepEnded) -> None:
    workers = st.workers[:]
    for space in e.returned:
        st.players[workers[space]].available += 1
        workers[space] = -1
    st.workers = workers
    st.stage = 3


@_on(ev.TileBuilt)
def _built(st: CaylusState, e: ev.TileBuilt) -> None:
    _own(st, e.space, e.tile, e.seat)
    stock = st.stock[:]
    stock.remove(e.tile)
    st.stock = stock


def _own(st: CaylusState, space: int, tile: str, seat: int) -> None:
    st.tiles = _replaced(st.tiles, space, tile)
    st.owners = _replaced(st.owners, space, seat)


@_on(ev.TransformationScheduled)
def _scheduled(st: CaylusState, e: ev.TransformationScheduled) -> None:
    st.pending_transform = {**st.pending_transform, e.space: e.seat}


@_on(ev.Transformed)
def _transformed(st: CaylusState, e: ev.Transformed) -> None:
    st.pending_transform = {k: v for k, v in st.pending_transform.items() if k != e.space}
    family = data.TILES[e.removed].family
    if family in ("wood", "stone"):
        st.stock = [*st.stock, e.removed]  # back to the stock, may be built again
    _own(st, e.space, "residence", e.seat)


# --- favours ----------------------------------------------------------------------------------


@_on(ev.FavoursGained)
def _favours(st: CaylusState, e: ev.FavoursGained) -> None:
    if st.options.favours == "full":
        st.players[e.seat].pending_favours += e.count


@_on(ev.FavourTaken)
def _favour_taken(st: CaylusState, e: ev.FavourTaken) -> None:
    p = st.players[e.seat]
    row = data.ROW_INDEX[e.row]
    p.markers = _replaced(p.markers, row, e.marker)
    p.rows_used = _replaced(p.rows_used, row, True)
    p.pending_favours -= 1


@_on(ev.FavourLost)
def _favour_lost(st: CaylusState, e: ev.FavourLost) -> None:
    st.players[e.seat].pending_favours -= 1


# --- phase 6 ----------------------------------------------------------------------------------


@_on(ev.BatchDelivered)
def _batch(st: CaylusState, e: ev.BatchDelivered) -> None:
    st.sections = _replaced(st.sections, e.section, [*st.sections[e.section], e.seat])
    st.players[e.seat].batches += 1


@_on(ev.CastleDone)
def _castle_done(st: CaylusState, e: ev.CastleDone) -> None:
    st.stage += 1


@_on(ev.CastleResolved)
def _castle_resolved(st: CaylusState, e: ev.CastleResolved) -> None:
    for seat in st.castle_workers:
        st.players[seat].available += 1
    st.castle_workers = []
    st.stage = 99


# --- phase 7 ----------------------------------------------------------------------------------


@_on(ev.BailiffMoved)
def _bailiff(st: CaylusState, e: ev.BailiffMoved) -> None:
    st.bailiff = e.bailiff
    st.provost = e.provost
    st.stage = 1


@_on(ev.SectionScoringStarted)
def _scoring_started(st: CaylusState, e: ev.SectionScoringStarted) -> None:
    st.scoring = e.section
    st.score_index = 0


@_on(ev.SectionScored)
def _section_scored(st: CaylusState, e: ev.SectionScored) -> None:
    st.score_index += 1


@_on(ev.SectionClosed)
def _section_closed(st: CaylusState, e: ev.SectionClosed) -> None:
    st.scored = _replaced(st.scored, e.section, True)
    st.scoring = -1


@_on(ev.TurnEnded)
def _turn_ended(st: CaylusState, e: ev.TurnEnded) -> None:
    st.order = list(e.order)
    st.passing = []
    st.actor = -1


@_on(ev.GameEnded)
def _game_ended(st: CaylusState, e: ev.GameEnded) -> None:
    st.phase = 8

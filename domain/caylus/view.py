"""Views. Caylus has no hidden information: every seat and spectators see the same
board; only `seat` differs. Setup randomness (turn order, neutral tiles) is public once drawn,
so `redact` returns every event unchanged."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.caylus import data
from domain.caylus.rules import decision
from domain.caylus.state import CaylusOptions, CaylusState
from domain.enums import one_of

PHASE_NAMES = data.PHASE_NAMES

Row = Annotated[str, one_of(data.ROWS)]


class PlayerView(msgspec.Struct, kw_only=True):
    seat: int  # the player's seat
    deniers: int  # deniers held
    cubes: dict[Annotated[str, one_of(data.CUBES)], int]  # cubes held, by kind (F W S C G)
    prestige: int  # prestige points so far (end bonuses are added at the end)
    workers_available: int  # workers not on the board, of 6
    # each row's marker (a prestige, b deniers, c cubes, d buildings): 0 at the start, 1..5 a column
    favour_markers: dict[Row, int]
    rows_used_this_phase: list[Row]  # favour rows already used in this phase, in row order
    pending_favours: int  # favours won and not yet resolved (the game waits for them)
    houses_in_castle: list[int]  # the player's houses per section: dungeon, walls, towers
    batches_this_turn: int  # batches handed in to the castle this turn


class RoadSpace(msgspec.Struct, kw_only=True):
    space: int  # the road space, 1..28 (farther from the castle as it grows)
    tile: Annotated[str, one_of(data.TILES)] | None  # the tile on it; None: an empty building site
    owner: int | None  # seat owning the tile; None: no tile, or a neutral or fixed one
    worker: int | None  # seat whose worker stands there; None: no worker
    # seat of the lawyer's player whose transformation of this space waits for its worker
    pending_transformation: int | None = None


class Progress(msgspec.Struct, kw_only=True):
    """Where the turn stands, as the rules count it: the phase's awaited seat follows from it."""

    actor: int  # placement: the seat whose action it is (-1: none)
    stage: int  # the phase's step (the provost's or castle's next seat, a road activation...)
    cursor: int  # road: the last space activated
    scoring: int  # end of turn: the castle section being scored (-1: none)
    score_index: int  # ... and the position in turn order of the next seat scored


class CaylusView(msgspec.Struct, kw_only=True):
    viewer: int | None  # the seat this view is for; None: a spectator (all see the same board)
    options: CaylusOptions  # the game's options
    turn: int  # the current turn's number, from 1
    # 0 set-up, 1 income, 2 placement, 3 special buildings, 4 provost, 5 road, 6 castle,
    # 7 end of turn, 8 the game is over
    phase: Annotated[int, one_of(data.PHASE_NAMES)]
    phase_name: Annotated[str, one_of(data.PHASE_NAMES.values())]  # the phase's name
    awaiting: list[int]  # the seat whose decision is awaited (at most one); empty when over
    # the kind of decision awaited (the commands it takes); None when none is (game over)
    decision: Annotated[str, one_of(data.DECISIONS)] | None
    turn_order: list[int]  # seats in turn order, first player first
    # seats in passing order this turn, position 1 first (the phase-4 order); cleared each turn
    passing_scale: list[int]
    players: list[PlayerView]  # every player's holdings, by seat
    road: list[RoadSpace]  # road spaces 1..28, in order
    bailiff: int  # the bailiff's road space (6..25; sections score as it reaches 12, 18, 24)
    provost: int  # the provost's road space, 1..28: road buildings up to it are activated
    gate: int | None  # seat of the worker on the gate; None: empty
    trading_post: int | None  # seat of the worker on the trading post; None: empty
    merchants_guild: int | None  # seat of the worker on the merchants' guild; None: empty
    joust_field: int | None  # seat of the worker on the joust field; None: empty
    stables: list[int]  # seats of the workers on the stables' circles, circle 1 first
    inn_left: int | None  # seat of the worker on the inn's left circle; None: empty
    # seat of the worker on the inn's right circle (its placements cost 1 d); None: empty
    inn_right: int | None
    castle_workers: list[int]  # seats of the workers in the castle, castle space 1 first
    castle: list[list[int]]  # per section (dungeon, walls, towers): each house's seat, in order
    sections_scored: list[bool]  # per section (dungeon, walls, towers): already scored
    # highest favour column a marker may reach: 2, then 4 after the dungeon, 5 after the walls
    favour_cap: Annotated[int, one_of(data.FAVOUR_CAPS)]
    # wood, stone and prestige tiles not built yet, sorted by name (the architect may be twice)
    stock: list[Annotated[str, one_of(data.STOCK_TILES)]]
    over: bool  # true once the towers are scored and the final scores are in
    progress: Progress  # where the turn stands (how the rules track the awaited decision)


def _opt(seat: int) -> int | None:
    return seat if seat >= 0 else None


def view(st: CaylusState, seat: int | None) -> CaylusView:
    dec = decision(st) if st.phase not in (0, 8) else None
    players = [
        PlayerView(
            seat=p.seat,
            deniers=p.deniers,
            cubes=dict(zip(data.CUBES, p.cubes, strict=False)),
            prestige=p.pp,
            workers_available=p.available,
            favour_markers=dict(zip(data.ROWS, p.markers, strict=False)),
            rows_used_this_phase=[
                r for r, used in zip(data.ROWS, p.rows_used, strict=False) if used
            ],
            pending_favours=p.pending_favours,
            houses_in_castle=[sec.count(p.seat) for sec in st.sections],
            batches_this_turn=p.batches,
        )
        for p in st.players
    ]
    road = [
        RoadSpace(
            space=s,
            tile=st.tiles[s] or None,
            owner=_opt(st.owners[s]),
            worker=_opt(st.workers[s]),
            pending_transformation=st.pending_transform.get(s),
        )
        for s in data.ROAD_SPACES
    ]
    return CaylusView(
        viewer=seat,
        options=st.options,
        turn=st.turn,
        phase=st.phase,
        phase_name=PHASE_NAMES[st.phase],
        awaiting=[dec[0]] if dec else [],
        decision=dec[1] if dec else None,
        turn_order=st.order[:],
        passing_scale=st.passing[:],
        players=players,
        road=road,
        bailiff=st.bailiff,
        provost=st.provost,
        gate=_opt(st.gate),
        trading_post=_opt(st.trading_post),
        merchants_guild=_opt(st.merchants_guild),
        joust_field=_opt(st.joust_field),
        stables=st.stables[:],
        inn_left=_opt(st.inn_left),
        inn_right=_opt(st.inn_right),
        castle_workers=st.castle_workers[:],
        castle=[sec[:] for sec in st.sections],
        sections_scored=st.scored[:],
        favour_cap=st.cap(),
        stock=sorted(st.stock),
        over=st.phase == 8,
        progress=Progress(
            actor=st.actor,
            stage=st.stage,
            cursor=st.cursor,
            scoring=st.scoring,
            score_index=st.score_index,
        ),
    )


def redact(event: Any, seat: int | None) -> Any:
    return event  # nothing is hidden

"""Views. Caylus has no hidden information: every seat and spectators see the same
board; only `seat` differs. Setup randomness (turn order, neutral tiles) is public once drawn,
so `redact` returns every event unchanged."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.caylus import data
from domain.caylus.rules import decision
from domain.caylus.state import CaylusOptions, CaylusState

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


class PlayerView(msgspec.Struct, kw_only=True):
    seat: int
    deniers: int
    cubes: dict[str, int]
    prestige: int
    workers_available: int
    favour_markers: dict[str, int]
    rows_used_this_phase: list[str]
    pending_favours: int
    houses_in_castle: list[int]  # dungeon, walls, towers
    batches_this_turn: int  # batches handed in to the castle this turn


class RoadSpace(msgspec.Struct, kw_only=True):
    space: int
    tile: str | None
    owner: int | None
    worker: int | None
    pending_transformation: int | None = None  # seat of the lawyer's player


class Progress(msgspec.Struct, kw_only=True):
    """Where the turn stands, as the rules count it: the phase's awaited seat follows from it."""

    actor: int  # placement: the seat whose action it is (-1: none)
    stage: int  # the phase's step (the provost's or castle's next seat, a road activation...)
    cursor: int  # road: the last space activated
    scoring: int  # end of turn: the castle section being scored (-1: none)
    score_index: int  # ... and the position in turn order of the next seat scored


class CaylusView(msgspec.Struct, kw_only=True):
    viewer: int | None
    options: CaylusOptions
    turn: int
    phase: int
    phase_name: str
    awaiting: list[int]
    decision: str | None
    turn_order: list[int]
    passing_scale: list[int]
    players: list[PlayerView]
    road: list[RoadSpace]
    bailiff: int
    provost: int
    gate: int | None
    trading_post: int | None
    merchants_guild: int | None
    joust_field: int | None
    stables: list[int]
    inn_left: int | None
    inn_right: int | None
    castle_workers: list[int]
    castle: list[list[int]]  # seats of the houses per section
    sections_scored: list[bool]
    favour_cap: int
    stock: list[str]
    over: bool
    progress: Progress


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

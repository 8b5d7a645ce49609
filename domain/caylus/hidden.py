"""Determinization for Caylus: nothing is hidden, so `sample_hidden` is a copy and
`state_from_view` reads the whole state off the view. The neutral buildings and turn order
are drawn at setup and public from then on, and `decide` draws nothing at random."""

from __future__ import annotations

import random

from domain.caylus import data
from domain.caylus.state import CaylusState, PlayerState
from domain.caylus.view import CaylusView, PlayerView


def sample_hidden(st: CaylusState, seat: int, rng: random.Random) -> CaylusState:
    return st.copy()


def state_from_view(v: CaylusView, seat: int, rng: random.Random) -> CaylusState:
    """The state itself: the view shows every field (the stock in sorted order, which no
    rule reads)."""
    road = {r.space: r for r in v.road}
    tiles, owners, workers = [""] * 29, [-1] * 29, [-1] * 29
    for space in data.ROAD_SPACES:
        tiles[space] = road[space].tile or ""
        owners[space] = _seat(road[space].owner)
        workers[space] = _seat(road[space].worker)
    return CaylusState(
        options=v.options,
        seats=len(v.players),
        players=[_player(p) for p in v.players],
        phase=v.phase,
        turn=v.turn,
        order=list(v.turn_order),
        passing=list(v.passing_scale),
        actor=v.progress.actor,
        stage=v.progress.stage,
        cursor=v.progress.cursor,
        tiles=tiles,
        owners=owners,
        workers=workers,
        pending_transform={
            r.space: r.pending_transformation
            for r in v.road
            if r.pending_transformation is not None
        },
        gate=_seat(v.gate),
        trading_post=_seat(v.trading_post),
        merchants_guild=_seat(v.merchants_guild),
        joust_field=_seat(v.joust_field),
        stables=list(v.stables),
        inn_left=_seat(v.inn_left),
        inn_right=_seat(v.inn_right),
        castle_workers=list(v.castle_workers),
        sections=[list(s) for s in v.castle],
        scored=list(v.sections_scored),
        scoring=v.progress.scoring,
        score_index=v.progress.score_index,
        bailiff=v.bailiff,
        provost=v.provost,
        stock=list(v.stock),
    )


def _seat(seat: int | None) -> int:
    return -1 if seat is None else seat


def _player(p: PlayerView) -> PlayerState:
    return PlayerState(
        seat=p.seat,
        deniers=p.deniers,
        cubes=[p.cubes[c] for c in data.CUBES],
        pp=p.prestige,
        available=p.workers_available,
        markers=[p.favour_markers[r] for r in data.ROWS],
        rows_used=[r in p.rows_used_this_phase for r in data.ROWS],
        pending_favours=p.pending_favours,
        batches=p.batches_this_turn,
    )

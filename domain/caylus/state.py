"""The whole Caylus state as plain data. Nothing is hidden: views show all of it.

Workflow fields (`phase`, `stage`, `cursor`, ...) say where the turn stands; `rules.pending`
derives the awaited decision from them.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec.structs import replace

from domain.caylus import data
from domain.enums import one_of


class CaylusOptions(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    # full: favours are resolved on the favour table; simplified: each favour is 3 PP at once
    favours: Annotated[str, one_of(data.FAVOUR_MODES)] = "full"
    jeweller: bool = False  # true: the Jeweller stone tile is in the stock (later printings)
    # PP for building the Lawyer: 4 (first-edition tile) or 3 (later printings) (R7)
    lawyer_prestige: Annotated[int, one_of(data.LAWYER_PRESTIGE)] = 4


class PlayerState(msgspec.Struct, kw_only=True):
    seat: int
    deniers: int = 0
    cubes: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0, 0, 0])  # F W S C G
    pp: int = 0
    available: int = data.WORKERS  # workers not on the board
    markers: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0, 0])  # rows a..d
    rows_used: list[bool] = msgspec.field(default_factory=lambda: [False] * 4)  # this phase
    pending_favours: int = 0
    batches: int = 0  # batches handed in this turn (phase 6)

    def copy(self) -> PlayerState:
        return PlayerState(
            seat=self.seat,
            deniers=self.deniers,
            cubes=self.cubes[:],
            pp=self.pp,
            available=self.available,
            markers=self.markers[:],
            rows_used=self.rows_used[:],
            pending_favours=self.pending_favours,
            batches=self.batches,
        )


class CaylusState(msgspec.Struct, kw_only=True):
    options: CaylusOptions
    seats: int
    players: list[PlayerState]
    phase: int = 0  # 0 set-up, 1..7 the turn's phases, 8 over
    turn: int = 0
    order: list[int] = []  # turn order, first player first
    passing: list[int] = []  # passing scale, position 1 first
    actor: int = -1  # phase 2: the seat whose action it is
    stage: int = 0  # phase-specific progress (see rules.pending)
    cursor: int = 0  # phase 5: last road space swept
    # road, index 0 unused
    tiles: list[str] = msgspec.field(default_factory=lambda: [""] * 29)
    owners: list[int] = msgspec.field(default_factory=lambda: [-1] * 29)
    workers: list[int] = msgspec.field(default_factory=lambda: [-1] * 29)
    pending_transform: dict[int, int] = {}  # space -> seat
    # special buildings: seat or -1
    gate: int = -1
    trading_post: int = -1
    merchants_guild: int = -1
    joust_field: int = -1
    stables: list[int] = []  # seats on circles 1, 2, 3
    inn_left: int = -1
    inn_right: int = -1
    castle_workers: list[int] = []  # seats on castle spaces 1..n
    # castle: seats of the houses, per section
    sections: list[list[int]] = msgspec.field(default_factory=lambda: [[], [], []])
    scored: list[bool] = msgspec.field(default_factory=lambda: [False, False, False])
    scoring: int = -1  # section being scored in phase 7, else -1
    score_index: int = 0  # position in turn order of the next player scored
    bailiff: int = data.START_PAWNS
    provost: int = data.START_PAWNS
    stock: list[str] = []  # wood, stone and prestige tiles not built (Architect twice)

    def working_copy(self) -> CaylusState:
        """The copy `decide` evolves: new structs for the state and its players, whose lists
        and dicts it shares with this state (evolve replaces them, never changes them)."""
        work = replace(self)
        work.players = [replace(p) for p in self.players]
        return work

    def copy(self) -> CaylusState:
        return CaylusState(
            options=self.options,
            seats=self.seats,
            players=[p.copy() for p in self.players],
            phase=self.phase,
            turn=self.turn,
            order=self.order[:],
            passing=self.passing[:],
            actor=self.actor,
            stage=self.stage,
            cursor=self.cursor,
            tiles=self.tiles[:],
            owners=self.owners[:],
            workers=self.workers[:],
            pending_transform=dict(self.pending_transform),
            gate=self.gate,
            trading_post=self.trading_post,
            merchants_guild=self.merchants_guild,
            joust_field=self.joust_field,
            stables=self.stables[:],
            inn_left=self.inn_left,
            inn_right=self.inn_right,
            castle_workers=self.castle_workers[:],
            sections=[s[:] for s in self.sections],
            scored=self.scored[:],
            scoring=self.scoring,
            score_index=self.score_index,
            bailiff=self.bailiff,
            provost=self.provost,
            stock=self.stock[:],
        )

    @property
    def over(self) -> bool:
        return self.phase == 8

    def cap(self) -> int:
        """Favour column cap: 2, then 4 after the dungeon, 5 after the walls."""
        if not self.scored[0]:
            return data.FAVOUR_CAPS[0]
        if not self.scored[1]:
            return data.FAVOUR_CAPS[1]
        return data.FAVOUR_CAPS[2]


def initial_state(options: CaylusOptions, seats: int) -> CaylusState:
    return CaylusState(
        options=options,
        seats=seats,
        players=[PlayerState(seat=s) for s in range(seats)],
    )

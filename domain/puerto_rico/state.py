"""The whole game state as plain mutable msgspec Structs (evolve mutates in place)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.enums import one_of
from domain.puerto_rico.data import (
    EXPANSIONS,
    FOREST_HOUSE_WITH_HACIENDA,
    LIBRARY_CRAFTSMAN_GOODS,
    VP_POOL_5P,
)
from domain.puerto_rico.events import WindowFor


class Options(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Game options plus `auto_forced` (auto-apply rule)."""

    # none: the base game; new-buildings: The New Buildings expansion and its draft
    expansion: Annotated[str, one_of(EXPANSIONS)] = "none"
    # VP chips with 5 players: 122 (original box) or 126 (Deluxe); 5 players only (R2)
    vp_pool_5p: Annotated[int, one_of(VP_POOL_5P)] = 122
    # exclusive: hacienda and forest house are never both drafted (expansion only, R5)
    forest_house_with_hacienda: Annotated[str, one_of(FOREST_HOUSE_WITH_HACIENDA)] = "allowed"
    # the library's 2 craftsman barrels: of any produced kinds, or different (expansion, R20)
    library_craftsman_goods: Annotated[str, one_of(LIBRARY_CRAFTSMAN_GOODS)] = "any"
    # 2 players, expansion: the library doubles only the first role its owner picks in a round
    # while it is occupied (R21)
    library_2p_once_per_round: bool = False
    # a decision with a single legal command (and no movable guest) is played at once
    auto_forced: bool = True


class Player(msgspec.Struct, kw_only=True):
    doubloons: int = 0
    vp: int = 0  # chips and paper VP (secret from others until the end, R24)
    goods: list[int] = msgspec.field(default_factory=lambda: [0] * 5)
    tiles: list[int] = msgspec.field(default_factory=lambda: [0] * 6)  # corn..coffee, quarry
    occupied: list[int] = msgspec.field(default_factory=lambda: [0] * 6)
    forests: list[str] = msgspec.field(default_factory=list)  # hidden identities (R11)
    buildings: dict[str, int] = msgspec.field(default_factory=dict)  # id -> colonists
    san_juan: int = 0
    doubling_role: str | None = None  # R21 (2p option): the role the library doubles

    def copy(self) -> Player:
        return Player(
            doubloons=self.doubloons,
            vp=self.vp,
            goods=self.goods[:],
            tiles=self.tiles[:],
            occupied=self.occupied[:],
            forests=self.forests[:],
            buildings=dict(self.buildings),
            san_juan=self.san_juan,
            doubling_role=self.doubling_role,
        )


class State(msgspec.Struct, kw_only=True):
    n: int
    options: Options
    players: list[Player]
    # flow
    phase: str = "setup"  # setup, draft, roles, <role>, end, over
    step: str = ""  # the awaited decision kind ("" = none)
    actor: int = -1
    chooser: int = -1  # who picked the running role
    role: str = ""  # the running role (settler, ..., prospector_1)
    governor: int = -1
    first_governor: int = -1
    round: int = 0
    picks: int = 0  # role picks made this round
    picked: list[str] = msgspec.field(default_factory=list)
    roles: dict[str, int] = msgspec.field(default_factory=dict)  # role -> doubloons on card
    passes: int = 0  # consecutive captain-phase passes
    window: list[int] = msgspec.field(default_factory=list)  # guest window: seats not done
    window_for: WindowFor = ""
    # per-phase memory
    hacienda_used: bool = False
    hacienda_tile: str | None = None  # drawn, awaiting hacienda_place (secret)
    wharf_used: list[bool] = msgspec.field(default_factory=list)
    small_wharf_used: list[bool] = msgspec.field(default_factory=list)
    captain_shipped: bool = False  # the captain privilege was granted
    received: list[int] = msgspec.field(default_factory=lambda: [0] * 5)  # craftsman's goods
    # supply
    stack: list[str] = msgspec.field(default_factory=list)  # top is the LAST element
    row: list[str] = msgspec.field(default_factory=list)
    discard: list[str] = msgspec.field(default_factory=list)
    quarries: int = 0
    supply: list[int] = msgspec.field(default_factory=lambda: [0] * 5)
    colonists: int = 0
    ship_colonists: int = 0
    vp_supply: int = 0
    ship_capacity: list[int] = msgspec.field(default_factory=list)
    ship_good: list[int] = msgspec.field(default_factory=list)  # -1 = empty
    ship_load: list[int] = msgspec.field(default_factory=list)
    house: list[int] = msgspec.field(default_factory=list)
    buildings_left: dict[str, int] = msgspec.field(default_factory=dict)
    draft_slots: dict[int, int] = msgspec.field(default_factory=dict)  # cost -> free slots
    drafted: list[str] = msgspec.field(default_factory=list)
    # end
    end_triggered: bool = False
    last_phase: str = ""
    over: bool = False
    # bookkeeping for invariants
    bank_out: int = 0
    bank_in: int = 0
    vp_paper: int = 0
    vp_pool: int = 0
    goods_total: list[int] = msgspec.field(default_factory=lambda: [0] * 5)
    colonists_total: int = 0
    plantations_total: int = 0
    quarries_total: int = 0
    doubloons_start: int = 0
    copies_total: dict[str, int] = msgspec.field(default_factory=dict)

    def working_copy(self) -> State:
        """The copy `decide` evolves: new structs for the state and its players, whose lists
        and dicts it shares with this state (evolve replaces them before they change)."""
        s = msgspec.structs.replace(self)
        s.players = [msgspec.structs.replace(p) for p in self.players]
        return s

    def copy(self) -> State:
        s = msgspec.structs.replace(self)
        s.players = [p.copy() for p in self.players]
        s.picked = self.picked[:]
        s.roles = dict(self.roles)
        s.window = self.window[:]
        s.wharf_used = self.wharf_used[:]
        s.small_wharf_used = self.small_wharf_used[:]
        s.received = self.received[:]
        s.stack = self.stack[:]
        s.row = self.row[:]
        s.discard = self.discard[:]
        s.supply = self.supply[:]
        s.ship_good = self.ship_good[:]
        s.ship_load = self.ship_load[:]
        s.house = self.house[:]
        s.buildings_left = dict(self.buildings_left)
        s.draft_slots = dict(self.draft_slots)
        s.drafted = self.drafted[:]
        return s

"""What happened (tagged union on `type`, snake_case tags). Every random outcome is inside an
event; fields carrying hidden data are blanked by `view.redact`."""

from __future__ import annotations

from typing import Literal, Union

import msgspec

from domain.puerto_rico.commands import BlackMarket

Before = Literal["craftsman", "captain", "end"]  # what a guest window comes before
WindowFor = Literal["", "craftsman", "captain", "end"]  # the last window's `before` ("": none)
Colonist = Literal["supply", "ship"]  # where the hospice's or university's colonist comes from
SettleSource = Literal["face_up", "quarry", "forest"]


class _E(msgspec.Struct, tag_field="type", frozen=True):
    pass


class GovernorChosen(_E, tag="governor_chosen", frozen=True):
    seat: int


class StackShuffled(_E, tag="stack_shuffled", frozen=True):
    size: int
    order: list[str] | None  # top first; secret until the end


class RowDrawn(_E, tag="row_drawn", frozen=True):
    tiles: list[str]


class RowDiscarded(_E, tag="row_discarded", frozen=True):
    tiles: list[str]


class TurnStarted(_E, tag="turn_started", frozen=True):
    step: str
    seat: int


class BuildingDrafted(_E, tag="building_drafted", frozen=True):
    seat: int
    building: str


class DraftFinished(_E, tag="draft_finished", frozen=True):
    removed: list[str]


class RoundStarted(_E, tag="round_started", frozen=True):
    round: int
    governor: int


class RoleChosen(_E, tag="role_chosen", frozen=True):
    seat: int
    role: str
    doubloons: int


class HaciendaDrawn(_E, tag="hacienda_drawn", frozen=True):
    seat: int
    tile: str | None  # secret while `pending` (only the drawer sees it)
    pending: bool  # True: awaits hacienda_place; False: placed as a plantation now


class HaciendaPlaced(_E, tag="hacienda_placed", frozen=True):
    seat: int
    tile: str | None  # secret when placed as a forest
    as_forest: bool


class Settled(_E, tag="settled", frozen=True):
    seat: int
    source: SettleSource
    tile: str  # plantation kind, "quarry", or the forest's hidden identity
    hospice: Colonist | None = None
    library: bool = False


class Passed(_E, tag="passed", frozen=True):
    seat: int
    step: str


class ColonistsDistributed(_E, tag="colonists_distributed", frozen=True):
    counts: list[int]


class ColonistsPlaced(_E, tag="colonists_placed", frozen=True):
    seat: int
    privilege: int
    layout: dict[str, int]
    san_juan: int


class ColonistShipRefilled(_E, tag="colonist_ship_refilled", frozen=True):
    required: int
    count: int
    end_triggered: bool


class Built(_E, tag="built", frozen=True):
    seat: int
    building: str
    paid: int
    university: Colonist | None = None
    black_market: BlackMarket | None = None
    church_vp: int = 0
    city_full: bool = False


class Produced(_E, tag="produced", frozen=True):
    seat: int
    goods: list[int]
    aqueduct: list[int]
    factory: int
    specialty: int


class CraftsmanBonusTaken(_E, tag="craftsman_bonus_taken", frozen=True):
    seat: int
    goods: list[str]
    specialty: int


class Sold(_E, tag="sold", frozen=True):
    seat: int
    good: str
    venue: str
    price: int


class TradingHouseEmptied(_E, tag="trading_house_emptied", frozen=True):
    goods: list[str]


class LighthousePaid(_E, tag="lighthouse_paid", frozen=True):
    seat: int


class UnionHallScored(_E, tag="union_hall_scored", frozen=True):
    seat: int
    vp: int


class Loaded(_E, tag="loaded", frozen=True):
    seat: int
    good: str
    ship: int
    count: int
    vp: int  # barrels + captain privilege + harbor
    doubloons: int  # lighthouse


class WharfShipped(_E, tag="wharf_shipped", frozen=True):
    seat: int
    good: str
    count: int
    vp: int
    doubloons: int


class SmallWharfShipped(_E, tag="small_wharf_shipped", frozen=True):
    seat: int
    goods: dict[str, int]
    vp: int
    doubloons: int


class GoodsStored(_E, tag="goods_stored", frozen=True):
    seat: int
    keep: dict[str, int]
    returned: dict[str, int]


class ShipsUnloaded(_E, tag="ships_unloaded", frozen=True):
    ships: list[int]


class PhaseEnded(_E, tag="phase_ended", frozen=True):
    role: str


class GuestWindowOpened(_E, tag="guest_window_opened", frozen=True):
    seats: list[int]
    before: Before


class GuestMoved(_E, tag="guest_moved", frozen=True):
    seat: int
    to: str


class GuestsFinished(_E, tag="guests_finished", frozen=True):
    seat: int


class Prospected(_E, tag="prospected", frozen=True):
    seat: int
    doubloons: int


class RoundEnded(_E, tag="round_ended", frozen=True):
    bonus: list[str]


class GameEnded(_E, tag="game_ended", frozen=True):
    scores: list[int]


Event = Union[  # noqa: UP007 (the contract names a typing.Union)
    GovernorChosen,
    StackShuffled,
    RowDrawn,
    RowDiscarded,
    TurnStarted,
    BuildingDrafted,
    DraftFinished,
    RoundStarted,
    RoleChosen,
    HaciendaDrawn,
    HaciendaPlaced,
    Settled,
    Passed,
    ColonistsDistributed,
    ColonistsPlaced,
    ColonistShipRefilled,
    Built,
    Produced,
    CraftsmanBonusTaken,
    Sold,
    TradingHouseEmptied,
    LighthousePaid,
    UnionHallScored,
    Loaded,
    WharfShipped,
    SmallWharfShipped,
    GoodsStored,
    ShipsUnloaded,
    PhaseEnded,
    GuestWindowOpened,
    GuestMoved,
    GuestsFinished,
    Prospected,
    RoundEnded,
    GameEnded,
]

"""What happened (tagged union on `type`, snake_case tags). Every random outcome is inside an
event; fields carrying hidden data are blanked by `view.redact`."""

from __future__ import annotations

from typing import Annotated, Literal, Union

import msgspec

from domain.enums import one_of
from domain.puerto_rico.commands import BlackMarket
from domain.puerto_rico.data import (
    FOREST,
    ISLAND,
    PASS_STEPS,
    VENUES,
    BuildingId,
    CirclePlace,
    Good,
    GuestTarget,
    Role,
    Step,
    VioletId,
)
from domain.puerto_rico.data import SettleSource as SettleSource

Before = Literal["craftsman", "captain", "end"]  # what a guest window comes before
WindowFor = Literal["", "craftsman", "captain", "end"]  # the last window's `before` ("": none)
Colonist = Literal["supply", "ship"]  # where the hospice's or university's colonist comes from


class _E(msgspec.Struct, tag_field="type", frozen=True):
    pass


class GovernorChosen(_E, tag="governor_chosen", frozen=True):
    seat: int  # the first governor, drawn at random


class StackShuffled(_E, tag="stack_shuffled", frozen=True):
    size: int  # plantation tiles in the new face-down stack
    order: list[Good] | None  # top first; None for every seat while the game runs


class RowDrawn(_E, tag="row_drawn", frozen=True):
    tiles: list[Good]  # plantations drawn from the stack into the face-up row, in draw order


class RowDiscarded(_E, tag="row_discarded", frozen=True):
    tiles: list[Good]  # the row's plantations left untaken, moved to the discard


class TurnStarted(_E, tag="turn_started", frozen=True):
    step: Step  # the decision now awaited
    seat: int  # the seat that decides


class BuildingDrafted(_E, tag="building_drafted", frozen=True):
    seat: int  # the seat that drafted
    building: VioletId  # the violet building brought into the game with its copies


class DraftFinished(_E, tag="draft_finished", frozen=True):
    removed: list[VioletId]  # the violet buildings not drafted, out of this game


class RoundStarted(_E, tag="round_started", frozen=True):
    round: int  # the round's number, from 1
    governor: int  # the seat holding the governor card, who picks the first role


class RoleChosen(_E, tag="role_chosen", frozen=True):
    seat: int  # the chooser, who gets the privilege
    role: Role  # the role card picked
    doubloons: int  # doubloons taken from the card (0: none had piled up)


class HaciendaDrawn(_E, tag="hacienda_drawn", frozen=True):
    seat: int  # the hacienda's owner
    tile: Good | None  # secret while `pending` (only the drawer sees it; None for the others)
    pending: bool  # True: awaits hacienda_place; False: placed as a plantation now


class HaciendaPlaced(_E, tag="hacienda_placed", frozen=True):
    seat: int  # the hacienda's owner
    tile: Good | None  # secret when placed as a forest (None for every seat while the game runs)
    as_forest: bool  # True: placed face down as a forest; False: as a plantation


class Settled(_E, tag="settled", frozen=True):
    seat: int  # the seat that took the tile
    source: SettleSource  # the row (face_up), the quarry supply, or the stack's top as a forest
    # plantation kind, "quarry", or the forest's hidden identity ("forest" while the game runs)
    tile: Annotated[str, one_of((*ISLAND, FOREST))]
    hospice: Colonist | None = None  # where the hospice's colonist came from; None: no colonist
    library: bool = False  # True: the settler's extra take doubled by the library


class Passed(_E, tag="passed", frozen=True):
    seat: int  # the seat that passed
    step: Annotated[str, one_of(PASS_STEPS)]  # the decision passed on


class ColonistsDistributed(_E, tag="colonists_distributed", frozen=True):
    counts: list[int]  # colonists from the colonist ship to each seat's San Juan, by seat


class ColonistsPlaced(_E, tag="colonists_placed", frozen=True):
    seat: int  # the seat that placed its colonists
    privilege: int  # colonists the mayor took from the supply first (0 for the others)
    # island kind -> its tiles occupied, building -> colonists on it (zeros omitted), in
    # island-then-building order
    layout: dict[CirclePlace, int]
    san_juan: int  # colonists left in San Juan


class ColonistShipRefilled(_E, tag="colonist_ship_refilled", frozen=True):
    required: int  # max(seats, empty circles on every player's buildings)
    count: int  # colonists moved from the supply to the ship (the whole supply if short)
    end_triggered: bool  # True: the supply held fewer than `required`; the game ends this round


class Built(_E, tag="built", frozen=True):
    seat: int  # the buyer
    building: BuildingId  # the building bought
    paid: int  # doubloons paid to the bank
    university: Colonist | None = None  # where the university's colonist came from; None: none
    black_market: BlackMarket | None = None  # what the black market returned; None: not used
    church_vp: int = 0  # VP from the buyer's church (1 for column 2-3, 2 for column 4)
    city_full: bool = False  # True: the buyer's city is full; the game ends this round


class Produced(_E, tag="produced", frozen=True):
    seat: int  # the producing seat
    goods: list[int]  # barrels received per good, in corn-to-coffee order
    aqueduct: list[int]  # aqueduct's extra barrel per good, same order (only indigo, sugar: 0-1)
    factory: int  # doubloons from the factory
    specialty: int  # doubloons from the specialty factory (the craftsman's come with his bonus)


class CraftsmanBonusTaken(_E, tag="craftsman_bonus_taken", frozen=True):
    seat: int  # the craftsman
    goods: list[Good]  # privilege barrels taken (empty: none, only the specialty payout)
    specialty: int  # doubloons from the craftsman's specialty factory, bonus barrels counted


class Sold(_E, tag="sold", frozen=True):
    seat: int  # the seller
    good: Good  # the kind of the barrel sold
    venue: Annotated[str, one_of(VENUES)]  # trading_house or the seller's own trading_post
    price: int  # doubloons received: the good's price plus privilege and market bonuses


class TradingHouseEmptied(_E, tag="trading_house_emptied", frozen=True):
    goods: list[Good]  # the full trading house's barrels, back to the supply, in sale order


class LighthousePaid(_E, tag="lighthouse_paid", frozen=True):
    seat: int  # the captain, paid 1 doubloon at the phase's start by the lighthouse (R19)


class UnionHallScored(_E, tag="union_hall_scored", frozen=True):
    seat: int  # the union hall's owner
    vp: int  # VP scored: half the barrels of each kind held, rounded down, summed (R15)


class Loaded(_E, tag="loaded", frozen=True):
    seat: int  # the shipper
    good: Good  # the kind loaded
    ship: int  # index into the cargo ships, smallest first
    count: int  # barrels loaded
    vp: int  # barrels + captain privilege + harbor
    doubloons: int  # from the lighthouse (1 or 0)


class WharfShipped(_E, tag="wharf_shipped", frozen=True):
    seat: int  # the wharf's owner
    good: Good  # the kind shipped, every barrel of it
    count: int  # barrels shipped
    vp: int  # barrels + captain privilege + harbor
    doubloons: int  # from the lighthouse (1 or 0)


class SmallWharfShipped(_E, tag="small_wharf_shipped", frozen=True):
    seat: int  # the small wharf's owner
    goods: dict[Good, int]  # good -> barrels shipped (zeros omitted)
    vp: int  # half the barrels rounded down + captain privilege + harbor
    doubloons: int  # from the lighthouse (1 or 0)


class GoodsStored(_E, tag="goods_stored", frozen=True):
    seat: int  # the storing seat
    keep: dict[Good, int]  # good -> barrels kept (zeros omitted)
    returned: dict[Good, int]  # good -> barrels that spoiled, back to the supply (zeros omitted)


class ShipsUnloaded(_E, tag="ships_unloaded", frozen=True):
    ships: list[int]  # indices of the full cargo ships emptied into the supply


class PhaseEnded(_E, tag="phase_ended", frozen=True):
    role: Role  # the role card whose phase ended


class GuestWindowOpened(_E, tag="guest_window_opened", frozen=True):
    seats: list[int]  # the seats with a movable guest, in order from the chooser
    before: Before  # what the window comes before: craftsman or captain phase, or scoring


class GuestMoved(_E, tag="guest_moved", frozen=True):
    seat: int  # the guest house's owner
    to: GuestTarget  # the island kind or building the guest now works on


class GuestsFinished(_E, tag="guests_finished", frozen=True):
    seat: int  # the seat done moving guests in this window


class Prospected(_E, tag="prospected", frozen=True):
    seat: int  # the prospector
    doubloons: int  # from the bank: 1 (2 with a library)


class RoundEnded(_E, tag="round_ended", frozen=True):
    bonus: list[Role]  # the role cards nobody picked, each given 1 doubloon


class GameEnded(_E, tag="game_ended", frozen=True):
    scores: list[int]  # final total by seat


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

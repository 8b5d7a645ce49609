"""Decisions, a tagged union on `type`."""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from domain.enums import one_of
from domain.puerto_rico.data import (
    BLACK_MARKET_COLONIST,
    SETTLE_SOURCES,
    VENUES,
    BuildingId,
    CirclePlace,
    Good,
    GuestTarget,
    Role,
    VioletId,
)


class _Command(msgspec.Struct, tag_field="type", frozen=True, forbid_unknown_fields=True):
    """A decision: a field the command does not have is refused, never dropped."""


class DraftBuilding(_Command, tag="draft_building", frozen=True):
    # the violet building to bring into the game: not drafted yet, its cost's slots not all full
    building: VioletId


class ChooseRole(_Command, tag="choose_role", frozen=True):
    role: Role  # a role card in this game not yet picked this round


class HaciendaDraw(_Command, tag="hacienda_draw", frozen=True):
    pass


class HaciendaPlace(_Command, tag="hacienda_place", frozen=True):
    as_forest: bool  # True: the drawn tile goes face down as a forest; False: as a plantation


class Settle(_Command, tag="settle", frozen=True):
    """source: face_up (with kind) | quarry | forest."""

    # face_up: a plantation from the row; quarry: from the supply; forest: the stack's top tile
    source: Annotated[str, one_of(SETTLE_SOURCES)]
    kind: Good | None = None  # the face-up plantation kind to take; None for quarry and forest
    # add a hospice colonist (supply first, else the ship); a forest's goes to San Juan
    hospice: bool = False


class Pass(_Command, tag="pass", frozen=True):
    pass


class PlaceColonists(_Command, tag="place_colonists", frozen=True):
    """layout: occupied count per island kind and colonists per building, zeros omitted;
    San Juan holds the remainder. privilege: the mayor's colonists from the supply."""

    # island kind -> its tiles occupied, building -> colonists on it; zeros omitted, rest San Juan
    layout: dict[CirclePlace, int]
    # colonists taken from the supply first: mayor only, 0-1 (0-2 with a library); others 0
    privilege: int = 0


class BlackMarket(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the black market returns to cover a shortfall: each item lowers the cost by 1."""

    # where the returned colonist comes from: island kind, building or "san_juan"; None: none
    colonist_from: Annotated[str, one_of(BLACK_MARKET_COLONIST)] | None = None
    good: Good | None = None  # the kind of the one barrel returned; None: no barrel
    vp: bool = False  # True: 1 VP is returned to the VP supply


class Build(_Command, tag="build", frozen=True):
    building: BuildingId  # the building to buy (one with a copy left that the player lacks)
    # occupied university: a colonist on it from the supply, else the ship (statue: San Juan)
    university: bool = False
    # items returned when the doubloons fall short (then all doubloons are paid); None: not used
    black_market: BlackMarket | None = None


class CraftsmanBonus(_Command, tag="craftsman_bonus", frozen=True):
    # the privilege barrels, in corn-to-coffee order: 1 (2 with a library) of kinds received
    goods: list[Good]


class Sell(_Command, tag="sell", frozen=True):
    good: Good  # the kind of the one barrel sold
    # trading_house (market bonuses apply) or the seller's own trading_post (any kind, no bonus)
    venue: Annotated[str, one_of(VENUES)] = "trading_house"


class Load(_Command, tag="load", frozen=True):
    good: Good  # the kind loaded: every barrel of it that fits goes on the ship
    ship: int  # index into the cargo ships, smallest first


class ShipWharf(_Command, tag="ship_wharf", frozen=True):
    good: Good  # the kind all of whose barrels the wharf ships


class ShipSmallWharf(_Command, tag="ship_small_wharf", frozen=True):
    goods: dict[Good, int]  # good -> barrels shipped (at least one in all; zeros omitted)


class Store(_Command, tag="store", frozen=True):
    # good -> barrels kept (zeros omitted); the rest go back to the supply; must be maximal (R22)
    keep: dict[Good, int]


class MoveGuest(_Command, tag="move_guest", frozen=True):
    to: GuestTarget  # the empty circle: an island kind's unoccupied tile or an owned building


class GuestsDone(_Command, tag="guests_done", frozen=True):
    pass


Command = Union[  # noqa: UP007 (the contract names a typing.Union)
    DraftBuilding,
    ChooseRole,
    HaciendaDraw,
    HaciendaPlace,
    Settle,
    Pass,
    PlaceColonists,
    Build,
    CraftsmanBonus,
    Sell,
    Load,
    ShipWharf,
    ShipSmallWharf,
    Store,
    MoveGuest,
    GuestsDone,
]

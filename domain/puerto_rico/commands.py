"""Decisions, a tagged union on `type`."""

from __future__ import annotations

from typing import Union

import msgspec


class _Command(msgspec.Struct, tag_field="type", frozen=True, forbid_unknown_fields=True):
    """A decision: a field the command does not have is refused, never dropped."""


class DraftBuilding(_Command, tag="draft_building", frozen=True):
    building: str


class ChooseRole(_Command, tag="choose_role", frozen=True):
    role: str


class HaciendaDraw(_Command, tag="hacienda_draw", frozen=True):
    pass


class HaciendaPlace(_Command, tag="hacienda_place", frozen=True):
    as_forest: bool


class Settle(_Command, tag="settle", frozen=True):
    """source: face_up (with kind) | quarry | forest."""

    source: str
    kind: str | None = None
    hospice: bool = False


class Pass(_Command, tag="pass", frozen=True):
    pass


class PlaceColonists(_Command, tag="place_colonists", frozen=True):
    """layout: occupied count per island kind and colonists per building, zeros omitted;
    San Juan holds the remainder. privilege: the mayor's colonists from the supply."""

    layout: dict[str, int]
    privilege: int = 0


class BlackMarket(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    colonist_from: str | None = None
    good: str | None = None
    vp: bool = False


class Build(_Command, tag="build", frozen=True):
    building: str
    university: bool = False
    black_market: BlackMarket | None = None


class CraftsmanBonus(_Command, tag="craftsman_bonus", frozen=True):
    goods: list[str]


class Sell(_Command, tag="sell", frozen=True):
    good: str
    venue: str = "trading_house"  # trading_house | trading_post


class Load(_Command, tag="load", frozen=True):
    good: str
    ship: int  # index into the cargo ships, smallest first


class ShipWharf(_Command, tag="ship_wharf", frozen=True):
    good: str


class ShipSmallWharf(_Command, tag="ship_small_wharf", frozen=True):
    goods: dict[str, int]


class Store(_Command, tag="store", frozen=True):
    keep: dict[str, int]


class MoveGuest(_Command, tag="move_guest", frozen=True):
    to: str


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

"""Decisions, a tagged union on `type`."""

from __future__ import annotations

from typing import Union

import msgspec


class DraftBuilding(msgspec.Struct, tag="draft_building", tag_field="type", frozen=True):
    building: str


class ChooseRole(msgspec.Struct, tag="choose_role", tag_field="type", frozen=True):
    role: str


class HaciendaDraw(msgspec.Struct, tag="hacienda_draw", tag_field="type", frozen=True):
    pass


class HaciendaPlace(msgspec.Struct, tag="hacienda_place", tag_field="type", frozen=True):
    as_forest: bool


class Settle(msgspec.Struct, tag="settle", tag_field="type", frozen=True):
    """source: face_up (with kind) | quarry | forest."""

    source: str
    kind: str | None = None
    hospice: bool = False


class Pass(msgspec.Struct, tag="pass", tag_field="type", frozen=True):
    pass


class PlaceColonists(msgspec.Struct, tag="place_colonists", tag_field="type", frozen=True):
    """layout: occupied count per island kind and colonists per building, zeros omitted;
    San Juan holds the remainder. privilege: the mayor's colonists from the supply."""

    layout: dict[str, int]
    privilege: int = 0


class BlackMarket(msgspec.Struct, frozen=True):
    colonist_from: str | None = None
    good: str | None = None
    vp: bool = False


class Build(msgspec.Struct, tag="build", tag_field="type", frozen=True):
    building: str
    university: bool = False
    black_market: BlackMarket | None = None


class CraftsmanBonus(msgspec.Struct, tag="craftsman_bonus", tag_field="type", frozen=True):
    goods: list[str]


class Sell(msgspec.Struct, tag="sell", tag_field="type", frozen=True):
    good: str
    venue: str = "trading_house"  # trading_house | trading_post


class Load(msgspec.Struct, tag="load", tag_field="type", frozen=True):
    good: str
    ship: int  # index into the cargo ships, smallest first


class ShipWharf(msgspec.Struct, tag="ship_wharf", tag_field="type", frozen=True):
    good: str


class ShipSmallWharf(msgspec.Struct, tag="ship_small_wharf", tag_field="type", frozen=True):
    goods: dict[str, int]


class Store(msgspec.Struct, tag="store", tag_field="type", frozen=True):
    keep: dict[str, int]


class MoveGuest(msgspec.Struct, tag="move_guest", tag_field="type", frozen=True):
    to: str


class GuestsDone(msgspec.Struct, tag="guests_done", tag_field="type", frozen=True):
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

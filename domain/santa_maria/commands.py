"""The player decision vocabulary as a tagged union."""

from __future__ import annotations

from typing import Union

import msgspec


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class ChooseColony(_Command, tag="choose_colony", frozen=True):
    board: str


class Expand(_Command, tag="expand", frozen=True):
    tile: str
    cells: list[list[int]]
    gold_for: list[str] = []


class ActivateBuilding(_Command, tag="activate_building", frozen=True):
    row: int
    col: int


class ActivateDie(_Command, tag="activate_die", frozen=True):
    die: str  # white | blue
    value: int
    face: int | None = None  # white
    index: int | None = None  # blue, 1..3


class Retire(_Command, tag="retire", frozen=True):
    space: str


class Sell(_Command, tag="sell", frozen=True):
    resource: str
    count: int


class Buy(_Command, tag="buy", frozen=True):
    resource: str
    count: int


class Alchemy(_Command, tag="alchemy", frozen=True):
    pay: str
    gain: str


class Trade(_Command, tag="trade", frozen=True):
    pay: str
    gain: str


class Ship(_Command, tag="ship", frozen=True):
    dock: int
    gold_for: list[str] = []
    coins_for: str | None = None


class Religion(_Command, tag="religion", frozen=True):
    extra: int
    gold: int = 0


class Conquistador(_Command, tag="conquistador", frozen=True):
    extra: int


class Recruit(_Command, tag="recruit", frozen=True):
    space: str


class PlaceRoad(_Command, tag="place_road", frozen=True):
    row: int
    col: int


class Decline(_Command, tag="decline", frozen=True):
    pass


class EndTurn(_Command, tag="end_turn", frozen=True):
    pass


Command = Union[  # noqa: UP007 - the contract names a typing.Union
    ChooseColony,
    Expand,
    ActivateBuilding,
    ActivateDie,
    Retire,
    Sell,
    Buy,
    Alchemy,
    Trade,
    Ship,
    Religion,
    Conquistador,
    Recruit,
    PlaceRoad,
    Decline,
    EndTurn,
]

MAIN_ACTIONS = (Expand, ActivateBuilding, ActivateDie, Retire)
FREE_ACTIONS = (Sell, Buy, Alchemy)
ANSWERS = (Trade, Ship, Religion, Conquistador, Recruit, PlaceRoad, Decline)

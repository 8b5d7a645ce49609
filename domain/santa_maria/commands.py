"""The player decision vocabulary as a tagged union."""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from domain.enums import one_of
from domain.santa_maria import data
from domain.santa_maria.state import (
    BoardName,
    CostKind,
    DieColour,
    Dock,
    MonkSpace,
    Resource,
    RetireSpace,
    TileId,
)


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class ChooseColony(_Command, tag="choose_colony", frozen=True):
    board: BoardName  # a colony board no seat has chosen yet


class Expand(_Command, tag="expand", frozen=True):
    tile: TileId  # a tile of this year's display
    # The [row, col] (1..6) each tile square goes on, in square order (a, b[, c]).
    cells: list[list[int]]
    # Cost items paid with 1 gold each instead (a multiset; empty: no gold).
    gold_for: list[Annotated[str, one_of(data.EXPANSION_COST_KINDS)]] = []


class ActivateBuilding(_Command, tag="activate_building", frozen=True):
    row: int  # row (1..6, top first) of an unoccupied building of the colony
    col: int  # column (1..6, left first) of that building


class ActivateDie(_Command, tag="activate_die", frozen=True):
    die: DieColour  # white (from the pool, picks a column) or blue (own, picks a row)
    # The value the die is set to (1..6): the column (white) or row (blue) activated; the
    # change from its face costs 1 coin a pip (SC02: 1 coin less in all).
    value: int
    face: int | None = None  # white: the face of a pool die to take (1..6); None for blue
    index: int | None = None  # blue: which of the player's blue dice (1..3); None for white


class Retire(_Command, tag="retire", frozen=True):
    space: RetireSpace  # a retire space vacant this year


class Sell(_Command, tag="sell", frozen=True):
    resource: Resource  # the resource to sell
    count: int  # how many (1 up to the number held)


class Buy(_Command, tag="buy", frozen=True):
    resource: Annotated[str, one_of(data.BUY_PRICE)]  # only wood and grain can be bought
    count: int  # how many (>= 1; 3 coins each, up to the storage limit)


class Alchemy(_Command, tag="alchemy", frozen=True):
    pay: CostKind  # the resource given up (SC10, once a year)
    gain: CostKind  # the resource gained instead (a different kind)


class Trade(_Command, tag="trade", frozen=True):
    # The token handed over: an input of the pending trade building (TG: grain; TL: sugar or
    # gem), or gold in its place.
    pay: Annotated[str, one_of(data.TRADE_PAY)]
    gain: Annotated[str, one_of(data.TRADE_GAIN)]  # TG: coins (3); TL: points (2) or coins (4)


class Ship(_Command, tag="ship", frozen=True):
    dock: Dock  # the common-board dock whose tile is shipped
    gold_for: list[CostKind] = []  # cost items paid with 1 gold each instead (a multiset)
    # SC06 only: a cost item paid with 2 coins instead; None: no coins paid.
    coins_for: CostKind | None = None


class Religion(_Command, tag="religion", frozen=True):
    extra: int  # extra steps to buy: 0 up to the decision's max_extra (1; 2 with SC07)
    gold: int = 0  # how many of the extra steps are paid with gold instead of grain (0..extra)


class Conquistador(_Command, tag="conquistador", frozen=True):
    extra: int  # 1: pay 2 coins for an extra step (SC08); 0: the base step only


class Recruit(_Command, tag="recruit", frozen=True):
    space: MonkSpace  # a monk space without the player's monk (2 coins to each occupant)


class PlaceRoad(_Command, tag="place_road", frozen=True):
    row: int  # row (1..6) of an empty cell of the colony
    col: int  # column (1..6) of that cell


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

"""The player decision vocabulary as a tagged union.

Road spaces are ints 1..28; named locations are strings (`gate`, ..., `castle`). "none"
declines an optional effect.
"""

from __future__ import annotations

from typing import Union

import msgspec


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class PlaceWorker(_Command, tag="place_worker", frozen=True):
    target: int | str  # road space 1..28 | gate | trading_post | ... | stables | inn | castle


class Pass(_Command, tag="pass", frozen=True):
    pass


class GateMove(_Command, tag="gate_move", frozen=True):
    target: int | str = "none"


class GuildMove(_Command, tag="guild_move", frozen=True):
    delta: int = 0


class Joust(_Command, tag="joust", frozen=True):
    accept: bool


class InnChoice(_Command, tag="inn_choice", frozen=True):
    stay: bool


class ProvostMove(_Command, tag="provost_move", frozen=True):
    delta: int = 0


class Produce(_Command, tag="produce", frozen=True):
    option: str  # the alternative of an "or" tile, named by its main cube (F, C, W, ...)


class OwnerBonus(_Command, tag="owner_bonus", frozen=True):
    cube: str


class Build(_Command, tag="build", frozen=True):
    tile: str = "none"
    any_cube: str = "none"  # the X of a W+X wood tile


class BuildPrestige(_Command, tag="build_prestige", frozen=True):
    tile: str = "none"
    residence_space: int = 0


class Transform(_Command, tag="transform", frozen=True):
    target_space: int = 0  # 0 = none


class Sell(_Command, tag="sell", frozen=True):
    cube: str = "none"


class Buy(_Command, tag="buy", frozen=True):
    cubes: list[str] = []  # Y cubes bought, sorted F, W, S, C


class Exchange(_Command, tag="exchange", frozen=True):
    option: str = "none"  # none | first | second
    cubes: list[str] = []  # Alchemist only: the 2 or 4 Y given, sorted F, W, S, C


class CastleBatch(_Command, tag="castle_batch", frozen=True):
    batch: str  # FWS | FWC | FWG | FSC | FSG | FCG


class CastleDone(_Command, tag="castle_done", frozen=True):
    pass


class Favour(_Command, tag="favour", frozen=True):
    """One royal favour: a row unused this phase and a column <= the advanced marker.

    Rows a and b take the marker's column. `column` 0 declines a row c or d effect. Details:
    c2 `cube` (W|S); c4 `give` and `take` (2 Y, sorted); d2/d3 `tile` (+ `any_cube`);
    d4 `target_space`; d5 `tile` + `residence_space`.
    """

    row: str
    column: int = 0
    cube: str = "none"
    give: str = "none"
    take: list[str] = []
    tile: str = "none"
    any_cube: str = "none"
    residence_space: int = 0
    target_space: int = 0


Command = Union[  # noqa: UP007 - the contract asks for a typing.Union
    PlaceWorker,
    Pass,
    GateMove,
    GuildMove,
    Joust,
    InnChoice,
    ProvostMove,
    Produce,
    OwnerBonus,
    Build,
    BuildPrestige,
    Transform,
    Sell,
    Buy,
    Exchange,
    CastleBatch,
    CastleDone,
    Favour,
]

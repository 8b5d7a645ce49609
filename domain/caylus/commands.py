"""The player decision vocabulary as a tagged union.

Road spaces are ints 1..28; named locations are strings (`gate`, ..., `castle`). "none"
declines an optional effect.
"""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from domain.caylus import data
from domain.enums import one_of

Cube = Annotated[str, one_of(data.CUBES)]
NonGold = Annotated[str, one_of(data.NON_GOLD)]  # a "Y" cube
NamedTarget = Annotated[str, one_of(data.PLACE_TARGETS_NAMED)]
GateTarget = Annotated[str, one_of(("none", *data.GATE_TARGETS_NAMED))]
Delta = Annotated[int, one_of(data.PROVOST_DELTAS)]
WoodOrStone = Annotated[str, one_of(("none", *data.WOOD_TILES, *data.STONE_TILES))]
AnyCube = Annotated[str, one_of(("none", *data.CUBES))]


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class PlaceWorker(_Command, tag="place_worker", frozen=True):
    """Phase 2: put a worker on a free location, paying its cost in deniers."""

    # a road space 1..28 or a named location (stables, castle: the lowest free circle or space)
    target: int | NamedTarget


class Pass(_Command, tag="pass", frozen=True):
    """Phase 2: take the lowest free passing-scale position (position 1 gains 1 d)."""


class GateMove(_Command, tag="gate_move", frozen=True):
    """Phase 3: move the gate's worker, free."""

    # a road space 1..28 or a named location other than the gate; "none": the worker returns
    target: int | GateTarget = "none"


class GuildMove(_Command, tag="guild_move", frozen=True):
    """Phase 3: the merchants' guild's free provost move."""

    delta: Delta = 0  # spaces the provost moves, -3..+3 (+ away from the castle); 0 declines


class Joust(_Command, tag="joust", frozen=True):
    """Phase 3: the joust field."""

    accept: bool  # true: pay 1 d + 1 C for 1 favour; false: decline


class InnChoice(_Command, tag="inn_choice", frozen=True):
    """Phase 3: whether the inn's right-circle worker stays."""

    stay: bool  # true: stays through the next turn (placements cost 1 d); false: it returns


class ProvostMove(_Command, tag="provost_move", frozen=True):
    """Phase 4: move the provost, paying 1 d per space."""

    delta: Delta = 0  # spaces the provost moves, -3..+3 (+ away from the castle); 0 passes


class Produce(_Command, tag="produce", frozen=True):
    """Phase 5: a production tile's output (mandatory)."""

    # the alternative of an "or" tile, named by its main cube (F, C, W, ...); a tile without a
    # choice names its only output (S, G; FFC, WWF, SSC for the stone farm, park and workshop)
    option: Annotated[str, one_of(data.PRODUCTION_OPTIONS)]


class OwnerBonus(_Command, tag="owner_bonus", frozen=True):
    """Phase 5: the owner's extra cube of a stone production tile another player used."""

    cube: NonGold  # the cube taken: F or C (stone farm), W or F (park), S or C (workshop)


class Build(_Command, tag="build", frozen=True):
    """Phase 5: a carpenter (a wood tile) or a mason (a stone tile)."""

    tile: WoodOrStone = "none"  # the tile built from the stock; "none" declines
    any_cube: AnyCube = "none"  # the X of a W+X wood tile (gold allowed); "none" for other tiles


class BuildPrestige(_Command, tag="build_prestige", frozen=True):
    """Phase 5: an architect builds a prestige tile over one of the player's residences."""

    tile: Annotated[str, one_of(("none", *data.PRESTIGE_TILES))] = "none"  # "none" declines
    residence_space: int = 0  # road space of the own residence replaced; 0 when declining


class Transform(_Command, tag="transform", frozen=True):
    """Phase 5: a lawyer turns a building into a residence for 1 C + 1 d."""

    target_space: int = 0  # road space of the building transformed; 0 = none (declines)


class Sell(_Command, tag="sell", frozen=True):
    """Phase 5: a marketplace (4 d, or 6 d for the wood one, for one cube)."""

    cube: AnyCube = "none"  # the cube sold (gold allowed); "none" declines


class Buy(_Command, tag="buy", frozen=True):
    """Phase 5: a peddler (fixed: 1 Y for 2 d; wood: up to 2 Y for 1 d each)."""

    cubes: list[NonGold] = []  # Y cubes bought, sorted F, W, S, C; empty declines


class Exchange(_Command, tag="exchange", frozen=True):
    """Phase 5: an exchange tile (church, tailor, bank, alchemist, jeweller)."""

    # none declines | first | second: the tile's cheaper or dearer alternative
    option: Annotated[str, one_of(("none", *data.EXCHANGE_OPTIONS))] = "none"
    cubes: list[NonGold] = []  # Alchemist only: the 2 or 4 Y given, sorted F, W, S, C


class CastleBatch(_Command, tag="castle_batch", frozen=True):
    """Phase 6: hand in one batch of 3 cubes for a house in the castle."""

    # the 3 cubes handed in, F plus two other kinds: FWS | FWC | FWG | FSC | FSG | FCG
    batch: Annotated[str, one_of(data.BATCHES)]


class CastleDone(_Command, tag="castle_done", frozen=True):
    """Phase 6: hand in no more batches this turn (none at all: -2 PP, R13)."""


class Favour(_Command, tag="favour", frozen=True):
    """One royal favour: a row unused this phase and a column <= the advanced marker.

    Rows a and b take the marker's column. `column` 0 declines a row c or d effect. Details:
    c2 `cube` (W|S); c4 `give` and `take` (2 Y, sorted); d2/d3 `tile` (+ `any_cube`);
    d4 `target_space`; d5 `tile` + `residence_space`.
    """

    row: Annotated[str, one_of(data.ROWS)]  # a prestige | b deniers | c cubes | d buildings
    # the column applied: rows a and b the marker's column, rows c and d 1..marker or 0 = decline
    column: Annotated[int, one_of(data.FAVOUR_COLUMNS)] = 0
    cube: Annotated[str, one_of(("none", *data.FAVOUR_C2_CUBES))] = "none"  # c2: W or S
    give: AnyCube = "none"  # c4: the cube given (gold allowed)
    take: list[NonGold] = []  # c4: the 2 Y taken, sorted F, W, S, C
    # d2: a wood tile, d3: a stone tile, d5: a prestige tile; "none" otherwise
    tile: Annotated[
        str, one_of(("none", *data.WOOD_TILES, *data.STONE_TILES, *data.PRESTIGE_TILES))
    ] = "none"
    any_cube: AnyCube = "none"  # d2: the X of a W+X wood tile; "none" otherwise
    residence_space: int = 0  # d5: road space of the own residence replaced; 0 otherwise
    target_space: int = 0  # d4: road space of the building transformed; 0 otherwise


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

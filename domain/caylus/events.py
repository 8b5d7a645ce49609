"""What happened (tagged union, snake_case tags). Nothing in Caylus is hidden.

Every change of deniers, cubes or PP is a `resources_changed` event with signed amounts, so a
player's holdings are the sum of their `resources_changed` events. Decision events carry
`auto=True` when the single-option rule applied them without asking. No field is ever blanked
for other seats: every seat and spectator sees every event whole.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import msgspec

from domain.caylus import data
from domain.enums import one_of

Section = Annotated[int, one_of(range(len(data.SECTIONS)))]  # 0 dungeon, 1 walls, 2 towers
NonGold = Annotated[str, one_of(data.NON_GOLD)]


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up: the only randomness --------------------------------------------------------


class TurnOrderDrawn(_Event, tag="turn_order_drawn", frozen=True):
    order: list[int]  # the seats in the first turn's order, first player first


class RoadSetUp(_Event, tag="road_set_up", frozen=True):
    neutral: list[Annotated[str, one_of(data.NEUTRAL_TILES)]]  # neutral tiles on spaces 1..6
    # wood, stone and prestige tiles in the stock (the architect twice)
    stock: list[Annotated[str, one_of(data.STOCK_TILES)]]


class ResourcesChanged(_Event, tag="resources_changed", frozen=True):
    seat: int  # the player whose holdings changed
    reason: Annotated[str, one_of(data.RESOURCE_REASONS)]  # what caused the change
    deniers: int = 0  # signed change in deniers (negative: paid)
    food: int = 0  # signed change in food cubes (F)
    wood: int = 0  # signed change in wood cubes (W)
    stone: int = 0  # signed change in stone cubes (S)
    cloth: int = 0  # signed change in cloth cubes (C)
    gold: int = 0  # signed change in gold cubes (G)
    prestige: int = 0  # signed change in prestige points (a loss never takes PP below 0)


# --- turn flow --------------------------------------------------------------------------------


class TurnStarted(_Event, tag="turn_started", frozen=True):
    """A turn begins, with its phase 1 (income)."""

    turn: int  # the turn's number, from 1


class PhaseStarted(_Event, tag="phase_started", frozen=True):
    # the phase begun: 2 placement, 3 special buildings, 4 provost, 5 road, 6 castle, 7 end of
    # turn (phase 1 begins with turn_started)
    phase: Annotated[int, one_of(range(2, 8))]


class WorkerPlaced(_Event, tag="worker_placed", frozen=True):
    seat: int  # the player who placed the worker
    # road space 1..28 or a named location (stables and castle: the lowest free circle/space)
    target: int | Annotated[str, one_of(data.PLACE_TARGETS_NAMED)]
    cost: int  # deniers paid (also in the resources_changed that follows)
    auto: bool = False  # true: the only legal option, applied without asking


class Passed(_Event, tag="passed", frozen=True):
    seat: int  # the player who passed
    position: int  # passing-scale position taken, 1 first (position 1 gains 1 d)
    auto: bool = False  # true: the only legal option, applied without asking


# --- phase 3 ----------------------------------------------------------------------------------


class GateMoved(_Event, tag="gate_moved", frozen=True):
    seat: int  # the gate worker's player
    # where the worker went: a road space 1..28 or a named location; "none": the worker returns
    target: int | Annotated[str, one_of(("none", *data.GATE_TARGETS_NAMED))]
    auto: bool = False  # true: the only legal option, applied without asking


class TradingPostUsed(_Event, tag="trading_post_used", frozen=True):
    seat: int  # the trading post worker's player (+3 d; the worker returns)


class ProvostMoved(_Event, tag="provost_moved", frozen=True):
    seat: int  # the player who moved (or declined to move) the provost
    delta: Annotated[int, one_of(data.PROVOST_DELTAS)]  # spaces moved (+: away from the castle)
    position: int  # the provost's road space afterwards, 1..28
    # merchants_guild: the guild's free move (phase 3); bid: a phase-4 move paid 1 d per space
    source: Literal["merchants_guild", "bid"]
    auto: bool = False  # true: the only legal option, applied without asking


class JoustResolved(_Event, tag="joust_resolved", frozen=True):
    seat: int  # the joust field worker's player
    accepted: bool  # true: paid 1 d + 1 C for 1 favour; false: declined
    auto: bool = False  # true: the only legal option, applied without asking


class StablesResolved(_Event, tag="stables_resolved", frozen=True):
    circles: list[int]  # seats on the stables' circles, circle 1 first
    order: list[int]  # the new turn order: those seats, then the others in their old order


class InnResolved(_Event, tag="inn_resolved", frozen=True):
    moved: int  # seat moved from left to right
    returned: int  # seat whose right-circle worker returned, or -1


class InnDecided(_Event, tag="inn_decided", frozen=True):
    seat: int  # the player on the inn's right circle
    stay: bool  # true: the worker stays through the next turn; false: it returns
    auto: bool = False  # true: the only legal option, applied without asking


# --- phase 5 ----------------------------------------------------------------------------------


Action = Literal["produce", "sell", "buy", "build", "build_prestige", "transform", "exchange"]


class Activated(_Event, tag="activated", frozen=True):
    """A road building's activation resolved by its worker's player."""

    seat: int  # the worker's player
    space: int  # the road space activated, 1..28
    tile: Annotated[str, one_of(data.WORKABLE_TILES)]  # the building on that space
    action: Action  # what the building did, by its kind (the command answered)
    # the option taken, "none" when declined: the production option, the cube sold, the cubes
    # bought (letters, "FW"), the tile built, the transformed space (digits), first or second
    choice: str
    auto: bool = False  # true: the only legal option, applied without asking


class OwnerBonusTaken(_Event, tag="owner_bonus_taken", frozen=True):
    seat: int  # the owner of the stone production tile
    space: int  # the tile's road space
    cube: NonGold  # the extra cube the owner took
    auto: bool = False  # true: the only legal option, applied without asking


class WorkerReturned(_Event, tag="worker_returned", frozen=True):
    seat: int  # the worker's player
    space: int  # the road space it left, after its activation


class SweepEnded(_Event, tag="sweep_ended", frozen=True):
    returned: list[int]  # road spaces beyond the provost whose workers return unused


class TileBuilt(_Event, tag="tile_built", frozen=True):
    seat: int  # the builder, now the tile's owner
    # road space: the lowest empty site (wood, stone) or the replaced residence's (prestige)
    space: int
    tile: Annotated[str, one_of(data.STOCK_TILES)]  # the tile built, taken from the stock
    # "residence": a prestige tile replaced the builder's residence; "": built on an empty site
    replaced: Annotated[str, one_of(("", "residence"))] = ""


class TransformationScheduled(_Event, tag="transformation_scheduled", frozen=True):
    """A lawyer transformation paid now, done once the space's worker leaves (R8)."""

    seat: int  # the lawyer's player, owner of the future residence
    space: int  # the road space to be transformed


class Transformed(_Event, tag="transformed", frozen=True):
    seat: int  # the lawyer's player, owner of the new residence (+2 PP)
    space: int  # the road space transformed
    # the tile replaced by the residence (a neutral one leaves the game, others go to the stock)
    removed: Annotated[str, one_of(data.TRANSFORMABLE_TILES)]


# --- favours ---------------------------------------------------------------------------


class FavoursGained(_Event, tag="favours_gained", frozen=True):
    """Favours won: pending until resolved (full favours), or 3 PP each at once (simplified)."""

    seat: int  # the player who won them
    count: int  # how many favours
    # build: a built tile's favours; joust_field; best_builder: most batches this turn;
    # dungeon, walls, towers: that castle section's scoring
    reason: Annotated[str, one_of(data.FAVOUR_REASONS)]


class FavourTaken(_Event, tag="favour_taken", frozen=True):
    seat: int  # the player resolving one pending favour
    row: Annotated[str, one_of(data.ROWS)]  # a prestige | b deniers | c cubes | d buildings
    marker: int  # the row's marker after advancing, 1..5 (it stays put at the cap)
    # the column applied (rows a and b: the marker's); 0 = a row c or d effect declined
    column: Annotated[int, one_of(data.FAVOUR_COLUMNS)]
    auto: bool = False  # true: the only legal option, applied without asking


class FavourLost(_Event, tag="favour_lost", frozen=True):
    seat: int  # the player who loses a pending favour: every row is used this phase


# --- phase 6 ----------------------------------------------------------------------------------


class BatchDelivered(_Event, tag="batch_delivered", frozen=True):
    seat: int  # the castle worker's player
    batch: Annotated[str, one_of(data.BATCHES)]  # the three cubes handed in
    section: Section  # where the house went: 0 dungeon, 1 walls, 2 towers
    auto: bool = False  # true: the only legal option, applied without asking


class CastleDone(_Event, tag="castle_done", frozen=True):
    seat: int  # the castle worker's player
    batches: int  # batches the player handed in this turn (0: -2 PP, unless R13 spares it)
    auto: bool = False  # true: the only legal option, applied without asking


class CastleResolved(_Event, tag="castle_resolved", frozen=True):
    # seat that handed in most batches this turn (ties: lowest castle space), +1 favour;
    # -1 when nobody handed in a batch
    best_builder: int


# --- phase 7 ----------------------------------------------------------------------------------


class BailiffMoved(_Event, tag="bailiff_moved", frozen=True):
    bailiff: int  # the bailiff's new road space (+2 if the provost was farther, else +1)
    provost: int  # the provost's new road space: the bailiff's


class SectionScoringStarted(_Event, tag="section_scoring_started", frozen=True):
    section: Section  # the castle section scored now: 0 dungeon, 1 walls, 2 towers


class SectionScored(_Event, tag="section_scored", frozen=True):
    seat: int  # the player scored (in turn order)
    section: Section  # 0 dungeon, 1 walls, 2 towers
    houses: int  # the player's houses in that section (0: a PP penalty)
    favours: int  # favours won for them (0 for 0 or 1 house)


class SectionClosed(_Event, tag="section_closed", frozen=True):
    section: Section  # the section now scored: 0 dungeon, 1 walls, 2 towers (the cap rises)


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    turn: int  # the number of the turn that ended
    order: list[int]  # turn order of the next turn


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]  # final PP by seat, end bonuses included (the highest PP win)


Event = Union[  # noqa: UP007 - the contract asks for a typing.Union
    TurnOrderDrawn,
    RoadSetUp,
    ResourcesChanged,
    TurnStarted,
    PhaseStarted,
    WorkerPlaced,
    Passed,
    GateMoved,
    TradingPostUsed,
    ProvostMoved,
    JoustResolved,
    StablesResolved,
    InnResolved,
    InnDecided,
    Activated,
    OwnerBonusTaken,
    WorkerReturned,
    SweepEnded,
    TileBuilt,
    TransformationScheduled,
    Transformed,
    FavoursGained,
    FavourTaken,
    FavourLost,
    BatchDelivered,
    CastleDone,
    CastleResolved,
    BailiffMoved,
    SectionScoringStarted,
    SectionScored,
    SectionClosed,
    TurnEnded,
    GameEnded,
]

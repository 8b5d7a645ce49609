"""What happened (tagged union, snake_case tags). Nothing in Caylus is hidden.

Every change of deniers, cubes or PP is a `resources_changed` event with signed amounts, so a
player's holdings are the sum of their `resources_changed` events. Decision events carry
`auto=True` when the single-option rule applied them without asking.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up: the only randomness --------------------------------------------------------


class TurnOrderDrawn(_Event, tag="turn_order_drawn", frozen=True):
    order: list[int]


class RoadSetUp(_Event, tag="road_set_up", frozen=True):
    neutral: list[str]  # neutral tiles on spaces 1..6
    stock: list[str]  # wood, stone and prestige tiles in the stock


class ResourcesChanged(_Event, tag="resources_changed", frozen=True):
    seat: int
    reason: str
    deniers: int = 0
    food: int = 0
    wood: int = 0
    stone: int = 0
    cloth: int = 0
    gold: int = 0
    prestige: int = 0


# --- turn flow --------------------------------------------------------------------------------


class TurnStarted(_Event, tag="turn_started", frozen=True):
    turn: int


class PhaseStarted(_Event, tag="phase_started", frozen=True):
    phase: int


class WorkerPlaced(_Event, tag="worker_placed", frozen=True):
    seat: int
    target: int | str
    cost: int
    auto: bool = False


class Passed(_Event, tag="passed", frozen=True):
    seat: int
    position: int
    auto: bool = False


# --- phase 3 ----------------------------------------------------------------------------------


class GateMoved(_Event, tag="gate_moved", frozen=True):
    seat: int
    target: int | str  # "none": the worker returns
    auto: bool = False


class TradingPostUsed(_Event, tag="trading_post_used", frozen=True):
    seat: int


class ProvostMoved(_Event, tag="provost_moved", frozen=True):
    seat: int
    delta: int
    position: int
    source: Literal["merchants_guild", "bid"]
    auto: bool = False


class JoustResolved(_Event, tag="joust_resolved", frozen=True):
    seat: int
    accepted: bool
    auto: bool = False


class StablesResolved(_Event, tag="stables_resolved", frozen=True):
    circles: list[int]
    order: list[int]


class InnResolved(_Event, tag="inn_resolved", frozen=True):
    moved: int  # seat moved from left to right
    returned: int  # seat whose right-circle worker returned, or -1


class InnDecided(_Event, tag="inn_decided", frozen=True):
    seat: int
    stay: bool
    auto: bool = False


# --- phase 5 ----------------------------------------------------------------------------------


Action = Literal["produce", "sell", "buy", "build", "build_prestige", "transform", "exchange"]


class Activated(_Event, tag="activated", frozen=True):
    """A road building's activation resolved by its worker's player."""

    seat: int
    space: int
    tile: str
    action: Action
    choice: str  # the option taken, "none" when declined
    auto: bool = False


class OwnerBonusTaken(_Event, tag="owner_bonus_taken", frozen=True):
    seat: int
    space: int
    cube: str
    auto: bool = False


class WorkerReturned(_Event, tag="worker_returned", frozen=True):
    seat: int
    space: int


class SweepEnded(_Event, tag="sweep_ended", frozen=True):
    returned: list[int]  # road spaces beyond the provost whose workers return unused


class TileBuilt(_Event, tag="tile_built", frozen=True):
    seat: int
    space: int
    tile: str
    replaced: str = ""  # a prestige tile replaces a residence


class TransformationScheduled(_Event, tag="transformation_scheduled", frozen=True):
    seat: int
    space: int


class Transformed(_Event, tag="transformed", frozen=True):
    seat: int
    space: int
    removed: str  # the tile replaced by the residence


# --- favours ---------------------------------------------------------------------------


class FavoursGained(_Event, tag="favours_gained", frozen=True):
    seat: int
    count: int
    reason: str


class FavourTaken(_Event, tag="favour_taken", frozen=True):
    seat: int
    row: str
    marker: int  # after advancing
    column: int  # 0 = effect declined
    auto: bool = False


class FavourLost(_Event, tag="favour_lost", frozen=True):
    seat: int


# --- phase 6 ----------------------------------------------------------------------------------


class BatchDelivered(_Event, tag="batch_delivered", frozen=True):
    seat: int
    batch: str
    section: int
    auto: bool = False


class CastleDone(_Event, tag="castle_done", frozen=True):
    seat: int
    batches: int
    auto: bool = False


class CastleResolved(_Event, tag="castle_resolved", frozen=True):
    best_builder: int  # -1 when nobody handed in a batch


# --- phase 7 ----------------------------------------------------------------------------------


class BailiffMoved(_Event, tag="bailiff_moved", frozen=True):
    bailiff: int
    provost: int


class SectionScoringStarted(_Event, tag="section_scoring_started", frozen=True):
    section: int


class SectionScored(_Event, tag="section_scored", frozen=True):
    seat: int
    section: int
    houses: int
    favours: int


class SectionClosed(_Event, tag="section_closed", frozen=True):
    section: int


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    turn: int
    order: list[int]  # turn order of the next turn


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]


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

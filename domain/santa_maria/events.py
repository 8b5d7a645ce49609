"""What happened (tagged union). Every random outcome is a field of an event; fields holding
hidden stack orders are blanked by `view.redact` while the game runs."""

from __future__ import annotations

from typing import Union

import msgspec

from domain.santa_maria.state import DecisionKind


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up ------------------------------------------------------------------------------


class StartPlayerChosen(_Event, tag="start_player_chosen", frozen=True):
    seat: int


class StartingShipsPlaced(_Event, tag="starting_ships_placed", frozen=True):
    docks: list[str]  # tiles at docks 1..4


class MonkTilesDrawn(_Event, tag="monk_tiles_drawn", frozen=True):
    scholars: list[str]
    bishops: list[str]


class ShipStackShuffled(_Event, tag="ship_stack_shuffled", frozen=True):
    count: int
    order: list[str] | None  # HIDDEN: top first


class ExpansionStacksShuffled(_Event, tag="expansion_stacks_shuffled", frozen=True):
    doubles_count: int
    triples_count: int
    doubles: list[str] | None  # HIDDEN
    triples: list[str] | None  # HIDDEN


class DisplayDealt(_Event, tag="display_dealt", frozen=True):
    year: int
    doubles: list[str]
    triples: list[str]
    discarded: list[str] = []  # last year's leftovers leaving the game (R8)


class WhiteDiceRolled(_Event, tag="white_dice_rolled", frozen=True):
    year: int
    faces: list[int]  # the pool, sorted


class ColoniesDealt(_Event, tag="colonies_dealt", frozen=True):
    shuffled: list[str]  # the 4 boards in shuffled order
    boards: list[str]  # by seat


class DraftStarted(_Event, tag="draft_started", frozen=True):
    order: list[int]


class ColonyChosen(_Event, tag="colony_chosen", frozen=True):
    seat: int
    board: str


class StartingGoodsGiven(_Event, tag="starting_goods_given", frozen=True):
    wood: list[int]  # by seat
    coins: list[int]  # by seat


class BlueDiceRolled(_Event, tag="blue_dice_rolled", frozen=True):
    year: int
    rolls: list[list[int]]  # [seat, index, value], in rolling order
    new: bool = False  # set-up: each die leaves the supply


class YearStarted(_Event, tag="year_started", frozen=True):
    year: int
    start_player: int


# --- free actions ------------------------------------------------------------------------


class ResourcesSold(_Event, tag="resources_sold", frozen=True):
    seat: int
    resource: str
    count: int
    coins: int


class ResourcesBought(_Event, tag="resources_bought", frozen=True):
    seat: int
    resource: str
    count: int
    coins: int


class AlchemyUsed(_Event, tag="alchemy_used", frozen=True):
    seat: int
    pay: str
    gain: str


# --- main actions -----------------------------------------------------------


class TilePlaced(_Event, tag="tile_placed", frozen=True):
    seat: int
    tile: str
    cells: list[list[int]]
    paid: dict[str, int]


class BuildingActivated(_Event, tag="building_activated", frozen=True):
    seat: int
    row: int
    col: int
    price: int
    effects: list[str]  # atomic effects queued


class DieActivated(_Event, tag="die_activated", frozen=True):
    seat: int
    die: str
    face: int  # the value before the change
    index: int  # blue die index (0 for white)
    value: int
    cost: int
    cells: list[list[int]]  # the listed buildings, in line order
    effects: list[str]


class Retired(_Event, tag="retired", frozen=True):
    seat: int
    space: str
    position: int  # 1 = first to retire this year
    effects: list[str]  # the space's action, then "INCOME" (shipping income)


class ShippingIncomeQueued(_Event, tag="shipping_income_queued", frozen=True):
    """The shipping income step begins: one income effect per tile in port, by dock then
    arrival (R18)."""

    seat: int
    effects: list[str]


# --- resolution --------------------------------------------------------------------------


class EffectStarted(_Event, tag="effect_started", frozen=True):
    seat: int
    effect: str


class ResourceGained(_Event, tag="resource_gained", frozen=True):
    seat: int
    resource: str
    kept: int
    sold: int  # overflow sold at once (R14)
    coins: int


class CoinsGained(_Event, tag="coins_gained", frozen=True):
    seat: int
    amount: int


class PointsScored(_Event, tag="points_scored", frozen=True):
    seat: int
    amount: int
    reason: str


class DecisionOpened(_Event, tag="decision_opened", frozen=True):
    seat: int
    decision: DecisionKind
    building: str = ""
    max_extra: int = 0


class Declined(_Event, tag="declined", frozen=True):
    seat: int
    decision: DecisionKind


class Traded(_Event, tag="traded", frozen=True):
    seat: int
    pay: str
    gain: str
    amount: int


class Shipped(_Event, tag="shipped", frozen=True):
    seat: int
    dock: int
    tile: str
    paid: dict[str, int]


class DockRefilled(_Event, tag="dock_refilled", frozen=True):
    dock: int
    tile: str | None  # None: the stack is empty and the dock stays empty (R26)


class ReligionAdvanced(_Event, tag="religion_advanced", frozen=True):
    seat: int
    extra: int
    grain: int
    gold: int
    from_space: int
    to_space: int
    lost_steps: int  # each scores 1 point (R19)
    symbols: list[int]  # monk symbols entered, in track order


class ConquistadorAdvanced(_Event, tag="conquistador_advanced", frozen=True):
    seat: int
    extra: int
    coins: int
    from_space: int
    to_space: int
    gold_spaces: list[int]


class BlueDieUnlocked(_Event, tag="blue_die_unlocked", frozen=True):
    seat: int
    index: int
    value: int
    locked: bool  # during the retire turn: usable next year only (R29)


class MonkRecruited(_Event, tag="monk_recruited", frozen=True):
    seat: int
    space: str
    payments: list[list[int]]  # [to_seat, coins]


class RoadPlaced(_Event, tag="road_placed", frozen=True):
    seat: int
    row: int
    col: int


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    seat: int
    next: int  # -1 when the year ends


# --- end of year and game ----------------------------------------------------------


class ConquistadorScored(_Event, tag="conquistador_scored", frozen=True):
    year: int
    order: list[int]  # seats, rank 1 first
    points: list[int]  # by seat


class YearCleanedUp(_Event, tag="year_cleaned_up", frozen=True):
    year: int


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]
    # The remaining stack orders, revealed at the end.
    ship_stack: list[str]
    doubles: list[str]
    triples: list[str]


Event = Union[  # noqa: UP007 - the contract names a typing.Union
    StartPlayerChosen,
    StartingShipsPlaced,
    MonkTilesDrawn,
    ShipStackShuffled,
    ExpansionStacksShuffled,
    DisplayDealt,
    WhiteDiceRolled,
    ColoniesDealt,
    DraftStarted,
    ColonyChosen,
    StartingGoodsGiven,
    BlueDiceRolled,
    YearStarted,
    ResourcesSold,
    ResourcesBought,
    AlchemyUsed,
    TilePlaced,
    BuildingActivated,
    DieActivated,
    Retired,
    ShippingIncomeQueued,
    EffectStarted,
    ResourceGained,
    CoinsGained,
    PointsScored,
    DecisionOpened,
    Declined,
    Traded,
    Shipped,
    DockRefilled,
    ReligionAdvanced,
    ConquistadorAdvanced,
    BlueDieUnlocked,
    MonkRecruited,
    RoadPlaced,
    TurnEnded,
    ConquistadorScored,
    YearCleanedUp,
    GameEnded,
]

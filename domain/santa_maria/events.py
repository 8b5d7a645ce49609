"""What happened (tagged union). Every random outcome is a field of an event; fields holding
hidden stack orders are blanked by `view.redact` while the game runs."""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from domain.enums import one_of
from domain.santa_maria import data
from domain.santa_maria.state import (
    BishopId,
    BoardName,
    BuildingAtom,
    CostKind,
    DecisionKind,
    DieColour,
    Dock,
    DoubleTile,
    Effect,
    MonkSpace,
    Resource,
    RetireSpace,
    ScholarId,
    ShipId,
    StandardShip,
    TileId,
    TripleTile,
)


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up ------------------------------------------------------------------------------


class StartPlayerChosen(_Event, tag="start_player_chosen", frozen=True):
    seat: int  # the start player of year 1


class StartingShipsPlaced(_Event, tag="starting_ships_placed", frozen=True):
    # The starting ship tiles at docks 1..4, in dock order.
    docks: list[Annotated[str, one_of(data.STARTING_SHIPS)]]


class MonkTilesDrawn(_Event, tag="monk_tiles_drawn", frozen=True):
    scholars: list[ScholarId]  # the scholars over scholar-1..3, in that order
    bishops: list[BishopId]  # the bishops over bishop-1..3, in that order


class ShipStackShuffled(_Event, tag="ship_stack_shuffled", frozen=True):
    count: int  # ship tiles in the stack
    # HIDDEN: the stack order, top first; None for every seat while the game runs.
    order: list[StandardShip] | None


class ExpansionStacksShuffled(_Event, tag="expansion_stacks_shuffled", frozen=True):
    doubles_count: int  # double tiles in their stack
    triples_count: int  # triple tiles in their stack
    # HIDDEN: the double stack, top first; None for every seat while the game runs.
    doubles: list[DoubleTile] | None
    # HIDDEN: the triple stack, top first; None for every seat while the game runs.
    triples: list[TripleTile] | None


class DisplayDealt(_Event, tag="display_dealt", frozen=True):
    year: int  # the year the display is for
    doubles: list[DoubleTile]  # the double tiles dealt from the top of their stack
    triples: list[TripleTile]  # the triple tiles dealt from the top of their stack
    discarded: list[TileId] = []  # last year's leftovers leaving the game (R8)


class WhiteDiceRolled(_Event, tag="white_dice_rolled", frozen=True):
    year: int  # the year the dice are rolled for
    faces: list[int]  # the pool: 3 dice per player, faces (1..6) ascending


class ColoniesDealt(_Event, tag="colonies_dealt", frozen=True):
    shuffled: list[BoardName]  # the 4 boards in shuffled order
    boards: list[BoardName]  # the board dealt to each seat, by seat


class DraftStarted(_Event, tag="draft_started", frozen=True):
    order: list[int]  # seats in choosing order (counter-clockwise, the start player last)


class ColonyChosen(_Event, tag="colony_chosen", frozen=True):
    seat: int  # the seat choosing
    board: BoardName  # the colony board it takes


class StartingGoodsGiven(_Event, tag="starting_goods_given", frozen=True):
    wood: list[int]  # wood gained, by seat (2 each)
    coins: list[int]  # coins gained, by seat (3, 4, 5, 6 by turn position from the start player)


class BlueDiceRolled(_Event, tag="blue_dice_rolled", frozen=True):
    year: int  # the year the dice are rolled for
    # [seat, index, value], in rolling order: the seat's blue die index (1..3) shows value.
    rolls: list[list[int]]
    # True at set-up: each die leaves the supply as the seat's die 1; false: owned dice re-rolled.
    new: bool = False


class YearStarted(_Event, tag="year_started", frozen=True):
    year: int  # the year beginning, 1..3
    start_player: int  # the seat taking its first turn


# --- free actions ------------------------------------------------------------------------


class ResourcesSold(_Event, tag="resources_sold", frozen=True):
    seat: int  # the seller
    resource: Resource  # the resource sold
    count: int  # how many
    coins: int  # coins received in all


class ResourcesBought(_Event, tag="resources_bought", frozen=True):
    seat: int  # the buyer
    resource: Annotated[str, one_of(data.BUY_PRICE)]  # the resource bought
    count: int  # how many
    coins: int  # coins paid in all


class AlchemyUsed(_Event, tag="alchemy_used", frozen=True):
    seat: int  # the player with SC10
    pay: CostKind  # the resource paid (its gain follows as resource_gained)
    gain: CostKind  # the resource gained


# --- main actions -----------------------------------------------------------


class TilePlaced(_Event, tag="tile_placed", frozen=True):
    seat: int  # the expanding player
    tile: TileId  # the tile taken from the display
    cells: list[list[int]]  # [row, col] each tile square went on, in square order (a, b[, c])
    # What was paid, keyed by wood, grain or gold (kinds paid nothing are left out).
    paid: dict[Annotated[str, one_of(data.EXPANSION_PAID_KINDS)], int]


class BuildingActivated(_Event, tag="building_activated", frozen=True):
    seat: int  # the activating player
    row: int  # row (1..6) of the building
    col: int  # column (1..6) of the building
    price: int  # coins paid onto the building
    effects: list[BuildingAtom]  # atomic effects queued


class DieActivated(_Event, tag="die_activated", frozen=True):
    seat: int  # the activating player
    die: DieColour  # white (a column) or blue (a row)
    face: int  # the value before the change (for white, the face taken from the pool)
    index: int  # blue die index, 1..3 (0 for white)
    value: int  # the value set: the column (white) or row (blue) activated, 1..6
    cost: int  # coins paid to change the die
    # [row, col] of the listed unoccupied buildings, in line order; the die is on the last.
    cells: list[list[int]]
    effects: list[BuildingAtom]  # atomic effects queued, building by building


class Retired(_Event, tag="retired", frozen=True):
    seat: int  # the retiring player
    space: RetireSpace  # the retire space taken
    position: int  # 1 = first to retire this year
    # The space's action, then "INCOME" (shipping income).
    effects: list[Annotated[str, one_of(data.RETIRE_ATOMS)]]


class ShippingIncomeQueued(_Event, tag="shipping_income_queued", frozen=True):
    """The shipping income step begins: one income effect per tile in port, by dock then
    arrival (R18)."""

    seat: int  # the retiring player
    # Dock income per port tile: C3 (dock 1), RL (2), CQ (3), P2 (4), queued next.
    effects: list[Annotated[str, one_of(data.DOCK_INCOME.values())]]


# --- resolution --------------------------------------------------------------------------


class EffectStarted(_Event, tag="effect_started", frozen=True):
    seat: int  # the active player
    effect: Effect  # the atomic effect taken off the queue to resolve


class ResourceGained(_Event, tag="resource_gained", frozen=True):
    seat: int  # the gaining player
    resource: Resource  # the resource gained
    kept: int  # tokens added to storage
    sold: int  # overflow sold at once (R14)
    coins: int  # coins received for the overflow


class CoinsGained(_Event, tag="coins_gained", frozen=True):
    seat: int  # the gaining player
    amount: int  # coins gained


class PointsScored(_Event, tag="points_scored", frozen=True):
    seat: int  # the scoring player
    amount: int  # points scored
    # effect: a building or income effect (P1, P2); mission: a mission station's reward.
    reason: Annotated[str, one_of(data.POINT_REASONS)]


class DecisionOpened(_Event, tag="decision_opened", frozen=True):
    seat: int  # the player who must answer
    decision: DecisionKind  # the decision now pending
    building: Annotated[str, one_of(("", *data.TRADES))] = ""  # trade: TG or TL; else ""
    # Most extra steps allowed: religion 1 (2 with SC07); conquistador 1 (SC08); else 0.
    max_extra: int = 0


class Declined(_Event, tag="declined", frozen=True):
    seat: int  # the declining player
    decision: DecisionKind  # the decision declined


class Traded(_Event, tag="traded", frozen=True):
    seat: int  # the trading player
    pay: Annotated[str, one_of(data.TRADE_PAY)]  # the token handed over (1)
    gain: Annotated[str, one_of(data.TRADE_GAIN)]  # what it was traded for
    amount: int  # coins or points gained


class Shipped(_Event, tag="shipped", frozen=True):
    seat: int  # the shipping player
    dock: Dock  # the dock the tile left; it goes to the same dock of the player's port
    tile: ShipId  # the ship tile
    # What was paid, keyed by resource or coins (SC06); kinds paid nothing are left out.
    paid: dict[Annotated[str, one_of(data.SHIP_PAID_KINDS)], int]


class DockRefilled(_Event, tag="dock_refilled", frozen=True):
    dock: Dock  # the dock refilled
    tile: StandardShip | None  # None: the stack is empty and the dock stays empty (R26)


class ReligionAdvanced(_Event, tag="religion_advanced", frozen=True):
    seat: int  # the advancing player
    extra: int  # extra steps bought (0..2)
    grain: int  # grain paid for extra steps
    gold: int  # gold paid for extra steps in place of grain
    from_space: int  # religion space before the move (0..15)
    to_space: int  # religion space after the move (at most 15)
    lost_steps: int  # each scores 1 point (R19)
    # Monk symbols entered, in track order.
    symbols: list[Annotated[int, one_of(data.MONK_SYMBOLS)]]


class ConquistadorAdvanced(_Event, tag="conquistador_advanced", frozen=True):
    seat: int  # the advancing player
    extra: int  # extra steps bought with the Captain (SC08): 0 or 1
    coins: int  # coins paid for the extra step
    from_space: int  # conquistador space before the move (0..15)
    to_space: int  # conquistador space after the move (at most 15; steps past it are lost)
    # Gold symbols entered, in track order: 1 gold each.
    gold_spaces: list[Annotated[int, one_of(data.GOLD_SYMBOLS)]]


class BlueDieUnlocked(_Event, tag="blue_die_unlocked", frozen=True):
    seat: int  # the unlocking player
    index: int  # the new die's index among the player's blue dice (2 or 3)
    value: int  # its roll, 1..6
    locked: bool  # during the retire turn: usable next year only (R29)


class MonkRecruited(_Event, tag="monk_recruited", frozen=True):
    seat: int  # the recruiting player
    space: MonkSpace  # the monk space the monk goes on
    payments: list[list[int]]  # [to_seat, coins]: 2 coins to each other occupant of the space


class RoadPlaced(_Event, tag="road_placed", frozen=True):
    seat: int  # the player placing the road tile
    row: int  # row (1..6) of the cell
    col: int  # column (1..6) of the cell


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    seat: int  # the player ending the turn
    next: int  # the next seat to move; -1 when the year ends


# --- end of year and game ----------------------------------------------------------


class ConquistadorScored(_Event, tag="conquistador_scored", frozen=True):
    year: int  # the year ending
    order: list[int]  # seats, rank 1 first
    points: list[int]  # points scored, by seat


class YearCleanedUp(_Event, tag="year_cleaned_up", frozen=True):
    year: int  # the year ending


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]  # final totals by seat (play points + ships + scholars + bishops)
    # The remaining stack orders, revealed at the end: the ship stack, top first.
    ship_stack: list[StandardShip]
    doubles: list[DoubleTile]  # the double stack left, top first
    triples: list[TripleTile]  # the triple stack left, top first


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

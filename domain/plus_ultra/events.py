"""What happened (tagged union). Every random outcome is a field of an event. Fields holding
hidden data are marked HIDDEN with who may see them; `view.redact` blanks them."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias, Union

import msgspec

from domain.enums import one_of
from domain.plus_ultra import data as D
from domain.plus_ultra.commands import ActionNumber, Character, CommonActionId, Estate, Params

NewWorldTile: TypeAlias = Annotated[str, one_of(D.NEW_WORLD_TILES)]
GoodsTile: TypeAlias = Annotated[str, one_of(D.GOODS_TILES)]


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up ------------------------------------------------------------------------------


class PeerTrackSet(_Event, tag="peer_track_set", frozen=True):
    order: list[int]  # the seats on the initial peer track, position 1 first


class NewWorldShuffled(_Event, tag="new_world_shuffled", frozen=True):
    count: int  # tiles in the shuffled stack (40)
    # HIDDEN from everyone (None while the game runs): the stack, top first
    stack: list[NewWorldTile] | None


class EstatesShuffled(_Event, tag="estates_shuffled", frozen=True):
    # HIDDEN from everyone (None while the game runs): the 6 in play, top first
    stack: list[Estate] | None
    # HIDDEN from everyone (None while the game runs): the 4 set aside, out of the game
    unused: list[Estate] | None


class NewWorldDealt(_Event, tag="new_world_dealt", frozen=True):
    rows: int  # the top `rows` tiles go face down into exploration rows 1..rows


class TileTurnedUp(_Event, tag="tile_turned_up", frozen=True):
    row: int  # the exploration row turned face up (row 1, at set-up)
    tile: NewWorldTile  # a colony moves at once to the first free colony space (R15)


# --- start of turn ---------------------------------------------------------------------


class TurnStarted(_Event, tag="turn_started", frozen=True):
    turn: int  # the turn starting, 1 to 7
    acting: list[int]  # the turn's acting order: the seats as on the peer track now, 1st first


class ExplorationRefilled(_Event, tag="exploration_refilled", frozen=True):
    row: int  # the empty exploration row filled (S1), top first
    tile: NewWorldTile  # drawn face up; a colony moves to the first free colony space


class ReactivationAnswered(_Event, tag="reactivation_answered", frozen=True):
    seat: int  # the seat asked (all its tercios tired)
    accept: bool  # it paid 1 ducat and its tired tercios became active


class WarDiceRolled(_Event, tag="war_dice_rolled", frozen=True):
    dice: list[int]  # the three dice, 1 to 6 each, as rolled
    level: int  # their median: the war level, tercios needed to win the war this turn


class CharactersShuffled(_Event, tag="characters_shuffled", frozen=True):
    # HIDDEN from everyone (None while the game runs); order[0] is set aside, the rest offered
    order: list[Character] | None


class CharacterPicked(_Event, tag="character_picked", frozen=True):
    seat: int  # the seat that picked
    character: Character | None  # HIDDEN: the picker only (others: None), until the reveal
    automatic: bool = False  # the only card offered, taken without asking


class CharactersRevealed(_Event, tag="characters_revealed", frozen=True):
    picks: list[list[Character]]  # per seat, its picks in pick order


class SecretaryBonus(_Event, tag="secretary_bonus", frozen=True):
    seat: int  # the Secretary of State's holder (no other seat holds the King)
    gp: int  # GP gained (2)


class ViceroyIncome(_Event, tag="viceroy_income", frozen=True):
    seat: int  # the Viceroy's holder
    ducats: int  # ducats gained: 1 per colony holding at least one of its houses


class PeerIncome(_Event, tag="peer_income", frozen=True):
    ducats: list[int]  # per seat, ducats for its acting position (3rd: 1, 4th: 2)
    gp: list[int]  # per seat, GP for its acting position (turn 5: 1st 1; turns 6, 7: 1st 2, 2nd 1)


class BullAnswered(_Event, tag="bull_answered", frozen=True):
    seat: int  # the seat asked
    accept: bool  # it paid 3 ducats for a bull from the supply
    cardinal: int | None = None  # the Cardinal's holder paid 1 ducat for it


class BlueColonyPlaced(_Event, tag="blue_colony_placed", frozen=True):
    tile: Annotated[str, one_of(D.BLUE_COLONY_TILES)]  # the blue colony placed (S7)
    space: int  # the colony space it takes, the first free one


# --- action phase ----------------------------------------------------------------


class CommitmentsOpened(_Event, tag="commitments_opened", frozen=True):
    asked: list[int]  # the seats asked to commit (those with an active tercio), in acting order


class TercioCommitted(_Event, tag="tercio_committed", frozen=True):
    seat: int  # the seat that committed
    count: int | None  # HIDDEN: the committer only (others: None), until the reveal


class WarPlaced(_Event, tag="war_placed", frozen=True):
    counts: list[int]  # per seat, the tercios it committed (every count revealed now)
    placed: list[int]  # the seat of the tercio on each war space 1..k, placed in rotation (R33)
    returned: list[int]  # per seat, tercios back tired at once


class CharacterActionTaken(_Event, tag="character_action_taken", frozen=True):
    seat: int  # the seat acting
    character: Character  # the character whose action it is
    action: ActionNumber  # the card's action 1 or 2
    params: Params  # the action's parameters
    bull: bool = False  # an extra action with the round's character, paid with a bull


class CharacterPassed(_Event, tag="character_passed", frozen=True):
    seat: int  # the seat passing
    character: Character  # the character used for no effect (R38)
    automatic: bool = False  # the seat's only legal command, applied without asking


class CommonActionTaken(_Event, tag="common_action_taken", frozen=True):
    seat: int  # the seat acting
    action: CommonActionId  # the common action, taken for the rest of the turn
    params: Params  # the action's parameters
    bull: bool = False  # paid with a bull: an extra action, outside the allowance


class TileExplored(_Event, tag="tile_explored", frozen=True):
    seat: int  # the Conquistador's holder
    row: int  # the exploration row explored
    # the tile revealed: goods give 2 GP, natives ask how to capture, a colony moves to a space
    tile: NewWorldTile
    from_stack: bool  # drawn from the stack into the empty row (else a face-down tile turned up)


class EstateTaken(_Event, tag="estate_taken", frozen=True):
    seat: int  # the buyer (buy_estate, or Secretary of State action 2)
    estate: Estate | None  # HIDDEN: the buyer only (others: None); the estate stack's top


class EstateDiscarded(_Event, tag="estate_discarded", frozen=True):
    seat: int  # the seat discarding
    estate: Estate  # the estate, now public and out of the game; its effect applies once


class NativesResolved(_Event, tag="natives_resolved", frozen=True):
    seat: int  # the seat that found the natives
    # captured with a bull, or by paying 1 ducat and tiring an active tercio; decline: the tile
    # stays face up
    method: Literal["bull", "pay", "decline"]
    automatic: bool = False  # it could capture neither way: declined without asking


class ColonyResolved(_Event, tag="colony_resolved", frozen=True):
    seat: int  # the seat that found the colony
    place_house: bool  # it paid 2 ducats and put a house from stock in the colony


class LevyResolved(_Event, tag="levy_resolved", frozen=True):
    seat: int  # a seat levied by the King
    pay: bool  # it paid 1 ducat (false: lost 1 GP)
    automatic: bool = False  # it had no ducat: lost 1 GP without being asked (R27)


class RaidResolved(_Event, tag="raid_resolved", frozen=True):
    seat: int  # a seat with a house in the raided colony
    # it tired an active tercio or paid 1 ducat; none: it could do neither
    choice: Literal["tire", "pay", "none"]
    automatic: bool = False  # it could not do both: applied without asking


class RoundEnded(_Event, tag="round_ended", frozen=True):
    seat: int  # the seat whose own round ended
    automatic: bool = False  # nothing was left to do: ended without asking


# --- end of turn -----------------------------------------------------------------------


class WarResolved(_Event, tag="war_resolved", frozen=True):
    won: bool  # the war track was full (as many tercios as the war level)
    gp: list[int]  # per seat, including the Constable's passive


class NativesAttacked(_Event, tag="natives_attacked", frozen=True):
    row: int  # the row of the face-up natives and of the colony attacked
    seat: int  # owner of the last-built house, back to his stock


class GoodShipped(_Event, tag="good_shipped", frozen=True):
    row: int  # the exploration row the good leaves (colony space `row` holds a colony)
    tile: GoodsTile  # the goods tile shipped
    to: Literal["market", "surplus"]  # the next Market space, or the Surplus top when full


class CrownHoarded(_Event, tag="crown_hoarded", frozen=True):
    set_aside: Character  # the character set aside this turn, now public
    leftovers: list[Character]  # the characters nobody picked, now public
    # Market goods of the set-aside character's icon: out of the game, +1 Crown ducat each
    removed: list[GoodsTile]


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    turn: int  # the turn ended, 1 to 7 (after 7: the final scoring)


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]  # per seat, the final total GP
    ranks: list[int]  # per seat, 1 = the winner (ties broken by the final peer track)
    positions: list[int]  # final peer position per seat (tie-break)
    # in_game_gp, totals, positions: per seat; components: per seat, GP by scoring component
    details: dict[Annotated[str, one_of(D.RESULT_DETAILS)], Any]


Event = Union[  # noqa: UP007 (a named tagged union)
    PeerTrackSet,
    NewWorldShuffled,
    EstatesShuffled,
    NewWorldDealt,
    TileTurnedUp,
    TurnStarted,
    ExplorationRefilled,
    ReactivationAnswered,
    WarDiceRolled,
    CharactersShuffled,
    CharacterPicked,
    CharactersRevealed,
    SecretaryBonus,
    ViceroyIncome,
    PeerIncome,
    BullAnswered,
    BlueColonyPlaced,
    CommitmentsOpened,
    TercioCommitted,
    WarPlaced,
    CharacterActionTaken,
    CharacterPassed,
    CommonActionTaken,
    TileExplored,
    EstateTaken,
    EstateDiscarded,
    NativesResolved,
    ColonyResolved,
    LevyResolved,
    RaidResolved,
    RoundEnded,
    WarResolved,
    NativesAttacked,
    GoodShipped,
    CrownHoarded,
    TurnEnded,
    GameEnded,
]

"""What happened (tagged union). Every random outcome is a field of an event. Fields holding
hidden data are marked HIDDEN with who may see them; `view.redact` blanks them."""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from domain.plus_ultra.commands import Params


class _Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    pass


# --- set-up ------------------------------------------------------------------------------


class PeerTrackSet(_Event, tag="peer_track_set", frozen=True):
    order: list[int]


class NewWorldShuffled(_Event, tag="new_world_shuffled", frozen=True):
    count: int
    stack: list[str] | None  # HIDDEN from everyone: top first


class EstatesShuffled(_Event, tag="estates_shuffled", frozen=True):
    stack: list[str] | None  # HIDDEN from everyone: the 6 in play, top first
    unused: list[str] | None  # HIDDEN from everyone


class NewWorldDealt(_Event, tag="new_world_dealt", frozen=True):
    rows: int  # the top `rows` tiles go face down into exploration rows 1..rows


class TileTurnedUp(_Event, tag="tile_turned_up", frozen=True):
    row: int
    tile: str  # a colony moves at once to the first free colony space (R15)


# --- start of turn ---------------------------------------------------------------------


class TurnStarted(_Event, tag="turn_started", frozen=True):
    turn: int
    acting: list[int]


class ExplorationRefilled(_Event, tag="exploration_refilled", frozen=True):
    row: int
    tile: str  # drawn face up; a colony moves to the first free colony space


class ReactivationAnswered(_Event, tag="reactivation_answered", frozen=True):
    seat: int
    accept: bool


class WarDiceRolled(_Event, tag="war_dice_rolled", frozen=True):
    dice: list[int]
    level: int


class CharactersShuffled(_Event, tag="characters_shuffled", frozen=True):
    order: list[str] | None  # HIDDEN from everyone; order[0] is set aside


class CharacterPicked(_Event, tag="character_picked", frozen=True):
    seat: int
    character: str | None  # HIDDEN: the picker only, until the reveal
    automatic: bool = False


class CharactersRevealed(_Event, tag="characters_revealed", frozen=True):
    picks: list[list[str]]  # per seat


class SecretaryBonus(_Event, tag="secretary_bonus", frozen=True):
    seat: int
    gp: int


class ViceroyIncome(_Event, tag="viceroy_income", frozen=True):
    seat: int
    ducats: int


class PeerIncome(_Event, tag="peer_income", frozen=True):
    ducats: list[int]  # per seat
    gp: list[int]  # per seat


class BullAnswered(_Event, tag="bull_answered", frozen=True):
    seat: int
    accept: bool
    cardinal: int | None = None  # the Cardinal's holder paid 1 ducat for it


class BlueColonyPlaced(_Event, tag="blue_colony_placed", frozen=True):
    tile: str
    space: int


# --- action phase ----------------------------------------------------------------


class CommitmentsOpened(_Event, tag="commitments_opened", frozen=True):
    asked: list[int]


class TercioCommitted(_Event, tag="tercio_committed", frozen=True):
    seat: int
    count: int | None  # HIDDEN: the committer only, until the reveal


class WarPlaced(_Event, tag="war_placed", frozen=True):
    counts: list[int]  # per seat
    placed: list[int]  # seats on war spaces 1..k
    returned: list[int]  # per seat, tercios back tired at once


class CharacterActionTaken(_Event, tag="character_action_taken", frozen=True):
    seat: int
    character: str
    action: int
    params: Params
    bull: bool = False


class CharacterPassed(_Event, tag="character_passed", frozen=True):
    seat: int
    character: str
    automatic: bool = False


class CommonActionTaken(_Event, tag="common_action_taken", frozen=True):
    seat: int
    action: str
    params: Params
    bull: bool = False


class TileExplored(_Event, tag="tile_explored", frozen=True):
    seat: int
    row: int
    tile: str
    from_stack: bool


class EstateTaken(_Event, tag="estate_taken", frozen=True):
    seat: int
    estate: str | None  # HIDDEN: the buyer only


class EstateDiscarded(_Event, tag="estate_discarded", frozen=True):
    seat: int
    estate: str


class NativesResolved(_Event, tag="natives_resolved", frozen=True):
    seat: int
    method: Literal["bull", "pay", "decline"]
    automatic: bool = False


class ColonyResolved(_Event, tag="colony_resolved", frozen=True):
    seat: int
    place_house: bool


class LevyResolved(_Event, tag="levy_resolved", frozen=True):
    seat: int
    pay: bool
    automatic: bool = False


class RaidResolved(_Event, tag="raid_resolved", frozen=True):
    seat: int
    choice: Literal["tire", "pay", "none"]
    automatic: bool = False


class RoundEnded(_Event, tag="round_ended", frozen=True):
    seat: int
    automatic: bool = False


# --- end of turn -----------------------------------------------------------------------


class WarResolved(_Event, tag="war_resolved", frozen=True):
    won: bool
    gp: list[int]  # per seat, including the Constable's passive


class NativesAttacked(_Event, tag="natives_attacked", frozen=True):
    row: int
    seat: int  # owner of the last-built house, back to his stock


class GoodShipped(_Event, tag="good_shipped", frozen=True):
    row: int
    tile: str
    to: Literal["market", "surplus"]


class CrownHoarded(_Event, tag="crown_hoarded", frozen=True):
    set_aside: str
    leftovers: list[str]
    removed: list[str]


class TurnEnded(_Event, tag="turn_ended", frozen=True):
    turn: int


class GameEnded(_Event, tag="game_ended", frozen=True):
    scores: list[int]
    ranks: list[int]
    positions: list[int]  # final peer position per seat (tie-break)
    details: dict[str, Any]


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

"""The decision vocabulary as a tagged union. Commands are frozen (hashable) so the
rules can check a command against the exact list of legal ones."""

from __future__ import annotations

from typing import Annotated, TypeAlias, Union

import msgspec

from domain.enums import one_of
from domain.plus_ultra import data as D

Character: TypeAlias = Annotated[str, one_of(D.CHARACTERS)]
Estate: TypeAlias = Annotated[str, one_of(D.ESTATES)]
CommonActionId: TypeAlias = Annotated[str, one_of(D.COMMON_ACTIONS)]
ActionNumber: TypeAlias = Annotated[int, one_of(D.ACTION_NUMBERS)]


class Params(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True
):
    """Parameters of a character or common action. Only the fields an action names may be
    set; every other one stays None (a command with an extra field is refused)."""

    # exploration row 1..7 (Admiral 1, Viceroy 2; Conquistador 2, Pirate 2: None for no tile)
    row: int | None = None
    # Admiral 1 with a full Market only: Market space 1..4 whose good goes to the Surplus
    market_space: int | None = None
    # Cardinal 1, Merchant 1: the good comes from the Market or from the top of the Surplus
    source: Annotated[str, one_of(D.SOURCES)] | None = None
    church_space: int | None = None  # Cardinal 1: empty church space 1..4 the good goes to
    rose_window: bool | None = None  # Cardinal 1: turn a face-up rose window down for extra GP
    # Merchant 2: ducats paid, for pay - 1 GP
    pay: Annotated[int, one_of(D.MERCHANT_PAYS)] | None = None
    # Constable 1 with the war matched only: the war space whose other player's tercio is swapped
    war_space: int | None = None
    tired: bool | None = None  # Constable 2, fund_tercios: the tercio comes tired (false: active)
    # Pirate 1: the seat whose sea trade drops by 1; None only when no seat has sea trade
    target: int | None = None
    # the item gained: Secretary 1 (any of them) or workshops (rose_window or house)
    item: Annotated[str, one_of(D.ITEMS)] | None = None
    colony: int | None = None  # Viceroy 1, open_mission: colony space 1..7 that gets a house
    # Viceroy 2: capture with a bull, or pay 1 ducat + 1 Crown ducat and tire a tercio
    method: Annotated[str, one_of(D.CAPTURE_METHODS)] | None = None
    # visit_court: positions moved up the peer track, and ducats paid
    steps: Annotated[int, one_of(D.VISIT_COURT_STEPS)] | None = None


NO_PARAMS = Params()


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class ReactivateTercios(_Command, tag="reactivate_tercios", frozen=True):
    accept: bool  # pay 1 ducat to make every tired tercio active (S2); false: keep them tired


class PickCharacter(_Command, tag="pick_character", frozen=True):
    character: Character  # one of the cards offered (the view's `offered`)


class BuyBull(_Command, tag="buy_bull", frozen=True):
    accept: bool  # pay 3 ducats for a bull from the supply (S6); false: buy none


class CommitTercios(_Command, tag="commit_tercios", frozen=True):
    count: int  # active tercios committed to the war in secret, 0 up to all active ones


class CharacterAction(_Command, tag="character_action", frozen=True):
    character: Character  # one of the seat's characters not used yet this turn
    action: ActionNumber  # the card's action 1 or 2
    params: Params = msgspec.field(default_factory=Params)  # the action's parameters, if any


class PassCharacter(_Command, tag="pass_character", frozen=True):
    character: Character  # an unused character of the seat's, used for no effect (R38)


class BullCharacterAction(_Command, tag="bull_character_action", frozen=True):
    action: ActionNumber  # action 1 or 2 of the character used in this round, paid with a bull
    params: Params = msgspec.field(default_factory=Params)  # the action's parameters, if any


class CommonAction(_Command, tag="common_action", frozen=True):
    action: CommonActionId  # a common action nobody has taken yet this turn
    params: Params = msgspec.field(default_factory=Params)  # the action's parameters, if any
    use_bull: bool = False  # pay with a bull: an extra action, outside the allowance (R22)


class DiscardEstate(_Command, tag="discard_estate", frozen=True):
    estate: Estate  # a held estate whose one-shot effect applies in full now


class EndRound(_Command, tag="end_round", frozen=True):
    pass


class ResolveNatives(_Command, tag="resolve_natives", frozen=True):
    # capture with a bull, or pay 1 ducat and tire an active tercio; decline: it stays face up
    method: Annotated[str, one_of(D.NATIVES_CHOICES)]


class ResolveColony(_Command, tag="resolve_colony", frozen=True):
    place_house: bool  # pay 2 ducats to put a house from stock in the colony just found


class LevyResponse(_Command, tag="levy_response", frozen=True):
    pay: bool  # pay 1 ducat to the King's levy; false: lose 1 GP


class RaidResponse(_Command, tag="raid_response", frozen=True):
    # tire one active tercio, or pay 1 ducat
    choice: Annotated[str, one_of(D.RAID_CHOICES)]


Command = Union[  # noqa: UP007 (a named tagged union)
    ReactivateTercios,
    PickCharacter,
    BuyBull,
    CommitTercios,
    CharacterAction,
    PassCharacter,
    BullCharacterAction,
    CommonAction,
    DiscardEstate,
    EndRound,
    ResolveNatives,
    ResolveColony,
    LevyResponse,
    RaidResponse,
]

"""The decision vocabulary as a tagged union. Commands are frozen (hashable) so the
rules can check a command against the exact list of legal ones."""

from __future__ import annotations

from typing import Union

import msgspec


class Params(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True
):
    """Parameters of a character or common action. Only the fields an action names may be
    set; every other one stays None (a command with an extra field is refused)."""

    row: int | None = None
    market_space: int | None = None
    source: str | None = None  # market | surplus
    church_space: int | None = None
    rose_window: bool | None = None
    pay: int | None = None
    war_space: int | None = None
    tired: bool | None = None
    target: int | None = None
    item: str | None = None  # rose_window | house | magellan
    colony: int | None = None  # colony space 1..7
    method: str | None = None  # bull | pay
    steps: int | None = None


NO_PARAMS = Params()


class _Command(
    msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True
):
    """A decision: a field the command does not have is refused, never dropped."""


class ReactivateTercios(_Command, tag="reactivate_tercios", frozen=True):
    accept: bool


class PickCharacter(_Command, tag="pick_character", frozen=True):
    character: str


class BuyBull(_Command, tag="buy_bull", frozen=True):
    accept: bool


class CommitTercios(_Command, tag="commit_tercios", frozen=True):
    count: int


class CharacterAction(_Command, tag="character_action", frozen=True):
    character: str
    action: int
    params: Params = msgspec.field(default_factory=Params)


class PassCharacter(_Command, tag="pass_character", frozen=True):
    character: str


class BullCharacterAction(_Command, tag="bull_character_action", frozen=True):
    action: int
    params: Params = msgspec.field(default_factory=Params)


class CommonAction(_Command, tag="common_action", frozen=True):
    action: str
    params: Params = msgspec.field(default_factory=Params)
    use_bull: bool = False


class DiscardEstate(_Command, tag="discard_estate", frozen=True):
    estate: str


class EndRound(_Command, tag="end_round", frozen=True):
    pass


class ResolveNatives(_Command, tag="resolve_natives", frozen=True):
    method: str  # bull | pay | decline


class ResolveColony(_Command, tag="resolve_colony", frozen=True):
    place_house: bool


class LevyResponse(_Command, tag="levy_response", frozen=True):
    pay: bool


class RaidResponse(_Command, tag="raid_response", frozen=True):
    choice: str  # tire | pay


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

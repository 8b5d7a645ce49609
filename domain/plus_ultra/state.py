"""The whole game state as plain mutable msgspec Structs (evolve mutates it in place)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.enums import one_of
from domain.plus_ultra.data import COMMON_ACTIONS_PER_TURN, INITIAL_ORDERS


class Options(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    # 1: one common action per turn (R3); 2: one in each own round; a bull buys one more in both
    common_actions_per_turn: Annotated[int, one_of(COMMON_ACTIONS_PER_TURN)] = 1
    # the initial peer track: random, or seats for seat 0 first then by seat number (R41)
    initial_order: Annotated[str, one_of(INITIAL_ORDERS)] = "random"


class Player(msgspec.Struct, kw_only=True):
    ducats: int = 0
    gp: int = 0
    sea_trade: int = 0
    active: int = 0  # tercios in the reserve, active
    tired: int = 0  # tercios in the reserve, tired
    tercio_box: int = 0
    stock: int = 0  # houses in stock
    house_box: int = 0
    rose_up: int = 0
    rose_down: int = 0
    bulls: int = 0
    magellan: int = 0
    estates: list[str] = []  # held, face down (owner only)
    captured: list[str] = []  # captured natives tiles
    characters: list[str] = []  # this turn's picks, in pick order
    used: list[str] = []  # characters used in step 1 this turn
    common_count: int = 0  # common actions taken this turn without a bull
    bull_used: bool = False  # a bull bought an extra action this turn (R22)


class Colony(msgspec.Struct, kw_only=True):
    tile: str
    size: int
    houses: list[int] = []  # seats, in building order; the last is the last-built (R18)


class Pending(msgspec.Struct, kw_only=True, frozen=True):
    """A sub-decision waiting to be settled: natives | colony | levy | raid."""

    kind: str
    seat: int
    row: int = 0  # natives: exploration row; colony: colony space


class State(msgspec.Struct, kw_only=True):
    n: int
    options: Options
    phase: str = (
        "setup"  # setup turn_start reactivate draft bulls commit rounds end_turn scoring over
    )
    turn: int = 0
    peer: list[int] = []  # the live peer track, position 1 first
    acting: list[int] = []  # copy of the peer track taken at the start of the turn (R4)
    players: list[Player] = []
    crown: int = 0
    # New World
    stack: list[str] = []  # top first (hidden)
    exploration: list[str | None] = []  # rows 1..7
    face_up: list[bool] = []  # rows 1..7
    colonies: list[Colony] = []  # colony spaces 1..k
    blue_reserve: list[str] = []
    market: list[str] = []  # spaces 1..k
    surplus: list[str] = []  # top is last
    church: list[str | None] = []  # spaces 1..4
    out: list[str] = []  # tiles out of the game
    # supplies
    bull_supply: int = 0
    bull_total: int = 0
    rose_supply: int = 0
    magellan_supply: int = 0
    magellan_total: int = 0
    magellan_complete: bool = False
    estate_stack: list[str] = []  # top first (hidden)
    estates_unused: list[str] = []  # hidden
    estates_discarded: list[str] = []
    # war
    dice: list[int] = []
    war_level: int = 0
    war: list[int] = []  # seats on war spaces 1..k
    commit_asked: list[int] = []
    commitments: dict[int, int] = {}  # hidden until every asked seat has committed
    # draft
    set_aside: str | None = None  # hidden until E4
    hand: list[str] = []  # cards still offered / leftovers (hidden)
    picks_done: int = 0
    revealed: bool = False  # picks are public (S5 reveal)
    hoarded: bool = False  # set-aside and leftovers are public (E4)
    holder: dict[str, int] = {}  # character -> seat, this turn
    ask_index: int = 0  # S2 / S6: next acting position that may be asked
    # rounds
    round: int = 0
    actor_index: int = 0
    step1_char: str | None = None  # the character used in the current own round
    common_in_round: bool = False
    common_taken: list[str] = []
    pending: list[Pending] = []
    # end
    final: dict[str, Any] | None = None


def working_copy(state: State) -> State:
    """The copy `decide` evolves: new structs for the state and its players, whose lists and
    dicts it shares with `state` (evolve replaces them, never changes them in place)."""
    s = msgspec.structs.replace(state)
    s.players = [msgspec.structs.replace(p) for p in state.players]
    return s


def clone(state: State) -> State:
    """A hand-written deep copy (much faster than pickle for this shape)."""
    s = msgspec.structs.replace(
        state,
        peer=list(state.peer),
        acting=list(state.acting),
        players=[
            msgspec.structs.replace(
                p,
                estates=list(p.estates),
                captured=list(p.captured),
                characters=list(p.characters),
                used=list(p.used),
            )
            for p in state.players
        ],
        stack=list(state.stack),
        exploration=list(state.exploration),
        face_up=list(state.face_up),
        colonies=[Colony(tile=c.tile, size=c.size, houses=list(c.houses)) for c in state.colonies],
        blue_reserve=list(state.blue_reserve),
        market=list(state.market),
        surplus=list(state.surplus),
        church=list(state.church),
        out=list(state.out),
        estate_stack=list(state.estate_stack),
        estates_unused=list(state.estates_unused),
        estates_discarded=list(state.estates_discarded),
        dice=list(state.dice),
        war=list(state.war),
        commit_asked=list(state.commit_asked),
        commitments=dict(state.commitments),
        hand=list(state.hand),
        holder=dict(state.holder),
        common_taken=list(state.common_taken),
        pending=list(state.pending),
        final=None if state.final is None else dict(state.final),
    )
    return s

"""Per-seat and public views, and event redaction: hidden information stops here."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.plus_ultra import events as E
from domain.plus_ultra.rules import awaiting
from domain.plus_ultra.state import Options, State

FACE_DOWN = "face_down"


class PlayerView(msgspec.Struct, kw_only=True):
    seat: int
    peer_position: int
    ducats: int
    gp: int  # in-game GP (held estates are not in it)
    sea_trade: int
    tercios_active: int
    tercios_tired: int
    tercios_at_war: int
    tercios_box: int
    houses_stock: int
    houses_in_colonies: int
    houses_box: int
    rose_windows_up: int
    rose_windows_down: int
    bulls: int
    magellan: int
    captured: list[str]
    estate_count: int
    estates: list[str] | None  # the owner only (everyone once the game is over)
    character_count: int  # characters picked this turn
    characters: list[str] | None  # the owner, or everyone after the reveal
    used: list[str]
    has_committed: bool | None  # during the war commitment: public
    commitment: int | None  # the committer only until the reveal
    common_actions_taken: int
    bull_used: bool


class ColonyView(msgspec.Struct, kw_only=True):
    space: int
    tile: str
    size: int
    houses: list[int]


class PendingView(msgspec.Struct, kw_only=True):
    kind: str
    seat: int
    row: int


class Progress(msgspec.Struct, kw_only=True):
    """Where the turn stands, as the rules count it (public: the seats saw it happen)."""

    ask_index: int  # reactivation, bulls: the next acting position that may be asked
    actor_index: int  # rounds: the acting position of the seat whose round it is
    common_in_round: bool  # ... which took a common action in it already
    revealed: bool  # the characters picked this turn are public
    hoarded: bool  # the set-aside and leftover characters are public
    card_set_aside: bool  # a character was set aside this turn
    cards_offered: int  # characters still in the draft's hand (after it: the leftovers)


class GameView(msgspec.Struct, kw_only=True):
    viewer: int | None
    options: Options
    turn: int
    phase: str
    round: int
    awaiting: list[int]
    peer_track: list[int]
    acting_order: list[int]
    crown: int
    stack_count: int
    exploration: list[str | None]  # "face_down" for a face-down tile
    colonies: list[ColonyView]
    blue_colonies_left: list[str]
    market: list[str]
    surplus: list[str]
    church: list[str | None]
    out_of_game: list[str]
    bull_supply: int
    rose_window_supply: int
    magellan_supply: int
    magellan_complete: bool
    estate_stack_count: int
    estates_discarded: list[str]
    dice: list[int]
    war_level: int
    war: list[int]
    picks_made: int
    offered: list[str] | None  # the cards offered to the viewer while he picks
    set_aside: str | None  # public from E4 of the turn
    leftovers: list[str] | None  # public from E4 of the turn
    common_taken: list[str]
    character_in_round: str | None
    pending: list[PendingView]
    players: list[PlayerView]
    progress: Progress
    # hidden while the game runs, shown once it is over
    stack: list[str] | None = None
    estate_stack: list[str] | None = None
    estates_unused: list[str] | None = None
    result: dict[str, Any] | None = None


def view(st: State, seat: int | None) -> GameView:
    over = st.phase == "over"
    waiting = awaiting(st)
    players = []
    for s, p in enumerate(st.players):
        mine = over or seat == s
        in_colonies = sum(c.houses.count(s) for c in st.colonies)
        committing = st.phase == "commit"
        players.append(
            PlayerView(
                seat=s,
                peer_position=st.peer.index(s) + 1,
                ducats=p.ducats,
                gp=p.gp,
                sea_trade=p.sea_trade,
                tercios_active=p.active,
                tercios_tired=p.tired,
                tercios_at_war=st.war.count(s),
                tercios_box=p.tercio_box,
                houses_stock=p.stock,
                houses_in_colonies=in_colonies,
                houses_box=p.house_box,
                rose_windows_up=p.rose_up,
                rose_windows_down=p.rose_down,
                bulls=p.bulls,
                magellan=p.magellan,
                captured=list(p.captured),
                estate_count=len(p.estates),
                estates=list(p.estates) if mine else None,
                character_count=len(p.characters),
                characters=list(p.characters) if (mine or st.revealed) else None,
                used=list(p.used),
                has_committed=(s in st.commitments)
                if committing and s in st.commit_asked
                else None,
                commitment=st.commitments.get(s) if (committing and mine) else None,
                common_actions_taken=p.common_count,
                bull_used=p.bull_used,
            )
        )
    exploration: list[str | None] = [
        (t if (st.face_up[r] or over or t is None) else FACE_DOWN)
        for r, t in enumerate(st.exploration)
    ]
    picking = st.phase == "draft" and seat is not None and seat in waiting
    public_end = st.hoarded or over
    return GameView(
        viewer=seat,
        options=st.options,
        turn=st.turn,
        phase=st.phase,
        round=st.round,
        awaiting=waiting,
        peer_track=list(st.peer),
        acting_order=list(st.acting),
        crown=st.crown,
        stack_count=len(st.stack),
        exploration=exploration,
        colonies=[
            ColonyView(space=i + 1, tile=c.tile, size=c.size, houses=list(c.houses))
            for i, c in enumerate(st.colonies)
        ],
        blue_colonies_left=list(st.blue_reserve),
        market=list(st.market),
        surplus=list(st.surplus),
        church=list(st.church),
        out_of_game=list(st.out),
        bull_supply=st.bull_supply,
        rose_window_supply=st.rose_supply,
        magellan_supply=st.magellan_supply,
        magellan_complete=st.magellan_complete,
        estate_stack_count=len(st.estate_stack),
        estates_discarded=list(st.estates_discarded),
        dice=list(st.dice),
        war_level=st.war_level,
        war=list(st.war),
        picks_made=st.picks_done,
        offered=list(st.hand) if picking else None,
        set_aside=st.set_aside if public_end else None,
        leftovers=list(st.hand) if public_end and st.set_aside is not None else None,
        common_taken=list(st.common_taken),
        character_in_round=st.step1_char,
        pending=[PendingView(kind=p.kind, seat=p.seat, row=p.row) for p in st.pending],
        players=players,
        progress=Progress(
            ask_index=st.ask_index,
            actor_index=st.actor_index,
            common_in_round=st.common_in_round,
            revealed=st.revealed,
            hoarded=st.hoarded,
            card_set_aside=st.set_aside is not None,
            cards_offered=len(st.hand),
        ),
        stack=list(st.stack) if over else None,
        estate_stack=list(st.estate_stack) if over else None,
        estates_unused=list(st.estates_unused) if over else None,
        result=st.final if over else None,
    )


def redact(event: Any, seat: int | None) -> Any:
    """Blank every hidden field for a viewer who may not see it yet."""
    t = type(event)
    if t is E.NewWorldShuffled:
        return msgspec.structs.replace(event, stack=None)
    if t is E.EstatesShuffled:
        return msgspec.structs.replace(event, stack=None, unused=None)
    if t is E.CharactersShuffled:
        return msgspec.structs.replace(event, order=None)
    if t is E.CharacterPicked:
        return event if seat == event.seat else msgspec.structs.replace(event, character=None)
    if t is E.TercioCommitted:
        return event if seat == event.seat else msgspec.structs.replace(event, count=None)
    if t is E.EstateTaken:
        return event if seat == event.seat else msgspec.structs.replace(event, estate=None)
    return event

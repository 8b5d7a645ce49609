"""Per-seat and public views, and event redaction: hidden information stops here."""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias

import msgspec

from domain.enums import one_of
from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.commands import Character, CommonActionId, Estate
from domain.plus_ultra.events import GoodsTile, NewWorldTile
from domain.plus_ultra.rules import awaiting
from domain.plus_ultra.state import Options, State

FACE_DOWN = "face_down"

Estates: TypeAlias = list[Estate]


class PlayerView(msgspec.Struct, kw_only=True):
    """One seat's pieces and progress in the turn."""

    seat: int  # the seat these pieces belong to
    peer_position: int  # position on the live peer track, 1 = first
    ducats: int  # ducats held
    gp: int  # GP earned in play (held estates and the final scoring not in it); may be < 0
    sea_trade: int  # space on the sea trade track, 0 (off the track, no presence) to 15
    tercios_active: int  # tercios in the reserve, active
    tercios_tired: int  # tercios in the reserve, tired
    tercios_at_war: int  # tercios on the war track this turn
    tercios_box: int  # tercios still in the box (not owned yet)
    houses_stock: int  # houses in stock, ready to place
    houses_in_colonies: int  # houses placed in colonies
    houses_box: int  # houses still in the box (not owned yet)
    rose_windows_up: int  # face-up rose windows, each usable on a Church donation
    rose_windows_down: int  # used rose windows, face up again when the Church completes
    bulls: int  # bulls held (each -1 GP at the end)
    magellan: int  # Magellan cards held
    captured: list[Annotated[str, one_of(D.NATIVES_TILES)]]  # natives tiles, in capture order
    estate_count: int  # estates held, face down
    # held estates in purchase order: the owner only (everyone once the game is over), else None
    estates: Estates | None
    character_count: int  # characters picked this turn
    # this turn's picks in pick order: the owner only until the reveal (S5), then everyone
    characters: list[Character] | None
    used: list[Character]  # characters used (acted or passed) this turn, in use order
    # during the war commitment, for each seat asked: whether it has committed; else None
    has_committed: bool | None
    # tercios committed: the committer only, during the commitment; else None
    commitment: int | None
    common_actions_taken: int  # common actions taken this turn without a bull (the allowance)
    bull_used: bool  # a bull already paid for an extra action this turn (one a turn, R22)


class ColonyView(msgspec.Struct, kw_only=True):
    """A colony on the board."""

    space: int  # colony space 1..7, beside the exploration row of the same number
    tile: Annotated[str, one_of(D.COLONY_TILES)]  # the colony's tile
    size: int  # most houses it holds, 2 to 4 (majority GP at the end: 1 to 3)
    houses: list[int]  # the seat of each house, in building order (the last is the last-built)


class PendingView(msgspec.Struct, kw_only=True):
    """A sub-decision to settle before any other command."""

    # natives, colony: after exploring; levy: King action 2; raid: Pirate action 2
    kind: Annotated[str, one_of(D.PENDING_KINDS)]
    seat: int  # the seat that must settle it
    # natives, raid: the exploration row; colony: the colony space; levy: 0
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
    """The game as one seat (or a spectator) may see it."""

    viewer: int | None  # the seat this view is for; None: a spectator
    options: Options  # the game's options
    turn: int  # 1 to 7; 0 during the set-up
    # the step awaiting decisions: reactivate, draft, bulls, commit or rounds; over once the
    # game has ended (the engine passes through the other phases without stopping)
    phase: Annotated[str, one_of(D.PHASES)]
    round: int  # round 1 or 2 of the action phase; 0 outside the rounds
    awaiting: list[int]  # the seats asked to decide now (several during the commitment)
    peer_track: list[int]  # the seats on the live peer track, position 1 first
    acting_order: list[int]  # the seats in this turn's acting order (the track at its start)
    crown: int  # ducats in the Crown Wealth, 0 to 6
    stack_count: int  # New World tiles left in the stack
    # rows 1..7: a tile, "face_down" for a face-down tile (all shown once over), None: empty
    exploration: list[Annotated[str, one_of([*D.NEW_WORLD_TILES, FACE_DOWN])] | None]
    colonies: list[ColonyView]  # colony spaces 1..k in order, filled with no gap
    # blue colonies not placed yet, the next first (turns 2 and 5, S7)
    blue_colonies_left: list[Annotated[str, one_of(D.BLUE_COLONY_TILES)]]
    market: list[GoodsTile]  # Market spaces 1..k with no gap, space 1 (the oldest) first
    surplus: list[GoodsTile]  # the Surplus, bottom first: the last is the top
    church: list[GoodsTile | None]  # church spaces 1..4: the good donated, None: empty
    out_of_game: list[GoodsTile]  # goods sold, raided, hoarded or cleared from the Church
    bull_supply: int  # bulls in the supply
    rose_window_supply: int  # rose windows in the supply
    magellan_supply: int  # Magellan cards in the supply
    # the last Magellan card was taken: each held card paid 3 GP, and none scores any more
    magellan_complete: bool
    estate_stack_count: int  # estates left in the face-down estate stack
    estates_discarded: Estates  # estates discarded for their effect, in order (out of the game)
    dice: list[int]  # this turn's three war dice (S3), 1 to 6 each; empty before the roll
    war_level: int  # the median die: tercios needed to win the war; 0 before the roll
    war: list[int]  # the seat of the tercio on each war space 1..k
    picks_made: int  # characters picked in this turn's draft so far (2 per seat in all)
    # the cards offered to the viewer while he picks, else None
    offered: list[Character] | None
    # the character set aside this turn: public from E4 to the turn's end (the crown_hoarded
    # event names it), else None
    set_aside: Character | None
    # the characters nobody picked this turn: public from E4 to the turn's end (the
    # crown_hoarded event names them), else None
    leftovers: list[Character] | None
    common_taken: list[CommonActionId]  # common actions taken this turn (by anyone), in order
    # the character the seat whose round it is used in this round; None before it does
    character_in_round: Character | None
    pending: list[PendingView]  # sub-decisions to settle, the one asked now first
    players: list[PlayerView]  # by seat
    progress: Progress  # where the turn stands, as the rules count it
    # the New World stack, top first: None while the game runs, shown once it is over
    stack: list[NewWorldTile] | None = None
    # the estate stack, top first: None while the game runs, shown once it is over
    estate_stack: Estates | None = None
    # the 4 estates set aside unused at set-up: None while the game runs, shown once it is over
    estates_unused: Estates | None = None
    # once over (else None): scores, ranks, positions and details as in the game_ended event
    result: dict[Annotated[str, one_of(D.RESULT_KEYS)], Any] | None = None


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

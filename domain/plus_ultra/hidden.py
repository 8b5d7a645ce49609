"""Determinization for Plus Ultra: `sample_hidden` re-draws what a seat cannot see, and
`state_from_view` builds a state from a seat's view alone, drawn the same way.

Hidden from `seat` while the game runs: the New World stack order and the face-down
exploration tiles (one pool of unseen tiles), the estate stack, the unused estates and the
other seats' held estates (one pool of unseen estates), the other seats' character picks, the
cards still offered and the set-aside card until they are public, and the other seats'
tercio commitments until the reveal. Each pool is sorted before it is shuffled, so the sample
depends on the state only through what `view(state, seat)` shows.
"""

from __future__ import annotations

import random

from domain.plus_ultra.data import CHARACTERS, ESTATES, NEW_WORLD_TILES
from domain.plus_ultra.rules import awaiting, initial
from domain.plus_ultra.state import Colony, Pending, Player, State, clone
from domain.plus_ultra.view import FACE_DOWN, GameView, PlayerView


def sample_hidden(st: State, seat: int, rng: random.Random) -> State:
    s = clone(st)
    if s.phase == "over":
        return s
    # New World: the stack and the face-down exploration tiles
    down = [r for r, t in enumerate(s.exploration) if t is not None and not s.face_up[r]]
    tiles = sorted([*s.stack, *(t for r in down for t in [s.exploration[r]] if t is not None)])
    rng.shuffle(tiles)
    for r in down:
        s.exploration[r] = tiles.pop()
    s.stack = tiles
    # Estates: the stack, the unused ones and the other seats' held estates
    others = [q for i, q in enumerate(s.players) if i != seat]
    estates = sorted([*s.estate_stack, *s.estates_unused, *(e for q in others for e in q.estates)])
    rng.shuffle(estates)
    for q in others:
        q.estates = [estates.pop() for _ in q.estates]
    s.estate_stack = [estates.pop() for _ in s.estate_stack]
    s.estates_unused = estates
    # Characters: other seats' picks before the reveal, the offered cards unless the seat is
    # picking now, the set-aside card before the crown is hoarded
    hide_picks = not s.revealed
    hide_hand = not s.hoarded and not (s.phase == "draft" and seat in awaiting(st))
    hide_aside = not s.hoarded and s.set_aside is not None
    cards: list[str] = []
    if hide_picks:
        cards += [c for q in others for c in q.characters]
    if hide_hand:
        cards += s.hand
    if hide_aside and s.set_aside is not None:
        cards.append(s.set_aside)
    if cards:
        cards.sort()
        rng.shuffle(cards)
        if hide_picks:
            for q in others:
                q.characters = [cards.pop() for _ in q.characters]
        if hide_hand:
            s.hand = [cards.pop() for _ in s.hand]
        if hide_aside:
            s.set_aside = cards.pop()
        s.holder = {c: i for i, q in enumerate(s.players) for c in q.characters}
    # War: the other seats' secret commitments, each from what it could have committed
    if s.phase == "commit":
        for other in sorted(s.commitments):
            if other != seat:
                s.commitments[other] = rng.randint(0, s.players[other].active)
    return s


def state_from_view(v: GameView, seat: int, rng: random.Random) -> State:
    """The state `sample_hidden` would draw from any state showing `v` to `seat`: every
    public field read off the view, each hidden one filled from the pieces the view shows
    nowhere (`sample_hidden` then shuffles them)."""
    s = initial(v.options, len(v.players))
    s.phase, s.turn, s.round, s.crown = v.phase, v.turn, v.round, v.crown
    s.peer, s.acting = list(v.peer_track), list(v.acting_order)
    s.players = [_player(p) for p in v.players]
    s.exploration = [None if t == FACE_DOWN else t for t in v.exploration]
    s.face_up = [t is not None and t != FACE_DOWN for t in v.exploration]
    s.colonies = [Colony(tile=c.tile, size=c.size, houses=list(c.houses)) for c in v.colonies]
    s.blue_reserve = list(v.blue_colonies_left)
    s.market, s.surplus, s.church = list(v.market), list(v.surplus), list(v.church)
    s.out, s.estates_discarded = list(v.out_of_game), list(v.estates_discarded)
    s.bull_supply, s.rose_supply = v.bull_supply, v.rose_window_supply
    s.magellan_supply, s.magellan_complete = v.magellan_supply, v.magellan_complete
    s.dice, s.war_level, s.war = list(v.dice), v.war_level, list(v.war)
    s.picks_done, s.step1_char = v.picks_made, v.character_in_round
    s.common_taken = list(v.common_taken)
    s.pending = [Pending(kind=p.kind, seat=p.seat, row=p.row) for p in v.pending]
    s.final = None if v.result is None else dict(v.result)
    progress = v.progress
    s.ask_index, s.actor_index = progress.ask_index, progress.actor_index
    s.common_in_round = progress.common_in_round
    s.revealed, s.hoarded = progress.revealed, progress.hoarded
    _read_commitments(s, v)
    _deal_characters(s, v)
    if v.stack is not None:  # the game is over: the view shows everything
        s.stack, s.estate_stack = list(v.stack), list(v.estate_stack or [])
        s.estates_unused = list(v.estates_unused or [])
        return s
    _deal_new_world(s, v)
    _deal_estates(s, v, seat)
    return sample_hidden(s, seat, rng)


def _player(p: PlayerView) -> Player:
    """The seat's pieces; unseen estates and characters are left empty, dealt below."""
    return Player(
        ducats=p.ducats,
        gp=p.gp,
        sea_trade=p.sea_trade,
        active=p.tercios_active,
        tired=p.tercios_tired,
        tercio_box=p.tercios_box,
        stock=p.houses_stock,
        house_box=p.houses_box,
        rose_up=p.rose_windows_up,
        rose_down=p.rose_windows_down,
        bulls=p.bulls,
        magellan=p.magellan,
        estates=list(p.estates or []),
        captured=list(p.captured),
        characters=list(p.characters or []),
        used=list(p.used),
        common_count=p.common_actions_taken,
        bull_used=p.bull_used,
    )


def _read_commitments(s: State, v: GameView) -> None:
    """Who was asked to commit (in acting order) and who did; another seat's count is a
    placeholder `sample_hidden` draws again."""
    if s.phase != "commit":
        return
    seats = {p.seat: p for p in v.players}
    s.commit_asked = [q for q in s.acting if seats[q].has_committed is not None]
    s.commitments = {q: seats[q].commitment or 0 for q in s.commit_asked if seats[q].has_committed}


def _deal_characters(s: State, v: GameView) -> None:
    """The characters the view shows nowhere fill the other seats' hidden picks, the hand and
    the set-aside card."""
    hand = v.offered if v.offered is not None else v.leftovers
    seen = [*(c for p in s.players for c in p.characters), *(hand or [])]
    if v.set_aside is not None:
        seen.append(v.set_aside)
    unseen = [c for c in CHARACTERS if c not in seen]
    for p, shown in zip(s.players, v.players, strict=True):
        if shown.characters is None:
            p.characters = [unseen.pop() for _ in range(shown.character_count)]
    if hand is None:  # hidden from the seat
        hand = [unseen.pop() for _ in range(v.progress.cards_offered)]
    s.hand = list(hand)
    if v.progress.card_set_aside:  # else the characters are not in play this turn yet
        s.set_aside = v.set_aside if v.set_aside is not None else unseen.pop()
        assert not unseen, f"characters nowhere: {unseen}"
    s.holder = {c: i for i, p in enumerate(s.players) for c in p.characters}


def _deal_new_world(s: State, v: GameView) -> None:
    """The New World tiles the view shows nowhere: the face-down rows, then the stack."""
    seen = {*s.market, *s.surplus, *s.out, *(c.tile for c in s.colonies)}
    seen.update(t for t in [*s.exploration, *s.church] if t is not None)
    seen.update(t for p in s.players for t in p.captured)
    unseen = [t for t in NEW_WORLD_TILES if t not in seen]
    for r, t in enumerate(v.exploration):
        if t == FACE_DOWN:
            s.exploration[r] = unseen.pop()
    assert len(unseen) == v.stack_count, f"{len(unseen)} unseen tiles, {v.stack_count} stacked"
    s.stack = unseen


def _deal_estates(s: State, v: GameView, seat: int) -> None:
    """The estates the view shows nowhere: the other seats' held ones, the stack, the unused."""
    seen = {*s.players[seat].estates, *s.estates_discarded}
    unseen = [e for e in ESTATES if e not in seen]
    for i, (p, shown) in enumerate(zip(s.players, v.players, strict=True)):
        if i != seat:
            p.estates = [unseen.pop() for _ in range(shown.estate_count)]
    s.estate_stack = [unseen.pop() for _ in range(v.estate_stack_count)]
    s.estates_unused = unseen

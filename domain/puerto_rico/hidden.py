"""Determinization for Puerto Rico: `sample_hidden` re-draws what a seat cannot see (R11, R24),
and `state_from_view` builds a state from a seat's view alone, drawn the same way.

Hidden while the game runs: the plantation stack order, the identity of every forest (its
owner's included: the view shows them to nobody), a drawn hacienda tile to all but its drawer
(one pool of unseen plantations), and the VP of the other players. The other players' VP
total is kept and dealt among them point by point at random. Pools are sorted before they are
shuffled, so the sample depends on the state only through what `view(state, seat)` shows
(the others' VP total among it: the pool and the VP paid beyond the chips, minus the supply
and the seat's own VP).
"""

from __future__ import annotations

import copy
import random
from collections import Counter

from domain.puerto_rico.data import GOOD_INDEX, GOODS, ISLAND, copies
from domain.puerto_rico.state import Player, State
from domain.puerto_rico.view import GameView, PlayerView


def sample_hidden(st: State, seat: int, rng: random.Random) -> State:
    s = st.copy()
    if s.over:
        return s
    hacienda = s.hacienda_tile is not None and seat != s.actor
    tiles = sorted(
        [*s.stack, *(t for p in s.players for t in p.forests)]
        + ([s.hacienda_tile] if hacienda and s.hacienda_tile is not None else [])
    )
    rng.shuffle(tiles)
    for p in s.players:
        p.forests = [tiles.pop() for _ in p.forests]
    if hacienda:
        s.hacienda_tile = tiles.pop()
    s.stack = tiles
    others = [i for i in range(s.n) if i != seat]
    total = sum(s.players[i].vp for i in others)
    for i in others:
        s.players[i].vp = 0
    for _ in range(total):
        s.players[others[rng.randrange(len(others))]].vp += 1
    return s


def state_from_view(v: GameView, seat: int, rng: random.Random, table: State) -> State:
    """The state `sample_hidden` would draw from any state showing `v` to `seat`. `table` is
    the game's state before setup (its totals: every tile, chip and coin in the box)."""
    s = table.copy()
    for name in _SAME_NAMES:
        setattr(s, name, copy.deepcopy(getattr(v, name)))
    for name in _PROGRESS:
        setattr(s, name, copy.deepcopy(getattr(v.progress, name)))
    s.received = [v.progress.received[g] for g in GOODS]
    s.players = [_player(p) for p in v.players]
    s.n, s.ship_colonists = v.seats, v.colonist_ship
    s.window = list(v.awaiting) if s.step == "guest_window" else []
    s.supply = [v.supply[g] for g in GOODS]
    s.ship_capacity = [ship["capacity"] for ship in v.ships]
    s.ship_good = [-1 if ship["good"] is None else GOOD_INDEX[ship["good"]] for ship in v.ships]
    s.ship_load = [ship["load"] for ship in v.ships]
    s.house = [GOOD_INDEX[g] for g in v.trading_house]
    s.copies_total = {**table.copies_total, **{b: copies(b, s.n) for b in v.drafted}}
    money = sum(p.doubloons for p in s.players) + sum(s.roles.values())
    s.bank_out = money - s.doubloons_start  # only the invariant tests read the two
    if v.over:
        assert v.stack is not None
        s.stack = v.stack[::-1]
        return s
    _deal_unseen_tiles(s, v, table)
    # The others' VP: their total is what the pool and the paper VP leave (dealt again below).
    others = [p for i, p in enumerate(s.players) if i != seat]
    others[0].vp = s.vp_pool + s.vp_paper - s.vp_supply - s.players[seat].vp
    return sample_hidden(s, seat, rng)


# GameView fields that hold a State field of the same name and form; and Progress's.
_SAME_NAMES = (
    "options",
    "phase",
    "step",
    "round",
    "governor",
    "chooser",
    "role",
    "roles",
    "picked",
    "row",
    "discard",
    "hacienda_tile",
    "quarries",
    "colonists",
    "vp_supply",
    "buildings_left",
    "draft_slots",
    "drafted",
    "end_triggered",
    "over",
)
_PROGRESS = (
    "actor",
    "first_governor",
    "picks",
    "passes",
    "window_for",
    "last_phase",
    "hacienda_used",
    "wharf_used",
    "small_wharf_used",
    "captain_shipped",
    "vp_paper",
)


def _player(p: PlayerView) -> Player:
    return Player(
        doubloons=p.doubloons,
        vp=p.vp or 0,
        goods=[p.goods[g] for g in GOODS],
        tiles=[p.tiles[t] for t in ISLAND],
        occupied=[p.occupied[t] for t in ISLAND],
        # the identities once the game is over, else placeholders `_deal_unseen_tiles` deals
        forests=list(p.forest_tiles) if p.forest_tiles is not None else ["forest"] * p.forests,
        buildings=dict(p.buildings),
        san_juan=p.san_juan,
        doubling_role=p.doubling_role,
    )


def _deal_unseen_tiles(s: State, v: GameView, table: State) -> None:
    """The plantations the view shows nowhere: the stack, every forest and a hacienda tile
    drawn by another seat (awaiting its `hacienda_place`), in any order (`sample_hidden`
    shuffles them)."""
    unseen = Counter(table.stack)
    unseen.subtract(v.row + v.discard + ([v.hacienda_tile] if v.hacienda_tile else []))
    for p in s.players:
        unseen.subtract({kind: p.tiles[k] for k, kind in enumerate(GOODS)})
    tiles = sorted(unseen.elements())
    for p in s.players:
        p.forests = [tiles.pop() for _ in p.forests]
    if s.step == "hacienda_place" and v.hacienda_tile is None:  # another seat's tile
        s.hacienda_tile = tiles.pop()
    assert len(tiles) == v.stack_size, f"{len(tiles)} unseen plantations, {v.stack_size} stacked"
    s.stack = tiles

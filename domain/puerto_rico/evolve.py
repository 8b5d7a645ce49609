"""evolve: apply one event to the state, in place. No randomness, no rule checks.

Fields are assigned, lists and dicts are replaced before they change (`x = x[:]`, then the
change on the new one): `decide` works on a shallow copy (`State.working_copy`) that shares
them with the state it was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.puerto_rico import events as E
from domain.puerto_rico.data import (
    BUILDINGS,
    GOOD_INDEX,
    ISLAND_INDEX,
    SAN_JUAN,
    copies,
    setup_for,
)
from domain.puerto_rico.state import Player, State


def _award(s: State, seat: int, vp: int) -> None:
    """VP from the chip supply; beyond it 'on paper'. Reaching 0 triggers the end."""
    if vp <= 0:
        return
    chips = vp if vp < s.vp_supply else s.vp_supply
    s.vp_supply -= chips
    s.vp_paper += vp - chips
    s.players[seat].vp += vp
    if s.vp_supply == 0:
        s.end_triggered = True


def _pay(s: State, seat: int, amount: int) -> None:
    if amount:
        s.players[seat].doubloons += amount
        s.bank_out += amount


def _colonist_from_stock(s: State) -> None:
    """Hospice/university colonists: supply first, else the colonist ship."""
    if s.colonists > 0:
        s.colonists -= 1
    else:
        s.ship_colonists -= 1


def governor_chosen(s: State, e: E.GovernorChosen) -> None:
    s.governor = s.first_governor = e.seat
    s.stack = s.stack[:]
    for i, kind in enumerate(setup_for(s.n).plantations):
        p = s.players[(e.seat + i) % s.n]
        p.tiles = p.tiles[:]
        p.tiles[ISLAND_INDEX[kind]] += 1
        s.stack.remove(kind)


def stack_shuffled(s: State, e: E.StackShuffled) -> None:
    assert e.order is not None, "evolve needs the unredacted event"
    s.stack = e.order[::-1]
    s.discard = []


def row_drawn(s: State, e: E.RowDrawn) -> None:
    s.row, s.stack = s.row[:], s.stack[:]
    for _ in e.tiles:
        s.row.append(s.stack.pop())


def row_discarded(s: State, e: E.RowDiscarded) -> None:
    s.discard = s.discard + s.row
    s.row = []


def turn_started(s: State, e: E.TurnStarted) -> None:
    if e.step == "settler_turn" and e.seat != s.actor:
        s.hacienda_used = False  # once per phase = once per own settler turn
    s.step = e.step
    s.actor = e.seat


def building_drafted(s: State, e: E.BuildingDrafted) -> None:
    s.phase = "draft"
    s.drafted = [*s.drafted, e.building]
    cost = BUILDINGS[e.building].slot
    s.draft_slots = {**s.draft_slots, cost: s.draft_slots[cost] - 1}
    c = copies(e.building, s.n)
    s.buildings_left = {**s.buildings_left, e.building: c}
    s.copies_total = {**s.copies_total, e.building: c}  # copy-on-write: shared between clones


def draft_finished(s: State, e: E.DraftFinished) -> None:
    s.step = ""


def round_started(s: State, e: E.RoundStarted) -> None:
    s.round = e.round
    s.governor = e.governor
    s.picks = 0
    s.picked = []
    s.phase = "roles"
    s.step = ""
    for p in s.players:
        p.doubling_role = None


def role_chosen(s: State, e: E.RoleChosen) -> None:
    p = s.players[e.seat]
    p.doubloons += s.roles[e.role]
    s.roles = {**s.roles, e.role: 0}
    s.picked = [*s.picked, e.role]
    s.picks += 1
    s.role = e.role
    s.chooser = e.seat
    s.phase = "prospector" if e.role.startswith("prospector") else e.role
    s.step = ""
    s.passes = 0
    s.hacienda_used = False
    s.captain_shipped = False
    if s.phase == "captain":
        s.wharf_used = [False] * s.n
        s.small_wharf_used = [False] * s.n
    if s.phase == "craftsman":
        s.received = [0] * 5
    if (
        s.n == 2
        and s.options.library_2p_once_per_round
        and p.doubling_role is None
        and p.buildings.get("library", 0) > 0
    ):
        p.doubling_role = e.role


def hacienda_drawn(s: State, e: E.HaciendaDrawn) -> None:
    s.stack = s.stack[:]
    tile = s.stack.pop()
    s.hacienda_used = True
    if e.pending:
        s.hacienda_tile = tile
    else:
        _add_tile(s.players[e.seat], tile)


def hacienda_placed(s: State, e: E.HaciendaPlaced) -> None:
    tile = s.hacienda_tile
    assert tile is not None
    s.hacienda_tile = None
    p = s.players[e.seat]
    if e.as_forest:
        p.forests = [*p.forests, tile]
    else:
        _add_tile(p, tile)


def _add_tile(p: Player, tile: str) -> None:
    p.tiles = p.tiles[:]
    p.tiles[ISLAND_INDEX[tile]] += 1


def settled(s: State, e: E.Settled) -> None:
    p = s.players[e.seat]
    if e.source == "forest":
        s.stack = s.stack[:]
        p.forests = [*p.forests, s.stack.pop()]
        if e.hospice:
            _colonist_from_stock(s)
            p.san_juan += 1
    else:
        if e.source == "quarry":
            s.quarries -= 1
        else:
            s.row = s.row[:]
            s.row.remove(e.tile)
        _add_tile(p, e.tile)
        if e.hospice:
            _colonist_from_stock(s)
            p.occupied = p.occupied[:]
            p.occupied[ISLAND_INDEX[e.tile]] += 1


def passed(s: State, e: E.Passed) -> None:
    if e.step == "captain_turn":
        s.passes += 1


def colonists_distributed(s: State, e: E.ColonistsDistributed) -> None:
    for seat, c in enumerate(e.counts):
        s.players[seat].san_juan += c
        s.ship_colonists -= c


def colonists_placed(s: State, e: E.ColonistsPlaced) -> None:
    p = s.players[e.seat]
    s.colonists -= e.privilege
    layout = e.layout
    kinds = ("corn", "indigo", "sugar", "tobacco", "coffee", "quarry")
    p.occupied = [layout.get(kind, 0) for kind in kinds]
    p.buildings = {b: layout.get(b, 0) for b in p.buildings}
    p.san_juan = e.san_juan


def colonist_ship_refilled(s: State, e: E.ColonistShipRefilled) -> None:
    s.colonists -= e.count
    s.ship_colonists += e.count
    if e.end_triggered:
        s.end_triggered = True


def _remove_colonist(p: Player, location: str) -> None:
    if location == SAN_JUAN:
        p.san_juan -= 1
    elif location in ISLAND_INDEX:
        p.occupied = p.occupied[:]
        p.occupied[ISLAND_INDEX[location]] -= 1
    else:
        p.buildings = {**p.buildings, location: p.buildings[location] - 1}


def built(s: State, e: E.Built) -> None:
    p = s.players[e.seat]
    bm = e.black_market
    if bm is not None:
        if bm.colonist_from is not None:
            _remove_colonist(p, bm.colonist_from)
            s.colonists += 1
        if bm.good is not None:
            _return_goods(s, p, {bm.good: 1})
        if bm.vp:
            p.vp -= 1
            s.vp_supply += 1
    p.doubloons -= e.paid
    s.bank_in += e.paid
    p.buildings = {**p.buildings, e.building: 0}
    s.buildings_left = {**s.buildings_left, e.building: s.buildings_left[e.building] - 1}
    _award(s, e.seat, e.church_vp)
    if e.university is not None:
        _colonist_from_stock(s)
        if BUILDINGS[e.building].circles > 0:
            p.buildings[e.building] = 1
        else:
            p.san_juan += 1  # statue (R31)
    if e.city_full:
        s.end_triggered = True


def produced(s: State, e: E.Produced) -> None:
    p = s.players[e.seat]
    p.goods, s.supply = p.goods[:], s.supply[:]
    for g in range(5):
        got = e.goods[g] + e.aqueduct[g]
        if got:
            p.goods[g] += got
            s.supply[g] -= got
    if e.seat == s.chooser:
        s.received = [e.goods[g] + e.aqueduct[g] for g in range(5)]
    _pay(s, e.seat, e.factory + e.specialty)


def craftsman_bonus_taken(s: State, e: E.CraftsmanBonusTaken) -> None:
    p = s.players[e.seat]
    p.goods, s.supply = p.goods[:], s.supply[:]
    for good in e.goods:
        g = GOOD_INDEX[good]
        p.goods[g] += 1
        s.supply[g] -= 1
    _pay(s, e.seat, e.specialty)


def sold(s: State, e: E.Sold) -> None:
    g = GOOD_INDEX[e.good]
    p = s.players[e.seat]
    p.goods = p.goods[:]
    p.goods[g] -= 1
    if e.venue == "trading_house":
        s.house = [*s.house, g]
    else:
        s.supply = s.supply[:]
        s.supply[g] += 1
    _pay(s, e.seat, e.price)


def trading_house_emptied(s: State, e: E.TradingHouseEmptied) -> None:
    s.supply = s.supply[:]
    for g in s.house:
        s.supply[g] += 1
    s.house = []


def lighthouse_paid(s: State, e: E.LighthousePaid) -> None:
    _pay(s, e.seat, 1)


def union_hall_scored(s: State, e: E.UnionHallScored) -> None:
    _award(s, e.seat, e.vp)


def _shipped(s: State, seat: int, vp: int, doubloons: int) -> None:
    _award(s, seat, vp)
    _pay(s, seat, doubloons)
    s.passes = 0
    if seat == s.chooser:
        s.captain_shipped = True


def loaded(s: State, e: E.Loaded) -> None:
    g = GOOD_INDEX[e.good]
    p = s.players[e.seat]
    p.goods = p.goods[:]
    p.goods[g] -= e.count
    s.ship_good, s.ship_load = s.ship_good[:], s.ship_load[:]
    s.ship_good[e.ship] = g
    s.ship_load[e.ship] += e.count
    _shipped(s, e.seat, e.vp, e.doubloons)


def wharf_shipped(s: State, e: E.WharfShipped) -> None:
    _return_goods(s, s.players[e.seat], {e.good: e.count})
    s.wharf_used = s.wharf_used[:]
    s.wharf_used[e.seat] = True
    _shipped(s, e.seat, e.vp, e.doubloons)


def small_wharf_shipped(s: State, e: E.SmallWharfShipped) -> None:
    _return_goods(s, s.players[e.seat], e.goods)
    s.small_wharf_used = s.small_wharf_used[:]
    s.small_wharf_used[e.seat] = True
    _shipped(s, e.seat, e.vp, e.doubloons)


def _return_goods(s: State, p: Player, goods: dict[str, int]) -> None:
    """`goods` (kind -> count) go from `p` back to the supply."""
    p.goods, s.supply = p.goods[:], s.supply[:]
    for good, c in goods.items():
        g = GOOD_INDEX[good]
        p.goods[g] -= c
        s.supply[g] += c


def goods_stored(s: State, e: E.GoodsStored) -> None:
    _return_goods(s, s.players[e.seat], e.returned)


def ships_unloaded(s: State, e: E.ShipsUnloaded) -> None:
    s.supply, s.ship_good, s.ship_load = s.supply[:], s.ship_good[:], s.ship_load[:]
    for i in e.ships:
        s.supply[s.ship_good[i]] += s.ship_load[i]
        s.ship_good[i] = -1
        s.ship_load[i] = 0


def phase_ended(s: State, e: E.PhaseEnded) -> None:
    s.last_phase = s.phase
    s.phase = "roles"
    s.step = ""
    s.role = ""


def guest_window_opened(s: State, e: E.GuestWindowOpened) -> None:
    s.window = list(e.seats)
    s.window_for = e.before
    s.step = "guest_window"
    s.actor = -1
    if e.before == "end":
        s.phase = "end"


def guest_moved(s: State, e: E.GuestMoved) -> None:
    p = s.players[e.seat]
    p.buildings = dict(p.buildings)
    p.buildings["guest_house"] -= 1
    if e.to in ISLAND_INDEX:
        p.occupied = p.occupied[:]
        p.occupied[ISLAND_INDEX[e.to]] += 1
    else:
        p.buildings[e.to] += 1


def guests_finished(s: State, e: E.GuestsFinished) -> None:
    s.window = [seat for seat in s.window if seat != e.seat]
    if not s.window:
        s.step = ""


def prospected(s: State, e: E.Prospected) -> None:
    _pay(s, e.seat, e.doubloons)


def round_ended(s: State, e: E.RoundEnded) -> None:
    s.roles = dict(s.roles)
    for r in e.bonus:
        s.roles[r] += 1
    s.bank_out += len(e.bonus)
    s.picked = []
    s.step = ""


def game_ended(s: State, e: E.GameEnded) -> None:
    s.over = True
    s.phase = "over"
    s.step = ""
    s.actor = -1


HANDLERS: dict[type, Callable[[State, Any], None]] = {
    E.GovernorChosen: governor_chosen,
    E.StackShuffled: stack_shuffled,
    E.RowDrawn: row_drawn,
    E.RowDiscarded: row_discarded,
    E.TurnStarted: turn_started,
    E.BuildingDrafted: building_drafted,
    E.DraftFinished: draft_finished,
    E.RoundStarted: round_started,
    E.RoleChosen: role_chosen,
    E.HaciendaDrawn: hacienda_drawn,
    E.HaciendaPlaced: hacienda_placed,
    E.Settled: settled,
    E.Passed: passed,
    E.ColonistsDistributed: colonists_distributed,
    E.ColonistsPlaced: colonists_placed,
    E.ColonistShipRefilled: colonist_ship_refilled,
    E.Built: built,
    E.Produced: produced,
    E.CraftsmanBonusTaken: craftsman_bonus_taken,
    E.Sold: sold,
    E.TradingHouseEmptied: trading_house_emptied,
    E.LighthousePaid: lighthouse_paid,
    E.UnionHallScored: union_hall_scored,
    E.Loaded: loaded,
    E.WharfShipped: wharf_shipped,
    E.SmallWharfShipped: small_wharf_shipped,
    E.GoodsStored: goods_stored,
    E.ShipsUnloaded: ships_unloaded,
    E.PhaseEnded: phase_ended,
    E.GuestWindowOpened: guest_window_opened,
    E.GuestMoved: guest_moved,
    E.GuestsFinished: guests_finished,
    E.Prospected: prospected,
    E.RoundEnded: round_ended,
    E.GameEnded: game_ended,
}


def evolve(s: State, event: Any) -> State:
    HANDLERS[type(event)](s, event)
    return s

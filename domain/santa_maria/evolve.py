"""evolve: apply one event to the state, in place. No rule decisions and no randomness here:
every choice and outcome is a field of the event.

Fields are assigned, lists and dicts are replaced, never changed in place: `decide` works on
a shallow copy (`state.working_copy`) that shares them with the state it was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.santa_maria import data
from domain.santa_maria import events as ev
from domain.santa_maria.state import Decision, PlayerState, SantaMariaState, idx


def _start_player_chosen(s: SantaMariaState, e: ev.StartPlayerChosen) -> None:
    s.start_player = e.seat
    s.year = 1
    s.blue_supply = data.DICE_PER_PLAYER * s.seats
    s.players = [PlayerState(seat=i, conq_arrival=i) for i in range(s.seats)]
    s.conq_clock = s.seats  # markers on 0 are stacked in seat order (R5)


def _starting_ships_placed(s: SantaMariaState, e: ev.StartingShipsPlaced) -> None:
    s.docks = list(e.docks)


def _monk_tiles_drawn(s: SantaMariaState, e: ev.MonkTilesDrawn) -> None:
    s.scholars = list(e.scholars)
    s.bishops = list(e.bishops)


def _ship_stack_shuffled(s: SantaMariaState, e: ev.ShipStackShuffled) -> None:
    s.ship_stack = list(e.order or [])


def _expansion_stacks_shuffled(s: SantaMariaState, e: ev.ExpansionStacksShuffled) -> None:
    s.double_stack = list(e.doubles or [])
    s.triple_stack = list(e.triples or [])


def _display_dealt(s: SantaMariaState, e: ev.DisplayDealt) -> None:
    s.out_of_game = s.out_of_game + e.discarded
    s.double_stack = s.double_stack[len(e.doubles) :]
    s.triple_stack = s.triple_stack[len(e.triples) :]
    s.display_doubles = list(e.doubles)
    s.display_triples = list(e.triples)


def _white_dice_rolled(s: SantaMariaState, e: ev.WhiteDiceRolled) -> None:
    s.white_pool = sorted(e.faces)


def _set_board(p: PlayerState, board: str) -> None:
    p.board = board
    grid = data.BOARDS[board]
    p.cells = [grid[r][c] for r in range(6) for c in range(6)]
    p.printed = [code != data.EMPTY for code in p.cells]


def _colonies_dealt(s: SantaMariaState, e: ev.ColoniesDealt) -> None:
    for p, board in zip(s.players, e.boards, strict=False):
        _set_board(p, board)


def _draft_started(s: SantaMariaState, e: ev.DraftStarted) -> None:
    s.phase = "draft"
    s.draft_order = list(e.order)
    s.active = e.order[0]


def _colony_chosen(s: SantaMariaState, e: ev.ColonyChosen) -> None:
    _set_board(s.players[e.seat], e.board)
    s.draft_order = [seat for seat in s.draft_order if seat != e.seat]
    s.active = s.draft_order[0] if s.draft_order else -1


def _gain(p: PlayerState, kind: str, n: int) -> None:
    res = dict(p.res)
    res[kind] += n
    p.res = res


def _replaced(values: list[Any], i: int, value: Any) -> list[Any]:
    """`values` with item `i` replaced, as a new list."""
    out = values[:]
    out[i] = value
    return out


def _starting_goods_given(s: SantaMariaState, e: ev.StartingGoodsGiven) -> None:
    for p, wood, coins in zip(s.players, e.wood, e.coins, strict=False):
        _gain(p, "wood", wood)
        p.coins += coins


def _add_blue_die(s: SantaMariaState, p: PlayerState, value: int, locked: bool) -> None:
    s.blue_supply -= 1
    p.blue = [*p.blue, value]
    p.blue_used = [*p.blue_used, False]
    p.blue_locked = [*p.blue_locked, locked]


def _blue_dice_rolled(s: SantaMariaState, e: ev.BlueDiceRolled) -> None:
    for seat, index, value in e.rolls:
        p = s.players[seat]
        if e.new:
            _add_blue_die(s, p, value, False)
        else:
            p.blue = _replaced(p.blue, index - 1, value)


def _year_started(s: SantaMariaState, e: ev.YearStarted) -> None:
    s.phase = "play"
    s.year = e.year
    s.start_player = e.start_player
    s.active = e.start_player
    s.main_done = False


def _resources_sold(s: SantaMariaState, e: ev.ResourcesSold) -> None:
    p = s.players[e.seat]
    _gain(p, e.resource, -e.count)
    p.coins += e.coins


def _resources_bought(s: SantaMariaState, e: ev.ResourcesBought) -> None:
    p = s.players[e.seat]
    _gain(p, e.resource, e.count)
    p.coins -= e.coins


def _alchemy_used(s: SantaMariaState, e: ev.AlchemyUsed) -> None:
    p = s.players[e.seat]
    _gain(p, e.pay, -1)
    p.alchemy_used = True


def _without(values: list[Any], value: Any) -> list[Any]:
    """`values` without its first `value`, as a new list (`list.remove` on a copy)."""
    out = values[:]
    out.remove(value)
    return out


def _pay(p: PlayerState, paid: dict[str, int]) -> None:
    res = dict(p.res)
    for kind, n in paid.items():
        if kind == "coins":
            p.coins -= n
        else:
            res[kind] -= n
    p.res = res


def _tile_placed(s: SantaMariaState, e: ev.TilePlaced) -> None:
    p = s.players[e.seat]
    _pay(p, e.paid)
    codes = data.TILES[e.tile][1]
    cells, tile_on = p.cells[:], p.tile_on[:]
    for (row, col), code in zip(e.cells, codes, strict=False):
        i = idx(row, col)
        cells[i] = code
        tile_on[i] = e.tile
    p.cells, p.tile_on = cells, tile_on
    if e.tile in s.display_doubles:
        s.display_doubles = _without(s.display_doubles, e.tile)
    else:
        s.display_triples = _without(s.display_triples, e.tile)
    s.main_done = True
    p.main_actions += 1


def _building_activated(s: SantaMariaState, e: ev.BuildingActivated) -> None:
    p = s.players[e.seat]
    p.coins -= e.price
    p.coins_on = _replaced(p.coins_on, idx(e.row, e.col), e.price)
    p.coin_activations += 1
    p.coins_paid += e.price
    s.queue = s.queue + e.effects
    s.main_done = True
    p.main_actions += 1


def _die_activated(s: SantaMariaState, e: ev.DieActivated) -> None:
    p = s.players[e.seat]
    p.coins -= e.cost
    row, col = e.cells[-1]
    if e.die == "white":
        s.white_pool = _without(s.white_pool, e.face)
        p.white_taken += 1
        p.white_faces = [*p.white_faces, e.value]
        p.die_on = _replaced(p.die_on, idx(row, col), 1)
    else:
        p.blue_used = _replaced(p.blue_used, e.index - 1, True)
        p.die_on = _replaced(p.die_on, idx(row, col), 2)
    s.queue = s.queue + e.effects
    s.main_done = True
    p.main_actions += 1


def _retired(s: SantaMariaState, e: ev.Retired) -> None:
    p = s.players[e.seat]
    s.retire_spaces = {**s.retire_spaces, e.space: e.seat}
    s.retire_order = [*s.retire_order, e.seat]
    p.retired = True
    s.queue = s.queue + e.effects
    s.main_done = True
    p.main_actions += 1


def _shipping_income_queued(s: SantaMariaState, e: ev.ShippingIncomeQueued) -> None:
    s.queue = e.effects + s.queue


def _effect_started(s: SantaMariaState, e: ev.EffectStarted) -> None:
    s.queue = s.queue[1:]


def _resource_gained(s: SantaMariaState, e: ev.ResourceGained) -> None:
    p = s.players[e.seat]
    _gain(p, e.resource, e.kept)
    p.coins += e.coins


def _coins_gained(s: SantaMariaState, e: ev.CoinsGained) -> None:
    s.players[e.seat].coins += e.amount


def _points_scored(s: SantaMariaState, e: ev.PointsScored) -> None:
    s.players[e.seat].points += e.amount


def _decision_opened(s: SantaMariaState, e: ev.DecisionOpened) -> None:
    s.pending = Decision(kind=e.decision, building=e.building, max_extra=e.max_extra)


def _declined(s: SantaMariaState, e: ev.Declined) -> None:
    s.pending = None


def _traded(s: SantaMariaState, e: ev.Traded) -> None:
    p = s.players[e.seat]
    _gain(p, e.pay, -1)
    if e.gain == "coins":
        p.coins += e.amount
    else:
        p.points += e.amount
    s.pending = None


def _shipped(s: SantaMariaState, e: ev.Shipped) -> None:
    p = s.players[e.seat]
    _pay(p, e.paid)
    s.docks = _replaced(s.docks, e.dock - 1, "")
    p.port = _replaced(p.port, e.dock - 1, [*p.port[e.dock - 1], e.tile])
    s.pending = None


def _dock_refilled(s: SantaMariaState, e: ev.DockRefilled) -> None:
    if e.tile is not None:
        s.ship_stack = s.ship_stack[1:]
        s.docks = _replaced(s.docks, e.dock - 1, e.tile)


def _religion_advanced(s: SantaMariaState, e: ev.ReligionAdvanced) -> None:
    p = s.players[e.seat]
    _pay(p, {"grain": e.grain, "gold": e.gold})
    p.religion = e.to_space
    p.points += e.lost_steps
    p.symbols_entered += len(e.symbols)
    # Each symbol entered resolves next, in track order, before the rest of the queue (R21).
    s.queue = [f"M{space}" for space in e.symbols] + s.queue
    s.pending = None


def _conquistador_advanced(s: SantaMariaState, e: ev.ConquistadorAdvanced) -> None:
    p = s.players[e.seat]
    p.coins -= e.coins
    if e.to_space != e.from_space:
        p.conquistador = e.to_space
        p.conq_arrival = s.conq_clock  # on top of the markers already there (R5)
        s.conq_clock += 1
    p.conq_acted = True
    s.pending = None


def _blue_die_unlocked(s: SantaMariaState, e: ev.BlueDieUnlocked) -> None:
    _add_blue_die(s, s.players[e.seat], e.value, e.locked)


def _monk_recruited(s: SantaMariaState, e: ev.MonkRecruited) -> None:
    p = s.players[e.seat]
    for to_seat, coins in e.payments:
        p.coins -= coins
        s.players[to_seat].coins += coins
    p.monks_reserve -= 1
    s.monks = {**s.monks, e.space: [*s.monks[e.space], e.seat]}
    if e.space in data.SCHOLAR_SPACES:
        p.scholars = [*p.scholars, s.scholars[data.SCHOLAR_SPACES.index(e.space)]]
    elif e.space in data.BISHOP_SPACES:
        p.bishops = [*p.bishops, s.bishops[data.BISHOP_SPACES.index(e.space)]]
    s.pending = None


def _road_placed(s: SantaMariaState, e: ev.RoadPlaced) -> None:
    p = s.players[e.seat]
    i = idx(e.row, e.col)
    p.cells = _replaced(p.cells, i, data.ROAD)
    p.tile_on = _replaced(p.tile_on, i, data.ROAD_TILE_ID)
    s.road_stack -= 1
    s.pending = None


def _turn_ended(s: SantaMariaState, e: ev.TurnEnded) -> None:
    s.active = e.next
    s.main_done = False


def _conquistador_scored(s: SantaMariaState, e: ev.ConquistadorScored) -> None:
    for p, pts in zip(s.players, e.points, strict=False):
        p.points += pts
    s.conquistador_history = [*s.conquistador_history, list(e.points)]


def _year_cleaned_up(s: SantaMariaState, e: ev.YearCleanedUp) -> None:
    for p in s.players:
        p.die_on = [0] * 36
        p.coins_on = [0] * 36
        p.coin_activations = 0
        p.coins_paid = 0
        p.white_taken = 0
        p.white_faces = []
        p.blue_used = [False] * len(p.blue)
        p.blue_locked = [False] * len(p.blue)
        p.conq_acted = False
        p.alchemy_used = False
        p.retired = False
        p.main_actions = 0
    s.white_pool = []
    s.phase = "year_end"  # until YearStarted
    s.retire_spaces = {k: -1 for k in s.retire_spaces}
    s.retire_order = []


def _game_ended(s: SantaMariaState, e: ev.GameEnded) -> None:
    s.phase = "over"
    s.active = -1


HANDLERS: dict[type, Callable[[SantaMariaState, Any], None]] = {
    ev.StartPlayerChosen: _start_player_chosen,
    ev.StartingShipsPlaced: _starting_ships_placed,
    ev.MonkTilesDrawn: _monk_tiles_drawn,
    ev.ShipStackShuffled: _ship_stack_shuffled,
    ev.ExpansionStacksShuffled: _expansion_stacks_shuffled,
    ev.DisplayDealt: _display_dealt,
    ev.WhiteDiceRolled: _white_dice_rolled,
    ev.ColoniesDealt: _colonies_dealt,
    ev.DraftStarted: _draft_started,
    ev.ColonyChosen: _colony_chosen,
    ev.StartingGoodsGiven: _starting_goods_given,
    ev.BlueDiceRolled: _blue_dice_rolled,
    ev.YearStarted: _year_started,
    ev.ResourcesSold: _resources_sold,
    ev.ResourcesBought: _resources_bought,
    ev.AlchemyUsed: _alchemy_used,
    ev.TilePlaced: _tile_placed,
    ev.BuildingActivated: _building_activated,
    ev.DieActivated: _die_activated,
    ev.Retired: _retired,
    ev.ShippingIncomeQueued: _shipping_income_queued,
    ev.EffectStarted: _effect_started,
    ev.ResourceGained: _resource_gained,
    ev.CoinsGained: _coins_gained,
    ev.PointsScored: _points_scored,
    ev.DecisionOpened: _decision_opened,
    ev.Declined: _declined,
    ev.Traded: _traded,
    ev.Shipped: _shipped,
    ev.DockRefilled: _dock_refilled,
    ev.ReligionAdvanced: _religion_advanced,
    ev.ConquistadorAdvanced: _conquistador_advanced,
    ev.BlueDieUnlocked: _blue_die_unlocked,
    ev.MonkRecruited: _monk_recruited,
    ev.RoadPlaced: _road_placed,
    ev.TurnEnded: _turn_ended,
    ev.ConquistadorScored: _conquistador_scored,
    ev.YearCleanedUp: _year_cleaned_up,
    ev.GameEnded: _game_ended,
}


def evolve(state: SantaMariaState, event: Any) -> SantaMariaState:
    HANDLERS[type(event)](state, event)
    return state

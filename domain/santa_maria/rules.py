"""setup, decide, legal_commands and awaiting: the rules of Santa Maria.

`decide` validates a command against the unchanged state, then simulates on a working copy
(`state.working_copy`): every event is applied to the copy as it is emitted, so follow-ups
(the effect queue, decisions, year end) see the state they act on. Rulings are cited as `# Rn`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from itertools import compress
from typing import Any

from domain.contract import RuleError, illegal, not_your_turn
from domain.santa_maria import commands as cmd
from domain.santa_maria import data
from domain.santa_maria import events as ev
from domain.santa_maria.evolve import evolve
from domain.santa_maria.state import (
    PlayerState,
    SantaMariaOptions,
    SantaMariaState,
    idx,
    rc,
    storage_limit,
    working_copy,
)

NON_BUILDINGS = frozenset((data.EMPTY, data.BLOCKED, data.ROAD))
RESOURCE_OF = data.PRODUCTION  # atomic production effect -> resource

# --- geometry (R15) -----------------------------------------------------------------------


def _rotate(rot: int, dr: int, dc: int) -> tuple[int, int]:
    if rot == 0:
        return dr, dc
    if rot == 90:
        return dc, -dr
    if rot == 180:
        return -dr, -dc
    return -dc, dr


def _all_placements(shape: str) -> list[tuple[int, ...]]:
    """Every (rotation, anchor) whose squares all fall inside the grid, as flat cell indices in
    square order. Distinct (rotation, anchor) pairs give distinct lists."""
    out: list[tuple[int, ...]] = []
    squares = data.SHAPES[shape]
    for rot in data.ROTATIONS:
        offsets = [_rotate(rot, dr, dc) for dr, dc in squares]
        for r in range(1, data.GRID + 1):
            for c in range(1, data.GRID + 1):
                cells = [(r + dr, c + dc) for dr, dc in offsets]
                if all(1 <= x <= data.GRID and 1 <= y <= data.GRID for x, y in cells):
                    out.append(tuple(idx(x, y) for x, y in cells))
    return out


PLACEMENTS: dict[str, list[tuple[int, ...]]] = {s: _all_placements(s) for s in data.SHAPES}
PLACEMENT_SETS: dict[str, frozenset[tuple[int, ...]]] = {
    s: frozenset(v) for s, v in PLACEMENTS.items()
}
CELL_RC: list[list[int]] = [list(rc(i)) for i in range(36)]
COLUMNS: list[list[int]] = [[idx(r, c) for r in range(1, 7)] for c in range(1, 7)]  # top-down
ROWS: list[list[int]] = [[idx(r, c) for c in range(1, 7)] for r in range(1, 7)]  # left-right


def legal_placements(p: PlayerState, tile: str) -> list[tuple[int, ...]]:
    empty = [c == data.EMPTY for c in p.cells]
    if data.TILES[tile][0] == "double":
        return [pl for pl in PLACEMENTS["double"] if empty[pl[0]] and empty[pl[1]]]
    return [
        pl
        for pl in PLACEMENTS[data.TILES[tile][0]]
        if empty[pl[0]] and empty[pl[1]] and empty[pl[2]]
    ]


def is_building(code: str) -> bool:
    return code not in NON_BUILDINGS


def unoccupied_building(p: PlayerState, i: int) -> bool:
    return p.cells[i] not in NON_BUILDINGS and p.die_on[i] == 0 and p.coins_on[i] == 0


def line_buildings(p: PlayerState, die: str, value: int) -> list[int]:
    """The unoccupied buildings of the line in activation order; the die goes on the
    last one (R22)."""
    line = COLUMNS[value - 1] if die == "white" else ROWS[value - 1]
    return [i for i in line if unoccupied_building(p, i)]


# --- prices (scholars) ---------------------------------------------------------------


def coin_activation_price(p: PlayerState) -> int:
    n = p.coin_activations + 1
    return max(1, n - 1) if "SC03" in p.scholars else n  # R23


def change_cost(p: PlayerState, face: int, value: int) -> int:
    pips = abs(value - face)
    return max(0, pips - 1) if "SC02" in p.scholars else pips


def change_reach(p: PlayerState) -> int:
    """The most pips the player can pay to change a die by: `change_cost(p, face, value) <=
    p.coins` exactly when `abs(value - face) <= change_reach(p)`."""
    return p.coins + 1 if "SC02" in p.scholars else p.coins


def white_cap(p: PlayerState) -> int:
    return data.WHITE_DICE_CAP_SC09 if "SC09" in p.scholars else data.WHITE_DICE_CAP


def sell_price(p: PlayerState, resource: str) -> int:
    bonus = data.SELL_BONUS_SC04 if "SC04" in p.scholars else 0
    return data.SELL_PRICE[resource] + bonus


def expansion_cost(p: PlayerState, tile: str) -> dict[str, int]:
    cost = dict(data.EXPANSION_COST[data.tile_kind(tile)])
    if "SC01" in p.scholars:
        cost["wood"] = max(0, cost["wood"] - data.EXPANSION_WOOD_DISCOUNT_SC01)
    return cost


def _sorted_kinds(kinds: list[str]) -> list[str]:
    return sorted(kinds, key=data.SORT_ORDER.__getitem__)


def expansion_payments(p: PlayerState, cost: dict[str, int]) -> list[list[str]]:
    """Every affordable `gold_for` multiset (sorted) for an expansion cost (R13)."""
    out: list[list[str]] = []
    wood, grain = cost.get("wood", 0), cost.get("grain", 0)
    gold = p.res["gold"]
    for gw in range(wood + 1):
        for gg in range(grain + 1):
            if gw + gg <= gold and wood - gw <= p.res["wood"] and grain - gg <= p.res["grain"]:
                out.append(["wood"] * gw + ["grain"] * gg)
    return out


def _count(kinds: list[str] | tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for k in kinds:
        out[k] = out.get(k, 0) + 1
    return out


def ship_payments(p: PlayerState, tile: str) -> list[tuple[list[str], str | None]]:
    """Every affordable (gold_for, coins_for) for a ship's cost (SC06)."""
    cost = _count(data.SHIPS[tile][0])
    kinds = [k for k in data.COST_KINDS if k in cost]
    navigator = "SC06" in p.scholars
    out: list[tuple[list[str], str | None]] = []
    combos: list[dict[str, int]] = [{}]
    for k in kinds:
        combos = [{**c, k: g} for c in combos for g in range(cost[k] + 1)]
    gold = p.res["gold"]
    for combo in combos:
        ngold = sum(combo.values())
        if ngold > gold:
            continue
        options: list[str | None] = [None]
        if navigator:
            options += [k for k in kinds if cost[k] - combo[k] >= 1]
        for cf in options:
            if cf is not None and p.coins < data.NAVIGATOR_COINS:
                continue
            ok = all(cost[k] - combo[k] - (1 if cf == k else 0) <= p.res[k] for k in kinds)
            if ok:
                gold_for = [k for k in kinds for _ in range(combo[k])]
                out.append((gold_for, cf))
    return out


def recruit_fee(s: SantaMariaState, seat: int, space: str) -> list[list[int]]:
    return [[o, data.RECRUIT_FEE] for o in s.monks[space] if o != seat]


def can_recruit_structurally(s: SantaMariaState, p: PlayerState) -> bool:
    """R37: a recruit decision needs a reserve monk and a space without the player's monk."""
    return p.monks_reserve > 0 and any(p.seat not in s.monks[sp] for sp in data.MONK_SPACES)


# --- the simulation context ---------------------------------------------------------------------


class Sim:
    """A clone being advanced by the events `decide` emits."""

    __slots__ = ("events", "rng", "s")

    def __init__(self, state: SantaMariaState, rng: random.Random) -> None:
        self.s = working_copy(state)
        self.events: list[Any] = []
        self.rng = rng

    def emit(self, event: Any) -> None:
        self.events.append(event)
        evolve(self.s, event)

    @classmethod
    def emitted(cls, state: SantaMariaState, rng: random.Random, events: list[Any]) -> Sim:
        """A simulation of `events` decided beforehand."""
        sim = cls(state, rng)
        for event in events:
            sim.emit(event)
        return sim


def gain_resource(sim: Sim, seat: int, resource: str, n: int) -> None:
    """Gain procedure: tokens beyond the storage limit are sold at once (R14)."""
    if n <= 0:
        return
    p = sim.s.players[seat]
    kept = max(0, min(n, storage_limit(p) - p.res[resource]))
    sold = n - kept
    sim.emit(
        ev.ResourceGained(
            seat=seat, resource=resource, kept=kept, sold=sold, coins=sold * sell_price(p, resource)
        )
    )


def gain_reward(sim: Sim, seat: int, reward: dict[str, int], reason: str) -> None:
    for kind in data.RESOURCES:
        if reward.get(kind):
            gain_resource(sim, seat, kind, reward[kind])
    if reward.get("coins"):
        sim.emit(ev.CoinsGained(seat=seat, amount=reward["coins"]))
    if reward.get("points"):
        sim.emit(ev.PointsScored(seat=seat, amount=reward["points"], reason=reason))


def conquistador_action(sim: Sim, seat: int, extra: int) -> None:
    """The conquistador action: its steps after the move on the track."""
    p = sim.s.players[seat]
    frm = p.conquistador
    to = min(data.CONQUISTADOR_END, frm + 1 + extra)  # steps past the end are lost
    gold_spaces = [g for g in data.GOLD_SYMBOLS if frm < g <= to]  # R2
    sim.emit(
        ev.ConquistadorAdvanced(
            seat=seat,
            extra=extra,
            coins=data.CAPTAIN_COST * extra,
            from_space=frm,
            to_space=to,
            gold_spaces=gold_spaces,
        )
    )
    for _ in gold_spaces:
        gain_resource(sim, seat, "gold", 1)


def shipping_income(p: PlayerState) -> list[str]:
    """One income effect per tile in port: docks 1 to 4, then arrival order (R18)."""
    return [data.DOCK_INCOME[dock] for dock in range(1, data.DOCKS + 1) for _ in p.port[dock - 1]]


def resolve_effect(sim: Sim, seat: int, effect: str) -> None:
    s = sim.s
    p = s.players[seat]
    if effect in RESOURCE_OF:
        gain_resource(sim, seat, RESOURCE_OF[effect], 1)
    elif effect[0] == "C" and effect[1:].isdigit():
        sim.emit(ev.CoinsGained(seat=seat, amount=int(effect[1:])))
    elif effect[0] == "P" and effect[1:].isdigit():
        sim.emit(ev.PointsScored(seat=seat, amount=int(effect[1:]), reason="effect"))
    elif effect == "RL":
        max_extra = data.PREACHER_MAX_EXTRA if "SC07" in p.scholars else data.RELIGION_MAX_EXTRA
        sim.emit(ev.DecisionOpened(seat=seat, decision="religion", max_extra=max_extra))
    elif effect == "CQ":
        if "SC08" in p.scholars:  # R37: only the Captain is asked
            sim.emit(ev.DecisionOpened(seat=seat, decision="conquistador", max_extra=1))
        else:
            conquistador_action(sim, seat, 0)
    elif effect == "SH":
        if any(s.docks):  # R26
            sim.emit(ev.DecisionOpened(seat=seat, decision="ship"))
    elif effect in data.TRADES:
        sim.emit(ev.DecisionOpened(seat=seat, decision="trade", building=effect))
    elif effect == "ROAD":
        if s.road_stack > 0 and data.EMPTY in p.cells:  # R16, R37
            sim.emit(ev.DecisionOpened(seat=seat, decision="road"))
    elif effect == data.SHIPPING_INCOME:
        income = shipping_income(p)
        if income:
            sim.emit(ev.ShippingIncomeQueued(seat=seat, effects=income))
    elif effect[0] == "M":
        space = int(effect[1:])
        # R21: at one symbol, the blue-die unlock comes before the recruitment.
        if (
            space in data.BLUE_UNLOCK_SYMBOLS
            and s.blue_supply > 0
            and len(p.blue) < data.MAX_BLUE_DICE
        ):
            sim.emit(
                ev.BlueDieUnlocked(
                    seat=seat,
                    index=len(p.blue) + 1,
                    value=sim.rng.randint(1, 6),
                    locked=p.retired,  # R29
                )
            )
        if can_recruit_structurally(s, p):
            sim.emit(ev.DecisionOpened(seat=seat, decision="recruit"))
    else:  # pragma: no cover - data error
        raise ValueError(f"unknown effect {effect}")


def run_queue(sim: Sim) -> None:
    """Resolve queued effects until one opens a decision or the queue is empty."""
    s = sim.s
    while s.pending is None and s.queue:
        effect = s.queue[0]
        sim.emit(ev.EffectStarted(seat=s.active, effect=effect))
        resolve_effect(sim, s.active, effect)


# --- set-up ------------------------------------------------------------------------------


def validate_options(options: Any, seats: int) -> None:
    if not isinstance(options, SantaMariaOptions):
        raise RuleError("invalid_options.type", "options must be SantaMariaOptions")
    if options.colony_boards not in data.COLONY_BOARD_MODES:
        raise RuleError("invalid_options.colony_boards", "colony_boards is random or draft")
    if not isinstance(seats, int) or not 2 <= seats <= 4:
        raise RuleError("invalid_options.seats", "Santa Maria hosts 2 to 4 players")


def initial(options: Any, seats: int) -> SantaMariaState:
    return SantaMariaState(seats=seats, options=options)


def _begin_year_one(start: int, seats: int, rng: random.Random) -> list[Any]:
    """The first year begins: turn order, starting coins and the first dice."""
    order = [(start + k) % seats for k in range(seats)]
    wood = [data.STARTING_WOOD] * seats
    coins = [0] * seats
    for position, seat in enumerate(order):
        coins[seat] = data.STARTING_COINS[position]
    rolls = [[seat, 1, rng.randint(1, 6)] for seat in order]
    return [
        ev.StartingGoodsGiven(wood=wood, coins=coins),
        ev.BlueDiceRolled(year=1, rolls=rolls, new=True),
        ev.YearStarted(year=1, start_player=start),
    ]


def setup(options: Any, seats: int, rng: random.Random) -> list[Any]:
    validate_options(options, seats)
    out: list[Any] = []
    start = rng.randrange(seats)
    out.append(ev.StartPlayerChosen(seat=start))
    ships = list(data.STARTING_SHIPS)
    rng.shuffle(ships)
    out.append(ev.StartingShipsPlaced(docks=ships[: data.DOCKS]))
    scholars, bishops = list(data.SCHOLARS), list(data.BISHOPS)
    rng.shuffle(scholars)
    rng.shuffle(bishops)
    out.append(
        ev.MonkTilesDrawn(
            scholars=scholars[: len(data.SCHOLAR_SPACES)],
            bishops=bishops[: len(data.BISHOP_SPACES)],
        )
    )
    stack = list(data.STANDARD_SHIPS)
    rng.shuffle(stack)
    out.append(ev.ShipStackShuffled(count=len(stack), order=stack))
    doubles, triples = list(data.DOUBLE_TILES), list(data.TRIPLE_TILES)
    rng.shuffle(doubles)
    rng.shuffle(triples)
    out.append(
        ev.ExpansionStacksShuffled(
            doubles_count=len(doubles), triples_count=len(triples), doubles=doubles, triples=triples
        )
    )
    n = data.DISPLAY_PER_KIND
    out.append(ev.DisplayDealt(year=1, doubles=doubles[:n], triples=triples[:n]))
    faces = sorted(rng.randint(1, 6) for _ in range(data.DICE_PER_PLAYER * seats))
    out.append(ev.WhiteDiceRolled(year=1, faces=faces))
    if options.colony_boards == "random":
        boards = list(data.BOARD_NAMES)
        rng.shuffle(boards)
        by_seat = [""] * seats
        for k in range(seats):  # dealt clockwise from the start player
            by_seat[(start + k) % seats] = boards[k]
        out.append(ev.ColoniesDealt(shuffled=boards, boards=by_seat))
        out.extend(_begin_year_one(start, seats, rng))
    else:
        # R35: counter-clockwise from the seat before the start player; start player last.
        out.append(ev.DraftStarted(order=[(start - 1 - k) % seats for k in range(seats)]))
    return out


# --- decide -----------------------------------------------------------------------------------


def _bad(message: str) -> RuleError:
    return illegal("bad_parameter", message)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_rc(row: Any, col: Any) -> int:
    if not (_is_int(row) and _is_int(col) and 1 <= row <= 6 and 1 <= col <= 6):
        raise _bad("row and col are 1..6")
    return idx(row, col)


def decide(state: SantaMariaState, seat: int, command: Any, rng: random.Random) -> list[Any]:
    return _simulate(state, seat, command, rng).events


def decide_evolve(
    state: SantaMariaState, seat: int, command: Any, rng: random.Random
) -> tuple[list[Any], SantaMariaState]:
    """The events of `command` and the working copy they were applied to (it shares with
    `state` the lists and dicts the command left alone)."""
    sim = _simulate(state, seat, command, rng)
    return sim.events, sim.s


def _simulate(state: SantaMariaState, seat: int, command: Any, rng: random.Random) -> Sim:
    s = state
    if s.phase == "over":
        raise illegal("game_over", "the game is over")
    if s.phase not in ("draft", "play") or seat != s.active:
        raise not_your_turn(seat)
    t = type(command)
    if s.phase == "draft":
        if t is not cmd.ChooseColony:
            raise illegal("wrong_phase", "choose a colony board first")
        return _choose_colony(s, seat, command, rng)
    if t is cmd.ChooseColony:
        raise illegal("wrong_phase", "the draft is over")
    handler = _HANDLERS.get(t)
    if handler is None:
        raise illegal("wrong_phase", f"unknown command {t.__name__}")
    return handler(s, seat, command, rng)


def _choose_colony(s: SantaMariaState, seat: int, c: cmd.ChooseColony, rng: random.Random) -> Sim:
    taken = {p.board for p in s.players}
    if c.board not in data.BOARD_NAMES:
        raise illegal("unknown_board", f"no board {c.board!r}")
    if c.board in taken:
        raise illegal("not_available", f"{c.board} is taken")
    events: list[Any] = [ev.ColonyChosen(seat=seat, board=c.board)]
    if len(s.draft_order) == 1:
        events.extend(_begin_year_one(s.start_player, s.seats, rng))
    return Sim.emitted(s, rng, events)


def _main_allowed(s: SantaMariaState) -> None:
    if s.pending is not None:
        raise illegal("decision_pending", f"answer the {s.pending.kind} decision first")
    if s.main_done:
        raise illegal("main_action_taken", "one main action per turn")


# main action A: expand


def _expand_payment(p: PlayerState, tile: str, gold_for: list[str]) -> dict[str, int]:
    cost = expansion_cost(p, tile)
    gold = _count(gold_for)
    for kind, n in gold.items():
        if kind not in cost or n > cost[kind]:
            raise illegal("bad_payment", f"gold cannot replace {kind} here")
    paid: dict[str, int] = {}
    for kind, n in cost.items():
        own = n - gold.get(kind, 0)
        if own > p.res[kind]:
            raise illegal("cannot_afford", f"not enough {kind}")
        if own:
            paid[kind] = own
    if len(gold_for) > p.res["gold"]:
        raise illegal("cannot_afford", "not enough gold")
    if gold_for:
        paid["gold"] = len(gold_for)
    return paid


def _expand(s: SantaMariaState, seat: int, c: cmd.Expand, rng: random.Random) -> Sim:
    _main_allowed(s)
    p = s.players[seat]
    if c.tile not in s.display_doubles and c.tile not in s.display_triples:
        raise illegal("not_available", f"{c.tile!r} is not in the display")
    shape = data.TILES[c.tile][0]
    if len(c.cells) != len(data.SHAPES[shape]):
        raise illegal("bad_placement", "one cell per tile square")
    cells: list[int] = []
    for pair in c.cells:
        if len(pair) != 2:
            raise illegal("bad_placement", "cells are [row, col]")
        if not (_is_int(pair[0]) and _is_int(pair[1]) and 1 <= pair[0] <= 6 and 1 <= pair[1] <= 6):
            raise illegal("bad_placement", "cell outside the colony")
        cells.append(idx(pair[0], pair[1]))
    if tuple(cells) not in PLACEMENT_SETS[shape]:
        raise illegal("bad_placement", "not a rotation of the tile")
    if any(p.cells[i] != data.EMPTY for i in cells):
        raise illegal("bad_placement", "tiles go on empty cells only (R15)")
    if any(k not in data.SORT_ORDER for k in c.gold_for):
        raise illegal("bad_payment", "gold_for names cost kinds")
    paid = _expand_payment(p, c.tile, list(c.gold_for))
    event = ev.TilePlaced(seat=seat, tile=c.tile, cells=[CELL_RC[i] for i in cells], paid=paid)
    return Sim.emitted(s, rng, [event])


# main action B: coin activation


def _activate_building(
    s: SantaMariaState, seat: int, c: cmd.ActivateBuilding, rng: random.Random
) -> Sim:
    _main_allowed(s)
    p = s.players[seat]
    i = _check_rc(c.row, c.col)
    if not is_building(p.cells[i]):
        raise illegal("not_a_building", "only buildings can be activated")
    if not unoccupied_building(p, i):
        raise illegal("occupied", "the building holds a die or coins")
    price = coin_activation_price(p)
    if p.coins < price:
        raise illegal("cannot_afford", f"the activation costs {price} coins")
    sim = Sim(s, rng)
    effects = list(data.BUILDING_EFFECTS[p.cells[i]])
    sim.emit(ev.BuildingActivated(seat=seat, row=c.row, col=c.col, price=price, effects=effects))
    run_queue(sim)
    return sim


# main action C: die activation


def _activate_die(s: SantaMariaState, seat: int, c: cmd.ActivateDie, rng: random.Random) -> Sim:
    _main_allowed(s)
    p = s.players[seat]
    if not (_is_int(c.value) and 1 <= c.value <= 6):
        raise _bad("value is 1..6")
    if c.die == "white":
        if c.index is not None or c.face is None:
            raise _bad("a white die is named by face")
        if c.face not in s.white_pool:
            raise illegal("not_available", f"no white die showing {c.face} in the pool")
        if p.white_taken >= white_cap(p):
            raise illegal("white_dice_cap", "white-dice cap reached this year")
        face, index = c.face, 0
    elif c.die == "blue":
        if c.face is not None or c.index is None:
            raise _bad("a blue die is named by index")
        if not (_is_int(c.index) and 1 <= c.index <= len(p.blue)):
            raise illegal("not_available", "no such blue die")
        if p.blue_used[c.index - 1] or p.blue_locked[c.index - 1]:
            raise illegal("not_available", "that blue die is not available this year")
        face, index = p.blue[c.index - 1], c.index
    else:
        raise _bad("die is white or blue")
    cost = change_cost(p, face, c.value)
    if p.coins < cost:
        raise illegal("cannot_afford", f"changing the die costs {cost} coins")
    listed = line_buildings(p, c.die, c.value)
    if not listed:
        raise illegal("no_unoccupied_building", "the line holds no unoccupied building")
    effects = [e for i in listed for e in data.BUILDING_EFFECTS[p.cells[i]]]
    sim = Sim(s, rng)
    sim.emit(
        ev.DieActivated(
            seat=seat,
            die=c.die,
            face=face,
            index=index,
            value=c.value,
            cost=cost,
            cells=[CELL_RC[i] for i in listed],
            effects=effects,
        )
    )
    run_queue(sim)
    return sim


# main action D: retire


def _retire(s: SantaMariaState, seat: int, c: cmd.Retire, rng: random.Random) -> Sim:
    _main_allowed(s)
    if c.space not in data.RETIRE_ACTIONS:
        raise _bad(f"no retire space {c.space!r}")
    if s.retire_spaces[c.space] != -1:
        raise illegal("space_taken", f"{c.space} is taken this year")
    # the income is listed only once the action is done (RS4 may ship a tile first).
    effects = [*data.RETIRE_ACTIONS[c.space], data.SHIPPING_INCOME]
    sim = Sim(s, rng)
    sim.emit(
        ev.Retired(seat=seat, space=c.space, position=len(s.retire_order) + 1, effects=effects)
    )
    run_queue(sim)
    return sim


# free actions


def _sell(s: SantaMariaState, seat: int, c: cmd.Sell, rng: random.Random) -> Sim:
    p = s.players[seat]
    if c.resource not in data.SELL_PRICE:
        raise _bad(f"no resource {c.resource!r}")
    if not (_is_int(c.count) and c.count >= 1):
        raise _bad("count >= 1")
    if p.res[c.resource] < c.count:
        raise illegal("cannot_afford", f"not enough {c.resource}")
    coins = c.count * sell_price(p, c.resource)
    event = ev.ResourcesSold(seat=seat, resource=c.resource, count=c.count, coins=coins)
    return Sim.emitted(s, rng, [event])


def _buy(s: SantaMariaState, seat: int, c: cmd.Buy, rng: random.Random) -> Sim:
    p = s.players[seat]
    if c.resource not in data.BUY_PRICE:
        raise illegal("not_available", f"{c.resource!r} cannot be bought")
    if not (_is_int(c.count) and c.count >= 1):
        raise _bad("count >= 1")
    coins = c.count * data.BUY_PRICE[c.resource]
    if p.coins < coins:
        raise illegal("cannot_afford", f"buying costs {coins} coins")
    if p.res[c.resource] + c.count > storage_limit(p):  # R12
        raise illegal("storage_full", "buying cannot exceed the storage limit")
    event = ev.ResourcesBought(seat=seat, resource=c.resource, count=c.count, coins=coins)
    return Sim.emitted(s, rng, [event])


def _alchemy(s: SantaMariaState, seat: int, c: cmd.Alchemy, rng: random.Random) -> Sim:
    p = s.players[seat]
    if "SC10" not in p.scholars or p.alchemy_used:
        raise illegal("not_available", "alchemy needs SC10, once per year")
    if c.pay not in data.SORT_ORDER or c.gain not in data.SORT_ORDER or c.pay == c.gain:
        raise _bad("pay and gain are two different kinds of wood/grain/sugar/gem")
    if p.res[c.pay] < 1:
        raise illegal("cannot_afford", f"no {c.pay} to pay")
    sim = Sim(s, rng)
    sim.emit(ev.AlchemyUsed(seat=seat, pay=c.pay, gain=c.gain))
    gain_resource(sim, seat, c.gain, 1)
    return sim


# decisions


def _pending(s: SantaMariaState, kind: str) -> None:
    if s.pending is None or s.pending.kind != kind:
        raise illegal("wrong_phase", f"no {kind} decision is pending")


def _trade(s: SantaMariaState, seat: int, c: cmd.Trade, rng: random.Random) -> Sim:
    _pending(s, "trade")
    assert s.pending is not None
    inputs, outputs = data.TRADES[s.pending.building]
    if c.pay not in inputs and c.pay != "gold":  # R32
        raise _bad(f"{s.pending.building} takes {'/'.join(inputs)} or gold")
    if c.gain not in outputs:
        raise _bad(f"{s.pending.building} gives {'/'.join(outputs)}")
    p = s.players[seat]
    if p.res[c.pay] < 1:
        raise illegal("cannot_afford", f"no {c.pay} to pay")
    sim = Sim(s, rng)
    sim.emit(ev.Traded(seat=seat, pay=c.pay, gain=c.gain, amount=outputs[c.gain]))
    run_queue(sim)
    return sim


def _ship(s: SantaMariaState, seat: int, c: cmd.Ship, rng: random.Random) -> Sim:
    _pending(s, "ship")
    if not (_is_int(c.dock) and 1 <= c.dock <= data.DOCKS) or not s.docks[c.dock - 1]:
        raise illegal("not_available", "that dock holds no tile")
    p = s.players[seat]
    tile = s.docks[c.dock - 1]
    cost = _count(data.SHIPS[tile][0])
    if any(k not in cost for k in c.gold_for):
        raise illegal("bad_payment", "gold_for names kinds of the cost")
    if c.coins_for is not None:
        if "SC06" not in p.scholars:
            raise illegal("not_available", "paying coins for a resource needs SC06")
        if c.coins_for not in cost:
            raise illegal("bad_payment", "coins_for names a kind of the cost")
    gold = _count(list(c.gold_for))
    paid: dict[str, int] = {}
    for kind, n in cost.items():
        own = n - gold.get(kind, 0) - (1 if c.coins_for == kind else 0)
        if own < 0:
            raise illegal("bad_payment", f"{kind} is paid more often than the cost holds")
        if own > p.res[kind]:
            raise illegal("cannot_afford", f"not enough {kind}")
        if own:
            paid[kind] = own
    if len(c.gold_for) > p.res["gold"]:
        raise illegal("cannot_afford", "not enough gold")
    if c.gold_for:
        paid["gold"] = len(c.gold_for)
    if c.coins_for is not None:
        if p.coins < data.NAVIGATOR_COINS:
            raise illegal("cannot_afford", "not enough coins")
        paid["coins"] = data.NAVIGATOR_COINS
    sim = Sim(s, rng)
    sim.emit(ev.Shipped(seat=seat, dock=c.dock, tile=tile, paid=paid))
    top = sim.s.ship_stack[0] if sim.s.ship_stack else None
    sim.emit(ev.DockRefilled(dock=c.dock, tile=top))
    run_queue(sim)
    return sim


def _religion(s: SantaMariaState, seat: int, c: cmd.Religion, rng: random.Random) -> Sim:
    _pending(s, "religion")
    assert s.pending is not None
    if not (_is_int(c.extra) and _is_int(c.gold)):
        raise _bad("extra and gold are integers")
    if not 0 <= c.extra <= s.pending.max_extra or not 0 <= c.gold <= c.extra:
        raise _bad(f"extra 0..{s.pending.max_extra}, gold 0..extra")
    p = s.players[seat]
    if p.res["grain"] < c.extra - c.gold or p.res["gold"] < c.gold:
        raise illegal("cannot_afford", "not enough grain or gold")
    steps = 1 + c.extra
    frm = p.religion
    to = min(data.RELIGION_END, frm + steps)
    symbols = [m for m in data.MONK_SYMBOLS if frm < m <= to]  # R2
    sim = Sim(s, rng)
    sim.emit(
        ev.ReligionAdvanced(
            seat=seat,
            extra=c.extra,
            grain=c.extra - c.gold,
            gold=c.gold,
            from_space=frm,
            to_space=to,
            lost_steps=steps - (to - frm),  # R19
            symbols=symbols,
        )
    )
    run_queue(sim)
    return sim


def _conquistador(s: SantaMariaState, seat: int, c: cmd.Conquistador, rng: random.Random) -> Sim:
    _pending(s, "conquistador")
    if not (_is_int(c.extra) and 0 <= c.extra <= 1):
        raise _bad("extra is 0 or 1")
    p = s.players[seat]
    if p.coins < data.CAPTAIN_COST * c.extra:
        raise illegal("cannot_afford", "the Captain's step costs 2 coins")
    sim = Sim(s, rng)
    conquistador_action(sim, seat, c.extra)
    run_queue(sim)
    return sim


def _recruit(s: SantaMariaState, seat: int, c: cmd.Recruit, rng: random.Random) -> Sim:
    _pending(s, "recruit")
    if c.space not in s.monks:
        raise _bad(f"no monk space {c.space!r}")
    if seat in s.monks[c.space]:
        raise illegal("space_taken", "you already have a monk there")
    p = s.players[seat]
    payments = recruit_fee(s, seat, c.space)
    if p.coins < sum(n for _, n in payments):  # R20: the full payment at that moment
        raise illegal("cannot_afford", "not enough coins to pay the occupants")
    sim = Sim(s, rng)
    sim.emit(ev.MonkRecruited(seat=seat, space=c.space, payments=payments))
    if c.space in data.MISSIONS:
        gain_reward(sim, seat, data.MISSIONS[c.space][1], "mission")
    run_queue(sim)
    return sim


def _place_road(s: SantaMariaState, seat: int, c: cmd.PlaceRoad, rng: random.Random) -> Sim:
    _pending(s, "road")
    i = _check_rc(c.row, c.col)
    if s.players[seat].cells[i] != data.EMPTY:
        raise illegal("bad_placement", "a road tile covers one empty cell (R16)")
    sim = Sim(s, rng)
    sim.emit(ev.RoadPlaced(seat=seat, row=c.row, col=c.col))
    run_queue(sim)
    return sim


DECLINABLE = ("trade", "ship", "recruit", "road")


def _decline(s: SantaMariaState, seat: int, c: cmd.Decline, rng: random.Random) -> Sim:
    if s.pending is None or s.pending.kind not in DECLINABLE:
        raise illegal("wrong_phase", "nothing to decline (answer religion/conquistador with 0)")
    sim = Sim(s, rng)
    sim.emit(ev.Declined(seat=seat, decision=s.pending.kind))
    run_queue(sim)
    return sim


# end of turn and year


def _next_seat(s: SantaMariaState) -> int:
    for k in range(1, s.seats + 1):
        seat = (s.active + k) % s.seats
        if not s.players[seat].retired:
            return seat
    return -1


def conquistador_ranking(s: SantaMariaState) -> list[int]:
    """R5: by space, then by stack height (the later arrival ranks ahead)."""
    return sorted(
        range(s.seats),
        key=lambda i: (s.players[i].conquistador, s.players[i].conq_arrival),
        reverse=True,
    )


def _end_turn(s: SantaMariaState, seat: int, c: cmd.EndTurn, rng: random.Random) -> Sim:
    if s.pending is not None:
        raise illegal("decision_pending", f"answer the {s.pending.kind} decision first")
    if not s.main_done:
        raise illegal("no_main_action_yet", "take a main action first")
    sim = Sim(s, rng)
    nxt = _next_seat(s)
    sim.emit(ev.TurnEnded(seat=seat, next=nxt))
    if nxt == -1:
        _end_year(sim)
    return sim


def conquistador_points(s: SantaMariaState, order: list[int], year: int) -> list[int]:
    """Each seat's year-end conquistador points for the ranking `order` in `year`."""
    n = s.seats
    table = data.CONQUISTADOR_TABLE[n][year]
    points = [0] * n
    for rank, seat in enumerate(order):
        # The last rank and non-actors score 0; nobody moves up (R5, R6).
        if rank < n - 1 and rank < len(table) and s.players[seat].conq_acted:
            points[seat] = table[rank]
    return points


def _end_year(sim: Sim) -> None:
    s = sim.s
    n = s.seats
    order = conquistador_ranking(s)
    points = conquistador_points(s, order, s.year)
    sim.emit(ev.ConquistadorScored(year=s.year, order=order, points=points))
    if s.year >= data.YEARS:
        from domain.santa_maria.scoring import final_scores

        sim.emit(
            ev.GameEnded(
                scores=final_scores(s),
                ship_stack=list(s.ship_stack),
                doubles=list(s.double_stack),
                triples=list(s.triple_stack),
            )
        )
        return
    new_start = s.retire_order[0]  # R7
    year = s.year + 1
    sim.emit(ev.YearCleanedUp(year=s.year))
    k = data.DISPLAY_PER_KIND
    sim.emit(
        ev.DisplayDealt(
            year=year,
            doubles=s.double_stack[:k],
            triples=s.triple_stack[:k],
            discarded=s.display_doubles + s.display_triples,
        )
    )
    rng = sim.rng
    faces = sorted(rng.randint(1, 6) for _ in range(data.DICE_PER_PLAYER * n))
    sim.emit(ev.WhiteDiceRolled(year=year, faces=faces))
    rolls = []
    for k2 in range(n):  # R9: seat order from the new start player, dice by index
        seat = (new_start + k2) % n
        for index in range(1, len(s.players[seat].blue) + 1):
            rolls.append([seat, index, rng.randint(1, 6)])
    sim.emit(ev.BlueDiceRolled(year=year, rolls=rolls))
    sim.emit(ev.YearStarted(year=year, start_player=new_start))


_HANDLERS: dict[type, Callable[[SantaMariaState, int, Any, random.Random], Sim]] = {
    cmd.Expand: _expand,
    cmd.ActivateBuilding: _activate_building,
    cmd.ActivateDie: _activate_die,
    cmd.Retire: _retire,
    cmd.Sell: _sell,
    cmd.Buy: _buy,
    cmd.Alchemy: _alchemy,
    cmd.Trade: _trade,
    cmd.Ship: _ship,
    cmd.Religion: _religion,
    cmd.Conquistador: _conquistador,
    cmd.Recruit: _recruit,
    cmd.PlaceRoad: _place_road,
    cmd.Decline: _decline,
    cmd.EndTurn: _end_turn,
}


# --- legal commands -----------------------------------------------------------------------------


def awaiting(s: SantaMariaState) -> list[int]:
    return [s.active] if s.phase in ("draft", "play") and s.active >= 0 else []


# Commands made once and shared between legal lists (commands are frozen).
ACTIVATE_BUILDING = [cmd.ActivateBuilding(row=r, col=c) for r, c in CELL_RC]  # by cell
WHITE_DIE = {
    (face, v): cmd.ActivateDie(die="white", face=face, value=v)
    for face in range(1, 7)
    for v in range(1, 7)
}
BLUE_DIE = {
    (index, v): cmd.ActivateDie(die="blue", index=index, value=v)
    for index in range(1, data.MAX_BLUE_DICE + 1)
    for v in range(1, 7)
}


@cache
def _counted(kind: type, resource: str, top: int) -> tuple[Any, ...]:
    """`kind(resource=resource, count=n)` for n = 1..top, made once."""
    return tuple(kind(resource=resource, count=n) for n in range(1, top + 1))


def free_actions(s: SantaMariaState, p: PlayerState) -> list[Any]:
    out: list[Any] = []
    res = p.res
    for r in data.RESOURCES:
        if res[r] > 0:
            out += _counted(cmd.Sell, r, res[r])
    limit = storage_limit(p)
    for r, price in data.BUY_PRICE.items():
        top = min(p.coins // price, limit - res[r])
        if top > 0:
            out += _counted(cmd.Buy, r, top)
    if "SC10" in p.scholars and not p.alchemy_used:
        for pay in data.COST_KINDS:
            if p.res[pay] >= 1:
                out.extend(cmd.Alchemy(pay=pay, gain=g) for g in data.COST_KINDS if g != pay)
    return out


def expand_commands(s: SantaMariaState, p: PlayerState) -> list[Any]:
    out: list[Any] = []
    payments_by_kind: dict[str, list[list[str]]] = {}  # the cost depends on the kind only
    cells_by_shape: dict[str, list[list[list[int]]]] = {}
    for tile in s.display_doubles + s.display_triples:
        kind = data.tile_kind(tile)
        if kind not in payments_by_kind:
            payments_by_kind[kind] = expansion_payments(p, expansion_cost(p, tile))
        payments = payments_by_kind[kind]
        if not payments:
            continue
        shape = data.TILES[tile][0]
        if shape not in cells_by_shape:
            placements = legal_placements(p, tile)
            cells_by_shape[shape] = [[CELL_RC[i] for i in pl] for pl in placements]
        out += [
            cmd.Expand(tile=tile, cells=cells, gold_for=g)
            for cells in cells_by_shape[shape]
            for g in payments
        ]
    return out


def activation_commands(s: SantaMariaState, p: PlayerState) -> list[Any]:
    out: list[Any] = []
    # unoccupied_building for every cell, in one pass (the hot path of random games)
    free = [
        code not in NON_BUILDINGS and die == 0 and coins == 0
        for code, die, coins in zip(p.cells, p.die_on, p.coins_on, strict=True)
    ]
    if p.coins >= coin_activation_price(p):
        out += compress(ACTIVATE_BUILDING, free)  # listing order: row by row
    reach = change_reach(p)
    if p.white_taken < white_cap(p) and s.white_pool:
        columns = [v for v in range(1, 7) if any(map(free.__getitem__, COLUMNS[v - 1]))]
        out += [
            WHITE_DIE[face, v]
            for face in sorted(set(s.white_pool))
            for v in columns
            if abs(v - face) <= reach
        ]
    rows: list[int] | None = None
    for i, face in enumerate(p.blue):
        if p.blue_used[i] or p.blue_locked[i]:
            continue
        if rows is None:
            rows = [v for v in range(1, 7) if any(map(free.__getitem__, ROWS[v - 1]))]
        out += [BLUE_DIE[i + 1, v] for v in rows if abs(v - face) <= reach]
    return out


def decision_answers(s: SantaMariaState, p: PlayerState) -> list[Any]:
    d = s.pending
    assert d is not None
    out: list[Any] = []
    if d.kind == "trade":
        inputs, outputs = data.TRADES[d.building]
        for pay in (*inputs, "gold"):
            if p.res[pay] >= 1:
                out.extend(cmd.Trade(pay=pay, gain=g) for g in outputs)
    elif d.kind == "ship":
        for k, tile in enumerate(s.docks):
            if tile:
                out.extend(
                    cmd.Ship(dock=k + 1, gold_for=g, coins_for=cf)
                    for g, cf in ship_payments(p, tile)
                )
    elif d.kind == "religion":
        for extra in range(d.max_extra + 1):
            for gold in range(extra + 1):
                if p.res["grain"] >= extra - gold and p.res["gold"] >= gold:
                    out.append(cmd.Religion(extra=extra, gold=gold))
    elif d.kind == "conquistador":
        out.append(cmd.Conquistador(extra=0))
        if p.coins >= data.CAPTAIN_COST:
            out.append(cmd.Conquistador(extra=1))
    elif d.kind == "recruit":
        for space in data.MONK_SPACES:
            if p.seat in s.monks[space]:
                continue
            if p.coins >= sum(n for _, n in recruit_fee(s, p.seat, space)):
                out.append(cmd.Recruit(space=space))
    elif d.kind == "road":
        for i in range(36):
            if p.cells[i] == data.EMPTY:
                r, c = CELL_RC[i]
                out.append(cmd.PlaceRoad(row=r, col=c))
    if d.kind in DECLINABLE:
        out.append(cmd.Decline())
    return out


def legal_commands(s: SantaMariaState, seat: int) -> list[Any]:
    if s.phase == "draft":
        if seat != s.active:
            return []
        taken = {p.board for p in s.players}
        return [cmd.ChooseColony(board=b) for b in data.BOARD_NAMES if b not in taken]
    if s.phase != "play" or seat != s.active:
        return []
    p = s.players[seat]
    if s.pending is not None:
        return decision_answers(s, p) + free_actions(s, p)
    if not s.main_done:
        out = expand_commands(s, p) + activation_commands(s, p)
        out.extend(cmd.Retire(space=sp) for sp, who in s.retire_spaces.items() if who == -1)
        return out + free_actions(s, p)
    return [*free_actions(s, p), cmd.EndTurn()]

"""decide, legal commands and the automatic driver of Caylus.

`decision(st)` derives the one awaited decision `(seat, kind)` from the workflow fields, or
None when an automatic step is due. `legal(st, seat, kind)` lists every accepted command;
`decide` accepts exactly those. `advance` emits automatic events and applies the
single-option rule until a decision with two or more options is pending.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import islice
from operator import ge
from typing import Any

from domain.caylus import commands as cmd
from domain.caylus import data
from domain.caylus import events as ev
from domain.caylus.data import TILES
from domain.caylus.evolve import evolve
from domain.caylus.state import CaylusOptions, CaylusState, initial_state
from domain.contract import RuleError, illegal, not_your_turn

_FIELDS = ("food", "wood", "stone", "cloth", "gold")

# --- small helpers ----------------------------------------------------------------------------


def resources(
    seat: int,
    reason: str,
    deniers: int = 0,
    cubes: list[int] | tuple[int, ...] | None = None,
    prestige: int = 0,
) -> ev.ResourcesChanged:
    if cubes is None:
        return ev.ResourcesChanged(seat=seat, reason=reason, deniers=deniers, prestige=prestige)
    return ev.ResourcesChanged(
        seat=seat,
        reason=reason,
        deniers=deniers,
        food=cubes[0],
        wood=cubes[1],
        stone=cubes[2],
        cloth=cubes[3],
        gold=cubes[4],
        prestige=prestige,
    )


def _neg(v: list[int] | tuple[int, ...]) -> list[int]:
    return [-x for x in v]


def _has(held: list[int], need: list[int] | tuple[int, ...]) -> bool:
    return all(map(ge, held, need))


@cache
def _need(letters: str | tuple[str, ...]) -> tuple[int, ...]:
    """The cube vector of a cost or a batch, computed once."""
    return tuple(data.cube_vector(letters))


def _sort_cubes(cubes: list[str]) -> list[str]:
    return sorted(cubes, key=lambda c: (data.CUBE_INDEX.get(c, 99), str(c)))


def _multisets(kinds: tuple[str, ...], size: int) -> list[list[str]]:
    """Sorted multisets of `size` letters from `kinds` (in that order)."""
    if size == 0:
        return [[]]
    out: list[list[str]] = []

    def rec(start: int, acc: list[str]) -> None:
        if len(acc) == size:
            out.append(acc[:])
            return
        for i in range(start, len(kinds)):
            acc.append(kinds[i])
            rec(i, acc)
            acc.pop()

    rec(0, [])
    return out


def lose_pp(st: CaylusState, seat: int, amount: int, reason: str) -> list[Any]:
    """A PP loss floored at 0."""
    loss = min(amount, st.players[seat].pp)
    return [resources(seat, reason, prestige=-loss)] if loss else []


def gain_favours(st: CaylusState, seat: int, count: int, reason: str) -> list[Any]:
    if count <= 0:
        return []
    out: list[Any] = [ev.FavoursGained(seat=seat, count=count, reason=reason)]
    if st.options.favours == "simplified":  # 3 PP each, no table
        out.append(resources(seat, "favour", prestige=3 * count))
    return out


def residences_of(st: CaylusState, seat: int) -> list[int]:
    return [s for s in data.ROAD_SPACES if st.tiles[s] == "residence" and st.owners[s] == seat]


def lowest_empty_site(st: CaylusState) -> int:
    for s in data.BUILDING_SITES:
        if not st.tiles[s]:
            return s
    return 0


def room(st: CaylusState) -> int:
    """Free castle spaces in sections not yet scored."""
    return sum(data.SECTION_SIZE[i] - len(st.sections[i]) for i in range(3) if not st.scored[i])


def batch_section(st: CaylusState) -> int:
    for i in range(3):
        if not st.scored[i] and len(st.sections[i]) < data.SECTION_SIZE[i]:
            return i
    return -1


def holds_batch(cubes: list[int]) -> bool:
    return any(_has(cubes, _need(b)) for b in data.BATCHES)


def tile_pp(st: CaylusState, tile: str) -> int:
    if tile == "lawyer":
        return st.options.lawyer_prestige  # R7
    return TILES[tile].pp


# --- placement -------------------------------------------------------------------------


def placement_targets(st: CaylusState, seat: int, for_gate: bool = False) -> list[int | str]:
    return list(_targets(st, seat, for_gate))


def _targets(st: CaylusState, seat: int, for_gate: bool) -> Iterator[int | str]:
    """The free targets in listing order, as they come (`advance` reads one)."""
    tiles, workers = st.tiles, st.workers
    for s in data.ROAD_SPACES:
        if workers[s] < 0 and _WORKABLE.get(tiles[s], False):
            yield s
    yield from _named_targets(st, seat, for_gate)


def _is_target(st: CaylusState, seat: int, t: int | str) -> bool:
    """`t in placement_targets(st, seat)`, without listing the road."""
    if isinstance(t, int):
        return t in data.ROAD_SPACES and st.workers[t] < 0 and _WORKABLE.get(st.tiles[t], False)
    return t in _named_targets(st, seat, False)


def _named_targets(st: CaylusState, seat: int, for_gate: bool) -> Iterator[str]:
    if not for_gate and st.gate < 0:
        yield "gate"
    if st.trading_post < 0:
        yield "trading_post"
    if st.merchants_guild < 0:
        yield "merchants_guild"
    if st.joust_field < 0:
        yield "joust_field"
    if st.seats > 2 and len(st.stables) < 3 and seat not in st.stables:
        yield "stables"
    if st.inn_left < 0:
        yield "inn"
    if seat not in st.castle_workers:
        yield "castle"


_WORKABLE = {t: info.family in data.WORKABLE_FAMILIES for t, info in TILES.items()}


def _base_cost(st: CaylusState, seat: int) -> int:
    """The cost of any target that is not the player's own building (R24)."""
    if st.inn_right == seat:
        return 1
    if st.seats == 2:
        return 3 if st.passing else 1
    return 1 + len(st.passing)


def placement_cost(st: CaylusState, seat: int, target: int | str) -> int:
    if st.inn_right == seat:  # R24
        return 1
    if isinstance(target, int) and st.owners[target] == seat:
        return 1
    if st.seats == 2:
        return 3 if st.passing else 1
    return 1 + len(st.passing)


def _owner_pp(st: CaylusState, seat: int, target: int | str) -> list[Any]:
    if isinstance(target, int):
        owner = st.owners[target]
        if owner >= 0 and owner != seat:
            return [resources(owner, "owner_bonus", prestige=1)]
    return []


# --- builds (carpenter, mason, architect, lawyer and favour row d) ----------------------------


def wood_builds(st: CaylusState, seat: int, favour: bool) -> list[tuple[str, str]]:
    """(tile, any_cube) pairs the player can build now; favour d2 pays one W less."""
    if not lowest_empty_site(st):  # R21
        return []
    held = st.players[seat].cubes
    out: list[tuple[str, str]] = []
    for tile in data.WOOD_TILES:
        if tile not in st.stock:
            continue
        cost = list(TILES[tile].cost)
        if favour:
            cost.remove("W")
        if "X" in cost:
            cost.remove("X")
            for x in data.CUBES:
                if _has(held, _need((*cost, x))):
                    out.append((tile, x))
        elif _has(held, _need(tuple(cost))):
            out.append((tile, "none"))
    return out


def stone_builds(st: CaylusState, seat: int, favour: bool) -> list[str]:
    if not lowest_empty_site(st):
        return []
    held = st.players[seat].cubes
    out: list[str] = []
    seen: set[str] = set()
    for tile in st.stock:
        if tile in seen or TILES[tile].family != "stone":
            continue
        seen.add(tile)
        cost = list(TILES[tile].cost)
        if favour:
            cost.remove("S")
        if _has(held, _need(tuple(cost))):
            out.append(tile)
    out.sort(key=lambda t: _STONE_ORDER[t])
    return out


_STONE_ORDER = {t: i for i, t in enumerate((*data.STONE_TILES_BASE, "jeweller"))}


def prestige_builds(st: CaylusState, seat: int) -> list[tuple[str, int]]:
    homes = residences_of(st, seat)
    if not homes:
        return []
    held = st.players[seat].cubes
    out: list[tuple[str, int]] = []
    for tile in data.PRESTIGE_TILES:
        if tile in st.stock and _has(held, _need(TILES[tile].cost)):
            out.extend((tile, r) for r in homes)
    return out


def transform_targets(st: CaylusState, seat: int) -> list[int]:
    """R9: neutral tiles, own wood/stone tiles except a lawyer; not already pending."""
    out = []
    for s in data.ROAD_SPACES:
        t = st.tiles[s]
        if not t or s in st.pending_transform:
            continue
        fam = TILES[t].family
        if fam == "neutral" or (
            fam in ("wood", "stone") and st.owners[s] == seat and t != "lawyer"
        ):
            out.append(s)
    return out


def build_events(
    st: CaylusState, seat: int, tile: str, any_cube: str, discount: str, reason: str
) -> list[Any]:
    """Build a wood or stone tile on the lowest empty site."""
    cost = list(TILES[tile].cost)
    if discount:
        cost.remove(discount)
    if "X" in cost:
        cost[cost.index("X")] = any_cube
    site = lowest_empty_site(st)
    out: list[Any] = [
        ev.TileBuilt(seat=seat, space=site, tile=tile),
        resources(seat, reason, cubes=_neg(data.cube_vector(cost)), prestige=tile_pp(st, tile)),
    ]
    out += gain_favours(st, seat, TILES[tile].favours, "build")
    return out


def prestige_events(st: CaylusState, seat: int, tile: str, space: int, reason: str) -> list[Any]:
    info = TILES[tile]
    out: list[Any] = [
        ev.TileBuilt(seat=seat, space=space, tile=tile, replaced="residence"),
        resources(seat, reason, cubes=_neg(data.cube_vector(info.cost)), prestige=info.pp),
    ]
    out += gain_favours(st, seat, info.favours, "build")
    return out


def transform_events(st: CaylusState, seat: int, space: int) -> list[Any]:
    """The swap now, or pending while a worker stands on the target (R8)."""
    if st.workers[space] >= 0:
        return [ev.TransformationScheduled(seat=seat, space=space)]
    return [
        ev.Transformed(seat=seat, space=space, removed=st.tiles[space]),
        resources(seat, "residence", prestige=2),
    ]


# --- the awaited decision -------------------------------------------------------------------


def current_space(st: CaylusState) -> int:
    """Phase 5: the next road space to activate (workers up to the provost), or 0."""
    workers = st.workers
    for s in range(st.cursor + 1, min(st.provost, 28) + 1):
        if workers[s] >= 0:
            return s
    return 0


def decision(st: CaylusState) -> tuple[int, str] | None:
    phase = st.phase
    if phase in (0, 1, 8):
        return None
    for p in st.players:  # favours are resolved before anything else proceeds
        if p.pending_favours > 0:
            if all(p.rows_used):
                return None  # lost, automatically
            return (p.seat, "favour")
    if phase == 2:
        return (st.actor, "place") if st.actor >= 0 else None
    if phase == 3:
        if st.gate >= 0:
            return (st.gate, "gate")
        if st.trading_post >= 0:
            return None
        if st.merchants_guild >= 0:
            return (st.merchants_guild, "guild")
        if st.joust_field >= 0:
            return (st.joust_field, "joust")
        if st.stables:
            return None
        if st.stage == 0 and st.inn_left < 0 and st.inn_right >= 0:
            return (st.inn_right, "inn")
        return None
    if phase == 4:
        return (st.passing[st.stage], "provost") if st.stage < len(st.passing) else None
    if phase == 5:
        if st.stage == 0:
            if _due_transformation(st):
                return None
            s = current_space(st)
            return (st.workers[s], "activate") if s else None
        if st.stage == 1:
            return (st.owners[st.cursor], "owner_bonus")
        return None
    if phase == 6:
        if st.stage < len(st.castle_workers):
            return (st.castle_workers[st.stage], "castle")
        return None
    return None


def _due_transformation(st: CaylusState) -> int:
    """A pending transformation whose space no longer holds a worker (lowest first)."""
    if not st.pending_transform:
        return 0
    free = [s for s in st.pending_transform if st.workers[s] < 0]
    return min(free) if free else 0


# --- legal commands -------------------------------------------------------------------------


def _deltas(st: CaylusState, budget: int) -> list[int]:
    return [d for d in data.PROVOST_DELTAS if abs(d) <= budget and 1 <= st.provost + d <= 28]


_PASS = cmd.Pass()


# Every placement command, made once (commands are frozen).
_PLACE_WORKER: dict[int | str, Any] = {
    t: cmd.PlaceWorker(target=t) for t in [*data.ROAD_SPACES, *data.PLACE_TARGETS_NAMED]
}


def legal(st: CaylusState, seat: int, kind: str) -> list[Any]:
    if kind == "place":  # the most frequent decision, listed without a generator per command
        return [_PASS, *map(_PLACE_WORKER.__getitem__, _placement_targets(st, seat))]
    return list(_choices(st, seat, kind))


def _placements(st: CaylusState, seat: int) -> Iterator[Any]:
    yield _PASS
    for t in _placement_targets(st, seat):
        yield _PLACE_WORKER[t]


def _placement_targets(st: CaylusState, seat: int) -> Iterator[int | str]:
    """The targets `seat` can place a worker on now and pay for."""
    p = st.players[seat]
    if p.available <= 0 or p.deniers <= 0:
        return iter(())
    if _base_cost(st, seat) > p.deniers:  # R24: the own buildings cost 1
        return (t for t in _targets(st, seat, False) if _owned(st, seat, t))
    return _targets(st, seat, False)


def _owned(st: CaylusState, seat: int, t: int | str) -> bool:
    return isinstance(t, int) and st.owners[t] == seat


def _is_placement(st: CaylusState, seat: int, c: Any) -> bool:
    """`c in _placements(st, seat)`, checked directly (`decide`'s check of the most frequent
    decision)."""
    if type(c) is cmd.Pass:
        return True
    p = st.players[seat]
    if p.available <= 0 or p.deniers <= 0 or not _is_target(st, seat, c.target):
        return False
    return _base_cost(st, seat) <= p.deniers or _owned(st, seat, c.target)


def _choices(st: CaylusState, seat: int, kind: str) -> Iterable[Any]:
    """The commands `legal` lists, in order: an iterator for placements (the most frequent
    decision), so that `advance` stops after two."""
    p = st.players[seat]
    if kind == "place":
        return _placements(st, seat)
    if kind == "gate":
        return [cmd.GateMove(target="none")] + [
            cmd.GateMove(target=t) for t in placement_targets(st, seat, for_gate=True)
        ]
    if kind == "guild":
        return [cmd.GuildMove(delta=d) for d in _deltas(st, 3)]
    if kind == "joust":
        out: list[Any] = [cmd.Joust(accept=False)]
        if p.deniers >= 1 and p.cubes[data.C] >= 1:
            out.append(cmd.Joust(accept=True))
        return out
    if kind == "inn":
        return [cmd.InnChoice(stay=True), cmd.InnChoice(stay=False)]
    if kind == "provost":
        return [cmd.ProvostMove(delta=d) for d in _deltas(st, p.deniers)]
    if kind == "activate":
        return _legal_activation(st, seat, current_space(st))
    if kind == "owner_bonus":
        return [cmd.OwnerBonus(cube=c) for c in data.OWNER_BONUS[st.tiles[st.cursor]]]
    if kind == "castle":
        out = [cmd.CastleDone()]
        if room(st) > 0:
            for b in data.BATCHES:
                if _has(p.cubes, _need(b)):
                    out.append(cmd.CastleBatch(batch=b))
        return out
    if kind == "favour":
        return _legal_favours(st, seat)
    return []


def _legal_activation(st: CaylusState, seat: int, space: int) -> list[Any]:
    tile = st.tiles[space]
    info = TILES[tile]
    p = st.players[seat]
    kind = info.kind
    if kind == "production":
        return [cmd.Produce(option=o) for o in data.PRODUCTION[tile]]
    if kind == "market":
        return [cmd.Sell(cube="none")] + [
            cmd.Sell(cube=c) for i, c in enumerate(data.CUBES) if p.cubes[i] > 0
        ]
    if kind == "peddler":
        most, price = data.PEDDLER[tile]
        out: list[Any] = [cmd.Buy(cubes=[])]
        for k in range(1, most + 1):
            if k * price <= p.deniers:
                out.extend(cmd.Buy(cubes=m) for m in _multisets(data.NON_GOLD, k))
        return out
    if kind == "construction":
        if tile == "mason":
            return [cmd.Build(tile="none")] + [
                cmd.Build(tile=t) for t in stone_builds(st, seat, favour=False)
            ]
        if tile == "architect":
            return [cmd.BuildPrestige(tile="none")] + [
                cmd.BuildPrestige(tile=t, residence_space=r) for t, r in prestige_builds(st, seat)
            ]
        return [cmd.Build(tile="none")] + [
            cmd.Build(tile=t, any_cube=x) for t, x in wood_builds(st, seat, favour=False)
        ]
    if kind == "lawyer":
        out = [cmd.Transform(target_space=0)]
        if p.deniers >= 1 and p.cubes[data.C] >= 1:
            out.extend(cmd.Transform(target_space=s) for s in transform_targets(st, seat))
        return out
    if kind == "exchange":
        out = [cmd.Exchange(option="none")]
        if tile == "alchemist":
            for option, (give, _gold) in data.ALCHEMIST.items():
                for m in _multisets(data.NON_GOLD, give):
                    if _has(p.cubes, _need(tuple(m))):
                        out.append(cmd.Exchange(option=option, cubes=m))
            return out
        for option, (d, cubes, _pp, _gain) in data.EXCHANGE[tile].items():
            if p.deniers >= d and _has(p.cubes, cubes):
                out.append(cmd.Exchange(option=option))
        return out
    return []


def _advanced_marker(st: CaylusState, seat: int, row: int) -> int:
    m = st.players[seat].markers[row]
    return m + 1 if m < st.cap() else m


def _legal_favours(st: CaylusState, seat: int) -> list[Any]:
    p = st.players[seat]
    out: list[Any] = []
    for r, row in enumerate(data.ROWS):
        if p.rows_used[r]:
            continue
        k = _advanced_marker(st, seat, r)
        if row in ("a", "b"):  # R16
            out.append(cmd.Favour(row=row, column=k))
            continue
        out.append(cmd.Favour(row=row, column=0))
        if row == "c":
            out.append(cmd.Favour(row="c", column=1))
            if k >= 2:
                for cube in data.FAVOUR_C2_CUBES:
                    out.append(cmd.Favour(row="c", column=2, cube=cube))
            if k >= 3:
                out.append(cmd.Favour(row="c", column=3))
            if k >= 4:
                for i, give in enumerate(data.CUBES):  # R4: gold may be given
                    if p.cubes[i] > 0:
                        for take in _multisets(data.NON_GOLD, 2):
                            out.append(cmd.Favour(row="c", column=4, give=give, take=take))
            if k >= 5:
                out.append(cmd.Favour(row="c", column=5))
        else:
            out.append(cmd.Favour(row="d", column=1))
            if k >= 2:
                for t, x in wood_builds(st, seat, favour=True):
                    out.append(cmd.Favour(row="d", column=2, tile=t, any_cube=x))
            if k >= 3:
                for t in stone_builds(st, seat, favour=True):
                    out.append(cmd.Favour(row="d", column=3, tile=t))
            if k >= 4 and p.cubes[data.C] >= 1:
                for s in transform_targets(st, seat):
                    out.append(cmd.Favour(row="d", column=4, target_space=s))
            if k >= 5:
                for t, s in prestige_builds(st, seat):
                    out.append(cmd.Favour(row="d", column=5, tile=t, residence_space=s))
    return out


# --- applying a chosen command ---------------------------------------------------------------


def apply(st: CaylusState, seat: int, kind: str, c: Any, auto: bool) -> list[Any]:
    """Events of a legal command `c` (the state is only read)."""
    p = st.players[seat]
    if kind == "place":
        if isinstance(c, cmd.Pass):
            pos = len(st.passing) + 1
            out: list[Any] = [ev.Passed(seat=seat, position=pos, auto=auto)]
            if pos == 1:
                out.append(resources(seat, "first_to_pass", deniers=1))
            return out
        cost = placement_cost(st, seat, c.target)
        return [
            ev.WorkerPlaced(seat=seat, target=c.target, cost=cost, auto=auto),
            resources(seat, "placement", deniers=-cost),
            *_owner_pp(st, seat, c.target),
        ]
    if kind == "gate":
        out = [ev.GateMoved(seat=seat, target=c.target, auto=auto)]
        if c.target != "none":
            out += _owner_pp(st, seat, c.target)
        return out
    if kind == "guild":
        return [
            ev.ProvostMoved(
                seat=seat,
                delta=c.delta,
                position=st.provost + c.delta,
                source="merchants_guild",
                auto=auto,
            )
        ]
    if kind == "joust":
        out = [ev.JoustResolved(seat=seat, accepted=c.accept, auto=auto)]
        if c.accept:
            out.append(resources(seat, "joust_field", deniers=-1, cubes=(0, 0, 0, -1, 0)))
            out += gain_favours(st, seat, 1, "joust_field")
        return out
    if kind == "inn":
        return [ev.InnDecided(seat=seat, stay=c.stay, auto=auto)]
    if kind == "provost":
        out = [
            ev.ProvostMoved(
                seat=seat, delta=c.delta, position=st.provost + c.delta, source="bid", auto=auto
            )
        ]
        if c.delta:
            out.append(resources(seat, "provost", deniers=-abs(c.delta)))
        return out
    if kind == "activate":
        return _apply_activation(st, seat, current_space(st), c, auto)
    if kind == "owner_bonus":
        space = st.cursor
        return [
            ev.OwnerBonusTaken(seat=seat, space=space, cube=c.cube, auto=auto),
            resources(seat, "owner_bonus", cubes=data.cube_vector(c.cube)),
        ]
    if kind == "castle":
        if isinstance(c, cmd.CastleBatch):
            section = batch_section(st)
            return [
                ev.BatchDelivered(seat=seat, batch=c.batch, section=section, auto=auto),
                resources(
                    seat,
                    "castle",
                    cubes=_neg(data.cube_vector(c.batch)),
                    prestige=data.SECTION_PP[section],
                ),
            ]
        out = [ev.CastleDone(seat=seat, batches=p.batches, auto=auto)]
        if p.batches == 0 and not (room(st) == 0 and holds_batch(p.cubes)):  # R13
            out += lose_pp(st, seat, 2, "castle_penalty")
        return out
    if kind == "favour":
        return _apply_favour(st, seat, c, auto)
    raise AssertionError(kind)


def _apply_activation(st: CaylusState, seat: int, space: int, c: Any, auto: bool) -> list[Any]:
    tile = st.tiles[space]
    st.players[seat]

    def act(action: ev.Action, choice: str) -> ev.Activated:
        return ev.Activated(
            seat=seat, space=space, tile=tile, action=action, choice=choice, auto=auto
        )

    if isinstance(c, cmd.Produce):
        return [
            act("produce", c.option),
            resources(seat, "production", cubes=data.PRODUCTION[tile][c.option]),
        ]
    if isinstance(c, cmd.Sell):
        if c.cube == "none":
            return [act("sell", "none")]
        return [
            act("sell", c.cube),
            resources(
                seat,
                "market",
                deniers=data.MARKET_GAIN[tile],
                cubes=_neg(data.cube_vector(c.cube)),
            ),
        ]
    if isinstance(c, cmd.Buy):
        if not c.cubes:
            return [act("buy", "none")]
        price = data.PEDDLER[tile][1] * len(c.cubes)
        return [
            act("buy", "".join(c.cubes)),
            resources(seat, "peddler", deniers=-price, cubes=data.cube_vector(c.cubes)),
        ]
    if isinstance(c, cmd.Build):
        if c.tile == "none":
            return [act("build", "none")]
        return [act("build", c.tile), *build_events(st, seat, c.tile, c.any_cube, "", "build")]
    if isinstance(c, cmd.BuildPrestige):
        if c.tile == "none":
            return [act("build_prestige", "none")]
        return [
            act("build_prestige", c.tile),
            *prestige_events(st, seat, c.tile, c.residence_space, "build"),
        ]
    if isinstance(c, cmd.Transform):
        if not c.target_space:
            return [act("transform", "none")]
        return [
            act("transform", str(c.target_space)),
            resources(seat, "lawyer", deniers=-1, cubes=(0, 0, 0, -1, 0)),
            *transform_events(st, seat, c.target_space),
        ]
    if isinstance(c, cmd.Exchange):
        if c.option == "none":
            return [act("exchange", "none")]
        if tile == "alchemist":
            gold = data.ALCHEMIST[c.option][1]
            paid = _neg(data.cube_vector(c.cubes))
            paid[data.G] += gold
            return [act("exchange", c.option), resources(seat, "exchange", cubes=paid)]
        d, cubes, pp, gain = data.EXCHANGE[tile][c.option]
        vec = [g - x for g, x in zip(gain, cubes, strict=False)]
        return [
            act("exchange", c.option),
            resources(seat, "exchange", deniers=-d, cubes=vec, prestige=pp),
        ]
    raise AssertionError(c)


def _apply_favour(st: CaylusState, seat: int, c: cmd.Favour, auto: bool) -> list[Any]:
    r = data.ROW_INDEX[c.row]
    marker = _advanced_marker(st, seat, r)
    out: list[Any] = [
        ev.FavourTaken(seat=seat, row=c.row, marker=marker, column=c.column, auto=auto)
    ]
    k = c.column
    if c.row == "a":
        out.append(resources(seat, "favour", prestige=k))
    elif c.row == "b":
        out.append(resources(seat, "favour", deniers=k + 2))
    elif c.row == "c":
        if k == 1:
            out.append(resources(seat, "favour", cubes=data.cube_vector("F")))
        elif k == 2:
            out.append(resources(seat, "favour", cubes=data.cube_vector(c.cube)))
        elif k == 3:
            out.append(resources(seat, "favour", cubes=data.cube_vector("C")))
        elif k == 4:
            vec = data.cube_vector(c.take)
            vec[data.CUBE_INDEX[c.give]] -= 1
            out.append(resources(seat, "favour", cubes=vec))
        elif k == 5:
            out.append(resources(seat, "favour", cubes=data.cube_vector("G")))
    else:
        if k == 2:
            out += build_events(st, seat, c.tile, c.any_cube, "W", "favour")
        elif k == 3:
            out += build_events(st, seat, c.tile, "none", "S", "favour")
        elif k == 4:
            out.append(resources(seat, "favour", cubes=(0, 0, 0, -1, 0)))
            out += transform_events(st, seat, c.target_space)
        elif k == 5:
            out += prestige_events(st, seat, c.tile, c.residence_space, "favour")
    return out


# --- automatic steps --------------------------------------------------------------------------


def income(st: CaylusState, seat: int) -> int:
    """2 d + 1 per residence + Library 1 + Hotel 2."""
    total = 2
    for s in data.ROAD_SPACES:
        if st.owners[s] == seat:
            total += TILES[st.tiles[s]].income
    return total


def automatic(st: CaylusState) -> list[Any]:
    """The automatic events due now (called only when `decision(st)` is None)."""
    phase = st.phase
    for p in st.players:
        if p.pending_favours > 0:
            return [ev.FavourLost(seat=p.seat)]  # every row used this phase
    if phase == 1:
        out: list[Any] = [resources(seat, "income", deniers=income(st, seat)) for seat in st.order]
        return [*out, ev.PhaseStarted(phase=2)]
    if phase == 2:
        return [ev.PhaseStarted(phase=3)]
    if phase == 3:
        if st.trading_post >= 0:
            seat = st.trading_post
            return [ev.TradingPostUsed(seat=seat), resources(seat, "trading_post", deniers=3)]
        if st.stables:
            rest = [s for s in st.order if s not in st.stables]
            return [ev.StablesResolved(circles=st.stables[:], order=st.stables + rest)]
        if st.stage == 0 and st.inn_left >= 0:
            return [ev.InnResolved(moved=st.inn_left, returned=st.inn_right)]
        return [ev.PhaseStarted(phase=4)]
    if phase == 4:
        return [ev.PhaseStarted(phase=5)]
    if phase == 5:
        due = _due_transformation(st)
        if due:
            return transform_events(st, st.pending_transform[due], due)
        if st.stage == 2:
            return [ev.WorkerReturned(seat=st.workers[st.cursor], space=st.cursor)]
        if st.stage == 0:
            beyond = [s for s in data.ROAD_SPACES if s > st.provost and st.workers[s] >= 0]
            return [ev.SweepEnded(returned=beyond)]
        return [ev.PhaseStarted(phase=6)]
    if phase == 6:
        if st.stage == 99:
            return [ev.PhaseStarted(phase=7)]
        best, most = -1, 0
        for seat in st.castle_workers:  # ties: the lowest castle space
            if st.players[seat].batches > most:
                best, most = seat, st.players[seat].batches
        out = [ev.CastleResolved(best_builder=best)]
        if best >= 0:
            out += gain_favours(st, best, 1, "best_builder")
        return out
    if phase == 7:
        if st.stage == 0:
            bailiff = st.bailiff + (2 if st.provost > st.bailiff else 1)
            return [ev.BailiffMoved(bailiff=bailiff, provost=bailiff)]
        if st.scoring >= 0:
            sec = st.scoring
            if st.score_index < st.seats:
                seat = st.order[st.score_index]
                houses = st.sections[sec].count(seat)
                favours = data.section_favours(sec, houses)
                out = [ev.SectionScored(seat=seat, section=sec, houses=houses, favours=favours)]
                if houses == 0:
                    out += lose_pp(st, seat, data.SECTION_PENALTY[sec], "scoring_penalty")
                out += gain_favours(st, seat, favours, data.SECTIONS[sec])
                return out
            return [ev.SectionClosed(section=sec)]
        for sec in range(3):  # R1: each qualifying section, in order
            if not st.scored[sec] and (
                st.bailiff >= data.SECTION_TRIGGER[sec]
                or len(st.sections[sec]) >= data.SECTION_SIZE[sec]
            ):
                return [ev.SectionScoringStarted(section=sec)]
        if st.scored[2]:
            return final_events(st)
        order = st.order[::-1] if st.seats == 2 else st.order[:]
        return [ev.TurnEnded(turn=st.turn, order=order), ev.TurnStarted(turn=st.turn + 1)]
    raise AssertionError(f"no automatic step in phase {phase}")


def end_bonus(cubes: list[int], deniers: int) -> int:
    """3 PP per gold, 1 per 3 other cubes, 1 per 4 d."""
    return 3 * cubes[data.G] + sum(cubes[:4]) // 3 + deniers // 4


def final_events(st: CaylusState) -> list[Any]:
    out: list[Any] = []
    scores = []
    for p in st.players:
        bonus = end_bonus(p.cubes, p.deniers)
        if bonus:
            out.append(resources(p.seat, "final_bonus", prestige=bonus))
        scores.append(p.pp + bonus)
    out.append(ev.GameEnded(scores=scores))
    return out


def advance(st: CaylusState, out: list[Any]) -> None:
    """Run automatic steps and single-option decisions until a real decision or the end."""
    while st.phase != 8:
        dec = decision(st)
        if dec is not None:
            seat, kind = dec
            first_two = list(islice(_choices(st, seat, kind), 2))
            if len(first_two) != 1:
                return
            new = apply(st, seat, kind, first_two[0], True)
        else:
            new = automatic(st)
        for e in new:
            evolve(st, e)
            out.append(e)


# --- set-up and decide ------------------------------------------------------------------------


def setup(options: CaylusOptions, seats: int, rng: random.Random) -> list[Any]:
    order = list(range(seats))
    rng.shuffle(order)
    neutral = list(data.NEUTRAL_TILES)
    rng.shuffle(neutral)
    stock = list(data.WOOD_TILES)
    for t in data.STONE_TILES_BASE:
        stock.append(t)
        if t == "architect":
            stock.append(t)  # two copies
    if options.jeweller:
        stock.append("jeweller")
    stock += list(data.PRESTIGE_TILES)
    st = initial_state(options, seats)
    out: list[Any] = [ev.TurnOrderDrawn(order=order), ev.RoadSetUp(neutral=neutral, stock=stock)]
    for pos, seat in enumerate(order):
        out.append(
            resources(
                seat, "start", deniers=data.STARTING_DENIERS[seats][pos], cubes=data.STARTING_CUBES
            )
        )
    out.append(ev.TurnStarted(turn=1))
    for e in out:
        evolve(st, e)
    advance(st, out)
    return out


_KIND_COMMANDS: dict[str, tuple[type, ...]] = {
    "place": (cmd.PlaceWorker, cmd.Pass),
    "gate": (cmd.GateMove,),
    "guild": (cmd.GuildMove,),
    "joust": (cmd.Joust,),
    "inn": (cmd.InnChoice,),
    "provost": (cmd.ProvostMove,),
    "owner_bonus": (cmd.OwnerBonus,),
    "castle": (cmd.CastleBatch, cmd.CastleDone),
    "favour": (cmd.Favour,),
}
_ACTIVATION_COMMAND = {
    "production": cmd.Produce,
    "market": cmd.Sell,
    "peddler": cmd.Buy,
    "lawyer": cmd.Transform,
    "exchange": cmd.Exchange,
}


def expected_commands(st: CaylusState, kind: str) -> tuple[type, ...]:
    if kind != "activate":
        return _KIND_COMMANDS[kind]
    tile = st.tiles[current_space(st)]
    k = TILES[tile].kind
    if k == "construction":
        return (cmd.BuildPrestige,) if tile == "architect" else (cmd.Build,)
    return (_ACTIVATION_COMMAND[k],)


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "target": (int, str),
    "delta": (int,),
    "target_space": (int,),
    "residence_space": (int,),
    "column": (int,),
    "accept": (bool,),
    "stay": (bool,),
    "cubes": (list,),
    "take": (list,),
}


def well_typed(c: Any) -> bool:
    """Exact parameter types (True is not 1, 1.0 is not 1): events must re-encode as sent."""
    for name in c.__struct_fields__:
        value = getattr(c, name)
        allowed = _FIELD_TYPES.get(name, (str,))
        if type(value) not in allowed:
            return False
        if type(value) is list and any(type(x) is not str for x in value):
            return False
    return True


def normalize(c: Any) -> Any:
    """Canonical order of multiset parameters (cubes lists are compared sorted)."""
    if isinstance(c, cmd.Buy) and isinstance(c.cubes, list):
        return cmd.Buy(cubes=_sort_cubes(c.cubes))
    if isinstance(c, cmd.Exchange) and isinstance(c.cubes, list):
        return cmd.Exchange(option=c.option, cubes=_sort_cubes(c.cubes))
    if isinstance(c, cmd.Favour) and isinstance(c.take, list) and len(c.take) > 1:
        import msgspec

        return msgspec.structs.replace(c, take=_sort_cubes(c.take))
    return c


def decide(st: CaylusState, seat: int, command: Any) -> list[Any]:
    return decide_evolve(st, seat, command)[0]


def decide_evolve(st: CaylusState, seat: int, command: Any) -> tuple[list[Any], CaylusState]:
    """The events of `command` and the working copy they were applied to."""
    if st.phase == 8:
        raise illegal("game_over", "the game is over")
    dec = decision(st)
    if dec is None:
        raise illegal("wrong_phase", "no decision is pending")
    dseat, kind = dec
    if seat != dseat:
        raise not_your_turn(seat)
    if not isinstance(command, expected_commands(st, kind)):
        raise illegal(
            "wrong_phase",
            f"{type(command).__name__} is not a {kind} decision",
        )
    if not well_typed(command):
        raise illegal("invalid_parameters", "malformed command parameters")
    command = normalize(command)
    listed = (
        _is_placement(st, seat, command) if kind == "place" else command in _choices(st, seat, kind)
    )
    if not listed:
        raise diagnose(st, seat, kind, command)
    work = st.working_copy()
    out = apply(work, seat, kind, command, False)
    for e in out:
        evolve(work, e)
    advance(work, out)
    return out, work


def diagnose(st: CaylusState, seat: int, kind: str, c: Any) -> RuleError:
    """A precise refusal code for a command not in the legal list."""
    p = st.players[seat]
    if isinstance(c, cmd.PlaceWorker | cmd.GateMove):
        t = c.target
        named = isinstance(t, str) and t in data.PLACE_TARGETS_NAMED
        road = isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= 28
        if not (named or road) and not (isinstance(c, cmd.GateMove) and t == "none"):
            return illegal("unknown_building", f"no location {t!r}")
        if isinstance(c, cmd.PlaceWorker):
            if p.available <= 0:
                return illegal("no_worker", "no worker available")
            if t in placement_targets(st, seat):
                return illegal("cannot_afford", "not enough deniers for this placement")
        return illegal("occupied", f"{t!r} is not a free building for this player")
    if isinstance(c, cmd.GuildMove | cmd.ProvostMove):
        if not -3 <= c.delta <= 3 or not 1 <= st.provost + c.delta <= 28:
            return illegal("out_of_range", "the provost moves -3..+3 and stays on 1..28")
        return illegal("cannot_afford", "not enough deniers to move the provost")
    if isinstance(c, cmd.Build | cmd.BuildPrestige):
        if c.tile not in TILES:
            return illegal("unknown_building", f"no tile {c.tile!r}")
        if c.tile not in st.stock:
            return illegal("not_in_stock", f"{c.tile} is not in the stock")
        return illegal("cannot_afford", f"cannot build {c.tile} like that")
    if isinstance(c, cmd.Favour):
        if c.row not in data.ROW_INDEX:
            return illegal("unknown_row", f"no favour row {c.row!r}")
        if p.rows_used[data.ROW_INDEX[c.row]]:
            return illegal("row_used", "that row was already used in this phase")
        return illegal("invalid_favour", "that favour column or effect is not available")
    if isinstance(c, cmd.CastleBatch):
        if c.batch not in data.BATCHES:
            return illegal("invalid_batch", f"no batch {c.batch!r}")
        return illegal("cannot_afford", "batch not held or no room in the castle")
    if isinstance(c, cmd.Joust | cmd.Exchange | cmd.Buy | cmd.Sell | cmd.Transform):
        return illegal("cannot_afford", "that option is not available")
    return illegal("invalid_choice", "that choice is not available")

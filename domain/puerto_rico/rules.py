"""decide and legal_commands: one section per phase or role.

`decide` validates the command against the unchanged state, then works on a copy: it emits the
command's events, applies each at once (`Ctx.emit`), and keeps running automatic steps and
forced decisions (option `auto_forced`) until a player must decide or the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement, islice, product
from typing import Any

from domain.contract import RuleError, illegal, not_your_turn
from domain.puerto_rico import commands as C
from domain.puerto_rico import events as E
from domain.puerto_rico.board import (
    SPACES,
    city_free,
    drawable,
    empty_building_circles,
    guest_targets,
    island_free,
    library_doubles,
    movable_guest,
    net_cost,
    score_breakdown,
)
from domain.puerto_rico.data import (
    BUILDING_ORDER,
    BUILDINGS,
    DRAFTABLE,
    EXCLUSIVE_PAIR,
    FACTORY_PAYOUT,
    GOOD_INDEX,
    GOODS,
    ISLAND,
    ISLAND_INDEX,
    LARGE_PRODUCER,
    NO_GUEST_TARGET,
    PRICE,
    PRODUCERS,
    QUARRY,
    SAN_JUAN,
    TRADING_HOUSE_SIZE,
    setup_for,
)
from domain.puerto_rico.evolve import HANDLERS
from domain.puerto_rico.state import Player, State


class Ctx:
    """A working copy of the state and the events emitted so far."""

    __slots__ = ("events", "rng", "s")

    def __init__(self, s: State, rng: random.Random) -> None:
        self.s = s
        self.rng = rng
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        HANDLERS[type(event)](self.s, event)


def _order_from(s: State, first: int) -> list[int]:
    return [(first + i) % s.n for i in range(s.n)]


def _next_in_phase(s: State, seat: int) -> int | None:
    """The next seat in order from the chooser, or None after the last one."""
    nxt = (seat + 1) % s.n
    return None if nxt == s.chooser else nxt


# ============================================================================ setup & draft


def setup_events(s: State, rng: random.Random) -> list[Any]:
    ctx = Ctx(s, rng)
    ctx.emit(E.GovernorChosen(seat=rng.randrange(s.n)))  # the first governor
    order = s.stack[:]
    rng.shuffle(order)
    ctx.emit(E.StackShuffled(size=len(order), order=order))
    ctx.emit(E.RowDrawn(tiles=order[: s.n + 1]))
    if s.options.expansion == "new-buildings":
        ctx.emit(E.TurnStarted(step="draft_building", seat=s.first_governor))
    else:
        _start_round(ctx)
    _advance(ctx)
    return ctx.events


def _draft_candidates(s: State) -> list[str]:
    excluded: set[str] = set(s.drafted)
    if s.options.forest_house_with_hacienda == "exclusive":
        a, b = EXCLUSIVE_PAIR
        if a in s.drafted:
            excluded.add(b)
        if b in s.drafted:
            excluded.add(a)
    return [
        b for b in DRAFTABLE if b not in excluded and s.draft_slots.get(BUILDINGS[b].slot, 0) > 0
    ]


def _legal_draft(s: State, seat: int) -> list[Any]:
    return [C.DraftBuilding(building=b) for b in _draft_candidates(s)]


def _check_draft(s: State, seat: int, cmd: C.DraftBuilding) -> None:
    if cmd.building not in BUILDINGS:
        raise illegal("unknown_building", f"no building {cmd.building!r}")
    if cmd.building not in _draft_candidates(s):
        raise illegal("not_draftable", f"{cmd.building} cannot be drafted now")


def _do_draft(ctx: Ctx, seat: int, cmd: C.DraftBuilding) -> None:
    s = ctx.s
    ctx.emit(E.BuildingDrafted(seat=seat, building=cmd.building))
    if sum(s.draft_slots.values()) > 0:
        ctx.emit(E.TurnStarted(step="draft_building", seat=(seat + 1) % s.n))
        return
    removed = [b for b in DRAFTABLE if b not in s.drafted]
    ctx.emit(E.DraftFinished(removed=removed))
    _start_round(ctx, first=True)


# ============================================================================ rounds & roles


def _start_round(ctx: Ctx, first: bool = False) -> None:
    s = ctx.s
    governor = s.first_governor if s.round == 0 else (s.governor + 1) % s.n
    ctx.emit(E.RoundStarted(round=s.round + 1, governor=governor))
    ctx.emit(E.TurnStarted(step="choose_role", seat=governor))


def _total_picks(s: State) -> int:
    return s.n * setup_for(s.n).picks_per_player


@cache
def _choose_role(role: str) -> C.ChooseRole:
    """The command made once per role (commands are frozen)."""
    return C.ChooseRole(role=role)


def _legal_roles(s: State, seat: int) -> list[Any]:
    picked = s.picked
    return [_choose_role(r) for r in s.roles if r not in picked]


def _check_role(s: State, seat: int, cmd: C.ChooseRole) -> None:
    if cmd.role not in s.roles:
        raise illegal("unknown_role", f"role {cmd.role!r} is not in this game")
    if cmd.role in s.picked:
        raise illegal("role_taken", f"{cmd.role} was already picked this round")


def _do_role(ctx: Ctx, seat: int, cmd: C.ChooseRole) -> None:
    s = ctx.s
    ctx.emit(E.RoleChosen(seat=seat, role=cmd.role, doubloons=s.roles[cmd.role]))
    START[s.phase](ctx)


def _end_phase(ctx: Ctx) -> None:
    s = ctx.s
    ctx.emit(E.PhaseEnded(role=s.role))
    if s.picks < _total_picks(s):
        ctx.emit(E.TurnStarted(step="choose_role", seat=(s.governor + s.picks) % s.n))
        return
    bonus = [r for r in s.roles if r not in s.picked]
    ctx.emit(E.RoundEnded(bonus=bonus))  # the round ends
    if not s.end_triggered:
        _start_round(ctx)
        return
    # a last guest window, unless the last phase was a mayor phase
    if s.last_phase != "mayor" and _open_window(ctx, "end"):
        return
    _finish(ctx)


def _finish(ctx: Ctx) -> None:
    s = ctx.s
    ctx.emit(E.GameEnded(scores=[score_breakdown(p)["total"] for p in s.players]))


# ============================================================================ guest house


def _open_window(ctx: Ctx, before: E.Before) -> bool:
    s = ctx.s
    seats = [seat for seat in _order_from(s, max(s.chooser, 0)) if movable_guest(s, seat)]
    if not seats:
        return False
    ctx.emit(E.GuestWindowOpened(seats=seats, before=before))
    return True


def _legal_guest_moves(s: State, seat: int) -> list[Any]:
    if not movable_guest(s, seat):
        return []
    return [C.MoveGuest(to=t) for t in guest_targets(s.players[seat])]


def _check_move_guest(s: State, seat: int, cmd: C.MoveGuest) -> None:
    if s.phase == "mayor":
        raise illegal("wrong_phase", "guests cannot move in the mayor phase")
    p = s.players[seat]
    if p.buildings.get("guest_house", 0) <= 0:
        raise illegal("no_guest", "no guest in a guest house")
    to = cmd.to
    if to in ISLAND_INDEX:
        i = ISLAND_INDEX[to]
        if p.tiles[i] <= p.occupied[i]:
            raise illegal("no_empty_circle", f"no empty {to} tile")
        return
    if to not in BUILDINGS or to in NO_GUEST_TARGET:
        raise illegal("bad_target", f"a guest cannot move to {to!r}")
    if to not in p.buildings:
        raise illegal("not_owned", f"you do not own {to}")
    if p.buildings[to] >= BUILDINGS[to].circles:
        raise illegal("no_empty_circle", f"{to} is full")


def _do_move_guest(ctx: Ctx, seat: int, cmd: C.MoveGuest) -> None:
    ctx.emit(E.GuestMoved(seat=seat, to=cmd.to))


def _do_guests_done(ctx: Ctx, seat: int, cmd: C.GuestsDone) -> None:
    s = ctx.s
    ctx.emit(E.GuestsFinished(seat=seat))
    if s.window:
        return
    AFTER_WINDOW[s.window_for](ctx)


# ============================================================================ settler


def _hospice_options(s: State, p: Player) -> tuple[bool, ...]:
    if p.buildings.get("hospice", 0) > 0 and (s.colonists > 0 or s.ship_colonists > 0):
        return (False, True)
    return (False,)


def _legal_settler(s: State, seat: int, library: bool = False) -> Iterator[Any]:
    p = s.players[seat]
    if not island_free(p):
        return
    hosp = (False,) if library else _hospice_options(s, p)
    if not library and p.buildings.get("hacienda", 0) > 0 and not s.hacienda_used and drawable(s):
        yield C.HaciendaDraw()
    for kind in GOODS:
        if kind in s.row:
            yield from (C.Settle(source="face_up", kind=kind, hospice=h) for h in hosp)
    if s.quarries > 0 and (
        (seat == s.chooser and not library) or p.buildings.get("construction_hut", 0) > 0
    ):
        yield from (C.Settle(source="quarry", hospice=h) for h in hosp)
    if p.buildings.get("forest_house", 0) > 0 and drawable(s):
        yield from (C.Settle(source="forest", hospice=h) for h in hosp)
    yield C.Pass()


def _check_settle(s: State, seat: int, cmd: C.Settle) -> None:
    library = s.step == "settler_library"
    p = s.players[seat]
    if not island_free(p):
        raise illegal("island_full", "no empty island space")
    if cmd.hospice:
        if library:
            raise illegal("no_hospice", "no hospice colonist for the library bonus (R10)")
        if p.buildings.get("hospice", 0) <= 0:
            raise illegal("no_hospice", "no occupied hospice")
        if s.colonists <= 0 and s.ship_colonists <= 0:
            raise illegal("no_colonist", "no colonist in the supply or on the ship")
    if cmd.source == "face_up":
        if cmd.kind not in GOOD_INDEX:
            raise illegal("unknown_plantation", f"no plantation kind {cmd.kind!r}")
        if cmd.kind not in s.row:
            raise illegal("not_in_row", f"no face-up {cmd.kind} plantation")
    elif cmd.source == "quarry":
        if cmd.kind is not None:
            raise illegal("bad_command", "a quarry take names no kind")
        if s.quarries <= 0:
            raise illegal("no_quarry", "the quarry supply is empty")
        if not ((seat == s.chooser and not library) or p.buildings.get("construction_hut", 0) > 0):
            raise illegal(
                "no_quarry_right", "only the settler or a construction hut owner takes quarries"
            )
    elif cmd.source == "forest":
        if cmd.kind is not None:
            raise illegal("bad_command", "a forest names no kind")
        if p.buildings.get("forest_house", 0) <= 0:
            raise illegal("no_forest_house", "no occupied forest house")
        if not drawable(s):
            raise illegal("no_tile", "no tile left to draw")
    else:
        raise illegal("bad_source", f"unknown source {cmd.source!r}")


def _ensure_stack(ctx: Ctx) -> None:
    """R12: a draw that finds the stack empty first reshuffles the discard."""
    s = ctx.s
    if not s.stack and s.discard:
        order = s.discard[:]
        ctx.rng.shuffle(order)
        ctx.emit(E.StackShuffled(size=len(order), order=order))


def _stock_source(s: State) -> E.Colonist:
    return "supply" if s.colonists > 0 else "ship"


def _do_settle(ctx: Ctx, seat: int, cmd: C.Settle) -> None:
    s = ctx.s
    library = s.step == "settler_library"
    hospice = _stock_source(s) if cmd.hospice else None
    source: E.SettleSource
    if cmd.source == "forest":
        _ensure_stack(ctx)
        source, tile = "forest", s.stack[-1]
    elif cmd.source == "quarry":
        source, tile = "quarry", "quarry"
    else:  # face_up, the one source left that the check lets through
        source, tile = "face_up", cmd.kind or ""
    ctx.emit(E.Settled(seat=seat, source=source, tile=tile, hospice=hospice, library=library))
    _settler_after_turn(ctx, seat, library)


def _do_settler_pass(ctx: Ctx, seat: int) -> None:
    library = ctx.s.step == "settler_library"
    ctx.emit(E.Passed(seat=seat, step=ctx.s.step))
    _settler_after_turn(ctx, seat, library)


def _check_hacienda_draw(s: State, seat: int, cmd: C.HaciendaDraw) -> None:
    if s.step != "settler_turn":
        raise illegal("wrong_phase", "the hacienda is used on one's own settler turn")
    p = s.players[seat]
    if p.buildings.get("hacienda", 0) <= 0:
        raise illegal("no_hacienda", "no occupied hacienda")
    if s.hacienda_used:
        raise illegal("already_used", "the hacienda was used this phase")
    if not island_free(p):
        raise illegal("island_full", "no empty island space")
    if not drawable(s):
        raise illegal("no_tile", "no tile left to draw")


def _forest_choice(s: State, seat: int) -> bool:
    return (
        s.players[seat].buildings.get("forest_house", 0) > 0
        and s.options.forest_house_with_hacienda == "allowed"
    )


def _do_hacienda_draw(ctx: Ctx, seat: int, cmd: C.HaciendaDraw) -> None:
    s = ctx.s
    _ensure_stack(ctx)
    tile = s.stack[-1]
    pending = _forest_choice(s, seat)
    ctx.emit(E.HaciendaDrawn(seat=seat, tile=tile, pending=pending))
    if pending:
        ctx.emit(E.TurnStarted(step="hacienda_place", seat=seat))
    else:
        _after_hacienda(ctx, seat)


def _after_hacienda(ctx: Ctx, seat: int) -> None:
    if island_free(ctx.s.players[seat]):
        ctx.emit(E.TurnStarted(step="settler_turn", seat=seat))
    else:
        _settler_after_turn(ctx, seat, False)


def _legal_hacienda_place(s: State, seat: int) -> list[Any]:
    return [C.HaciendaPlace(as_forest=False), C.HaciendaPlace(as_forest=True)]


def _do_hacienda_place(ctx: Ctx, seat: int, cmd: C.HaciendaPlace) -> None:
    s = ctx.s
    tile = s.hacienda_tile
    ctx.emit(E.HaciendaPlaced(seat=seat, tile=tile, as_forest=cmd.as_forest))
    _after_hacienda(ctx, seat)


def _start_settler(ctx: Ctx) -> None:
    _settler_turn_from(ctx, ctx.s.chooser)


def _settler_turn_from(ctx: Ctx, seat: int | None) -> None:
    s = ctx.s
    while seat is not None:
        if island_free(s.players[seat]):  # a full island skips the turn
            ctx.emit(E.TurnStarted(step="settler_turn", seat=seat))
            return
        seat = _next_in_phase(s, seat)
    # library bonus
    c = s.chooser
    if library_doubles(s, c) and island_free(s.players[c]):
        ctx.emit(E.TurnStarted(step="settler_library", seat=c))
        return
    _settler_refill(ctx)


def _settler_after_turn(ctx: Ctx, seat: int, library: bool) -> None:
    if library:
        _settler_refill(ctx)
    else:
        _settler_turn_from(ctx, _next_in_phase(ctx.s, seat))


def _settler_refill(ctx: Ctx) -> None:
    """discard the row, draw n+1, reshuffling the discard when the stack runs out."""
    s = ctx.s
    if s.row:
        ctx.emit(E.RowDiscarded(tiles=s.row[:]))
    need = s.n + 1
    while need > 0:
        if not s.stack:
            if not s.discard:
                break
            _ensure_stack(ctx)
        take = min(need, len(s.stack))
        ctx.emit(E.RowDrawn(tiles=s.stack[::-1][:take]))
        need -= take
    _end_phase(ctx)


# ============================================================================ mayor


def _mayor_privilege_max(s: State, seat: int) -> int:
    if seat != s.chooser:
        return 0
    return min(2 if library_doubles(s, seat) else 1, s.colonists)


_RANK = {b: i for i, b in enumerate(BUILDING_ORDER)}
_SLOT_RANK = {k: i for i, k in enumerate((*ISLAND, *BUILDING_ORDER))}  # `_layout_slots` order


def _layout_slots(p: Player) -> list[tuple[str, int]]:
    slots = [(ISLAND[i], p.tiles[i]) for i in range(6) if p.tiles[i] > 0]
    for b in sorted(p.buildings, key=_RANK.__getitem__):
        c = BUILDINGS[b].circles
        if c:
            slots.append((b, c))
    return slots


def _single_layout(slots: list[tuple[str, int]], place: int) -> bool:
    """`_ways(slots, place)[0][place] == 1` (`place` at most the circles), counted without
    the table: with two slots or more (each with a circle) and neither none nor all circles
    to fill, a colonist can always move from one slot to another."""
    return place == 0 or place == sum(c for _, c in slots) or len(slots) == 1


def _ways(slots: list[tuple[str, int]], place: int) -> list[list[int]]:
    """ways[i][r]: layouts putting exactly r colonists on slots i.. (r ≤ place)."""
    return _ways_caps(tuple(c for _, c in slots), place)


@lru_cache(maxsize=4096)
def _ways_caps(caps: tuple[int, ...], place: int) -> list[list[int]]:
    n = len(caps)
    ways = [[0] * (place + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        cap = caps[i]
        nxt = ways[i + 1]
        row = ways[i]
        window = 0  # sliding sum of nxt[r-cap..r]
        for r in range(place + 1):
            window += nxt[r]
            if r - cap - 1 >= 0:
                window -= nxt[r - cap - 1]
            row[r] = window
    return ways


class Layouts(Sequence[Any]):
    """The legal `place_colonists` commands, listed lazily: a big board can have millions of
    layouts (canonical form), so they are counted and unranked instead of built. Supports
    len, indexing (so `random.choice` works), iteration and a fast `in`."""

    def __init__(
        self, s: State, seat: int, slots: list[tuple[str, int]], base: int, privileges: int
    ) -> None:
        self.s, self.seat, self.slots = s, seat, slots
        cap = sum(c for _, c in slots)
        self.parts: list[tuple[int, int, list[list[int]]]] = []  # (privilege, place, ways)
        self.total = 0
        ways = _ways(slots, min(base + privileges, cap))  # its rows serve every smaller place
        for priv in range(privileges + 1):
            place = min(base + priv, cap)
            self.parts.append((priv, place, ways))
            self.total += ways[0][place]

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.total))]
        if index < 0:
            index += self.total
        if not 0 <= index < self.total:
            raise IndexError(index)
        for priv, place, ways in self.parts:
            count = ways[0][place]
            if index >= count:
                index -= count
                continue
            layout: dict[str, int] = {}
            left = place
            for i, (name, cap) in enumerate(self.slots):
                for k in range(min(cap, left), -1, -1):  # larger counts first
                    c = ways[i + 1][left - k]
                    if index < c:
                        if k:
                            layout[name] = k
                        left -= k
                        break
                    index -= c
            return C.PlaceColonists(layout=layout, privilege=priv)
        raise IndexError(index)

    def __iter__(self) -> Iterator[Any]:
        for priv, place, _ in self.parts:
            for layout in _enumerate_layouts(self.slots, place):
                yield C.PlaceColonists(layout=layout, privilege=priv)

    def __contains__(self, cmd: object) -> bool:
        if not isinstance(cmd, C.PlaceColonists):
            return False
        try:
            _check_mayor(self.s, self.seat, cmd)
        except RuleError:
            return False
        return True

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (list, Layouts)) else False

    def __add__(self, other: list[Any]) -> list[Any]:
        return list(self) + list(other)


def _colonist_total(p: Player) -> int:
    return sum(p.occupied) + sum(p.buildings.values()) + p.san_juan


def _enumerate_layouts(slots: list[tuple[str, int]], place: int) -> list[dict[str, int]]:
    """Same order as Layouts' unranking (larger counts first), built directly."""
    n = len(slots)
    rest = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        rest[i] = rest[i + 1] + slots[i][1]
    out: list[dict[str, int]] = []
    current: dict[str, int] = {}

    def rec(i: int, left: int) -> None:
        if left == 0:
            out.append(dict(current))
            return
        name, cap = slots[i]
        for k in range(min(cap, left), max(0, left - rest[i + 1]) - 1, -1):
            if k:
                current[name] = k
                rec(i + 1, left - k)
                del current[name]
            else:
                rec(i + 1, left)

    rec(0, place)
    return out


def _legal_mayor(s: State, seat: int) -> Layouts:
    p = s.players[seat]
    return Layouts(s, seat, _layout_slots(p), _colonist_total(p), _mayor_privilege_max(s, seat))


def _check_mayor(s: State, seat: int, cmd: C.PlaceColonists) -> None:
    p = s.players[seat]
    if not isinstance(cmd.privilege, int) or cmd.privilege < 0:
        raise illegal("bad_privilege", "privilege must be 0, 1 or 2")
    if cmd.privilege > _mayor_privilege_max(s, seat):
        raise illegal("bad_privilege", f"at most {_mayor_privilege_max(s, seat)} colonists")
    slots = dict(_layout_slots(p))
    total = 0
    for loc, c in cmd.layout.items():
        if loc not in slots:
            raise illegal("bad_layout", f"no circle at {loc!r}")
        if not isinstance(c, int) or c <= 0 or c > slots[loc]:
            raise illegal("bad_layout", f"{loc}: {c} colonists do not fit (zeros are omitted)")
        total += c
    cap = sum(slots.values())
    if total != min(_colonist_total(p) + cmd.privilege, cap):
        raise illegal("must_fill", "place every colonist you can (must-fill rule)")


def _do_mayor(ctx: Ctx, seat: int, cmd: C.PlaceColonists) -> None:
    s = ctx.s
    p = s.players[seat]
    # canonical key order (ISLAND then BUILDING_ORDER), the order of the layout slots
    layout = dict(sorted(cmd.layout.items(), key=lambda kv: _SLOT_RANK[kv[0]]))
    sj = _colonist_total(p) + cmd.privilege - sum(layout.values())
    ctx.emit(E.ColonistsPlaced(seat=seat, privilege=cmd.privilege, layout=layout, san_juan=sj))
    nxt = _next_in_phase(s, seat)
    if nxt is not None:
        ctx.emit(E.TurnStarted(step="place_colonists", seat=nxt))
        return
    # every seat has placed: the colonist ship is refilled (R13)
    required = max(s.n, sum(empty_building_circles(q) for q in s.players))
    if s.colonists >= required:
        ctx.emit(E.ColonistShipRefilled(required=required, count=required, end_triggered=False))
    else:
        ctx.emit(E.ColonistShipRefilled(required=required, count=s.colonists, end_triggered=True))
    _end_phase(ctx)


def _start_mayor(ctx: Ctx) -> None:
    s = ctx.s
    k = s.ship_colonists
    counts = [0] * s.n
    for i in range(s.n):
        counts[(s.chooser + i) % s.n] = k // s.n + (1 if i < k % s.n else 0)
    ctx.emit(E.ColonistsDistributed(counts=counts))
    ctx.emit(E.TurnStarted(step="place_colonists", seat=s.chooser))


# ============================================================================ builder


def _without_colonist(p: Player, location: str) -> Player:
    q = p.copy()
    if location == SAN_JUAN:
        q.san_juan -= 1
    elif location in ISLAND_INDEX:
        q.occupied[ISLAND_INDEX[location]] -= 1
    else:
        q.buildings[location] -= 1
    return q


def _colonist_locations(p: Player) -> list[str]:
    out = [ISLAND[i] for i in range(6) if p.occupied[i] > 0]
    out.extend(b for b in BUILDING_ORDER if p.buildings.get(b, 0) > 0 and b != "black_market")
    if p.san_juan > 0:
        out.append(SAN_JUAN)
    return out


def _buildable(s: State, p: Player, b: str, free: int | None = None) -> bool:
    if free is None:
        free = city_free(p)
    return s.buildings_left.get(b, 0) > 0 and b not in p.buildings and free >= BUILDINGS[b].spaces


def _university_ok(s: State, board: Player, returned_colonist: bool) -> bool:
    return board.buildings.get("university", 0) > 0 and (
        s.colonists + (1 if returned_colonist else 0) > 0 or s.ship_colonists > 0
    )


def _legal_builder(s: State, seat: int) -> Iterator[Any]:
    p = s.players[seat]
    bm_options: list[tuple[Player, C.BlackMarket, int]] = []
    if p.buildings.get("black_market", 0) > 0:
        colonist_opts: list[str | None] = [None, *_colonist_locations(p)]
        good_opts: list[str | None] = [None] + [GOODS[g] for g in range(5) if p.goods[g] > 0]
        vp_opts = (False, True) if p.vp >= 1 else (False,)
        for col, good, vp in product(colonist_opts, good_opts, vp_opts):
            items = (col is not None) + (good is not None) + vp
            if items:
                board = _without_colonist(p, col) if col is not None else p
                bm_options.append(
                    (board, C.BlackMarket(colonist_from=col, good=good, vp=vp), items)
                )
    free = city_free(p)
    if free <= 0:
        yield C.Pass()
        return
    # net cost inlined (board.net_cost): the hot path of random games
    privilege = 0
    if seat == s.chooser and s.phase == "builder":
        privilege = 2 if library_doubles(s, seat) else 1
    quarries = p.occupied[QUARRY]
    flat = privilege + len(p.forests) // 2
    money = p.doubloons
    owned = p.buildings
    for b, left in s.buildings_left.items():
        if left <= 0 or b in owned:
            continue
        info = BUILDINGS[b]
        if free < SPACES[b]:
            continue
        cost = info.cost - flat - (quarries if quarries < info.column else info.column)
        if money >= cost:
            yield C.Build(building=b)
            if _university_ok(s, p, False):
                yield C.Build(building=b, university=True)
        for board, bm, items in bm_options:
            cost = net_cost(s, seat, b, board)
            if p.doubloons < cost and cost - p.doubloons == items:
                yield C.Build(building=b, black_market=bm)
                if _university_ok(s, board, bm.colonist_from is not None):
                    yield C.Build(building=b, university=True, black_market=bm)
    yield C.Pass()


def _check_build(s: State, seat: int, cmd: C.Build) -> tuple[int, Player]:
    """Returns (doubloons to pay, board after any black-market colonist return)."""
    p = s.players[seat]
    b = cmd.building
    if b not in BUILDINGS:
        raise illegal("unknown_building", f"no building {b!r}")
    if b not in s.buildings_left:
        raise illegal("unknown_building", f"{b} is not in this game")
    if s.buildings_left[b] <= 0:
        raise illegal("sold_out", f"no {b} left")
    if b in p.buildings:
        raise illegal("already_owned", f"you already own a {b}")
    if city_free(p) < BUILDINGS[b].spaces:
        raise illegal("no_city_space", f"no room for {b}")
    bm = cmd.black_market
    board = p
    if bm is None:
        cost = net_cost(s, seat, b)
        if p.doubloons < cost:
            raise illegal("cannot_afford", f"{b} costs {cost}, you have {p.doubloons}")
        pay = cost
    else:
        if p.buildings.get("black_market", 0) <= 0:
            raise illegal("no_black_market", "no occupied black market")
        items = 0
        if bm.colonist_from is not None:
            loc = bm.colonist_from
            if loc == "black_market":
                raise illegal("bad_black_market", "not the black market's own colonist")
            if loc == SAN_JUAN:
                ok = p.san_juan > 0
            elif loc in ISLAND_INDEX:
                ok = p.occupied[ISLAND_INDEX[loc]] > 0
            else:
                ok = p.buildings.get(loc, 0) > 0
            if not ok:
                raise illegal("bad_black_market", f"no colonist of yours at {loc!r}")
            board = _without_colonist(p, loc)
            items += 1
        if bm.good is not None:
            if bm.good not in GOOD_INDEX:
                raise illegal("unknown_good", f"no good {bm.good!r}")
            if p.goods[GOOD_INDEX[bm.good]] <= 0:
                raise illegal("bad_black_market", f"you hold no {bm.good}")
            items += 1
        if bm.vp:
            if p.vp < 1:
                raise illegal("bad_black_market", "you hold no VP")
            items += 1
        if items == 0:
            raise illegal("bad_black_market", "the black market returns at least one item")
        cost = net_cost(s, seat, b, board)
        if p.doubloons >= cost:
            raise illegal("bad_black_market", "the black market only covers a shortfall")
        if cost - p.doubloons != items:
            raise illegal(
                "cannot_afford", f"shortfall {cost - p.doubloons}, {items} items returned"
            )
        pay = p.doubloons
    if cmd.university and not _university_ok(
        s, board, bm is not None and bm.colonist_from is not None
    ):
        raise illegal("no_university", "no occupied university or no colonist available")
    return pay, board


def _do_build(ctx: Ctx, seat: int, cmd: C.Build) -> None:
    s = ctx.s
    pay, board = _check_build(s, seat, cmd)
    b = BUILDINGS[cmd.building]
    church = 0
    if board.buildings.get("church", 0) > 0 and cmd.building != "church":
        church = 2 if b.column == 4 else 1 if b.column in (2, 3) else 0
    uni: E.Colonist | None = None
    if cmd.university:
        returned = cmd.black_market is not None and cmd.black_market.colonist_from is not None
        uni = "supply" if s.colonists + (1 if returned else 0) > 0 else "ship"
    full = city_free(s.players[seat]) == b.spaces
    ctx.emit(
        E.Built(
            seat=seat,
            building=cmd.building,
            paid=pay,
            university=uni,
            black_market=cmd.black_market,
            church_vp=church,
            city_full=full,
        )
    )
    _builder_next(ctx, _next_in_phase(s, seat))


def _builder_next(ctx: Ctx, seat: int | None) -> None:
    if seat is None:
        _end_phase(ctx)
    else:
        ctx.emit(E.TurnStarted(step="builder_turn", seat=seat))


def _start_builder(ctx: Ctx) -> None:
    _builder_next(ctx, ctx.s.chooser)


# ============================================================================ craftsman


def _start_craftsman(ctx: Ctx) -> None:
    if not _open_window(ctx, "craftsman"):
        _production(ctx)


def _production(ctx: Ctx) -> None:
    s = ctx.s
    for seat in _order_from(s, s.chooser):
        p = s.players[seat]
        goods = [0] * 5
        goods[0] = min(p.occupied[0], s.supply[0])
        for g in range(1, 5):
            workers = sum(p.buildings.get(b, 0) for b in PRODUCERS[g])
            if workers:
                goods[g] = min(p.occupied[g], workers, s.supply[g])
        aqueduct = [0] * 5
        if p.buildings.get("aqueduct", 0) > 0:
            for g, large in LARGE_PRODUCER.items():
                # R17: credited to the large building first
                if min(goods[g], p.buildings.get(large, 0)) >= 1 and s.supply[g] > goods[g]:
                    aqueduct[g] = 1
        kinds = sum(1 for g in goods if g)
        factory = FACTORY_PAYOUT[kinds] if p.buildings.get("factory", 0) > 0 else 0
        specialty = 0
        if seat != s.chooser and p.buildings.get("specialty_factory", 0) > 0:
            specialty = max(0, max(goods[g] + aqueduct[g] for g in range(1, 5)) - 1)
        ctx.emit(
            E.Produced(
                seat=seat, goods=goods, aqueduct=aqueduct, factory=factory, specialty=specialty
            )
        )
    if _legal_bonus(s, s.chooser):
        ctx.emit(E.TurnStarted(step="craftsman_bonus", seat=s.chooser))
    else:
        _craftsman_finish(ctx, [])


def _specialty_for_chooser(s: State, extra: list[str]) -> int:
    p = s.players[s.chooser]
    if p.buildings.get("specialty_factory", 0) <= 0:
        return 0
    got = s.received[:]
    for good in extra:
        got[GOOD_INDEX[good]] += 1
    return max(0, max(got[1:]) - 1)


def _craftsman_finish(ctx: Ctx, goods: list[str]) -> None:
    s = ctx.s
    specialty = _specialty_for_chooser(s, goods)
    if goods or specialty:
        ctx.emit(E.CraftsmanBonusTaken(seat=s.chooser, goods=goods, specialty=specialty))
    _end_phase(ctx)


def _legal_bonus(s: State, seat: int) -> list[Any]:
    if seat != s.chooser:
        return []
    q = [g for g in range(5) if s.received[g] > 0 and s.supply[g] > 0]
    if not q:
        return []
    if library_doubles(s, seat):
        if s.options.library_craftsman_goods == "different":
            if len(q) >= 2:
                return [C.CraftsmanBonus(goods=[GOODS[a], GOODS[b]]) for a, b in combinations(q, 2)]
        elif sum(s.supply[g] for g in q) >= 2:
            return [
                C.CraftsmanBonus(goods=[GOODS[a], GOODS[b]])
                for a, b in combinations_with_replacement(q, 2)
                if a != b or s.supply[a] >= 2
            ]
    return [C.CraftsmanBonus(goods=[GOODS[g]]) for g in q]


def _check_bonus(s: State, seat: int, cmd: C.CraftsmanBonus) -> None:
    for g in cmd.goods:
        if g not in GOOD_INDEX:
            raise illegal("unknown_good", f"no good {g!r}")
    if cmd not in _legal_bonus(s, seat):
        raise illegal("bad_bonus", "not a possible craftsman privilege (sorted goods list)")


def _do_bonus(ctx: Ctx, seat: int, cmd: C.CraftsmanBonus) -> None:
    _craftsman_finish(ctx, list(cmd.goods))


# ============================================================================ trader


def _legal_trader(s: State, seat: int) -> Iterator[Any]:
    p = s.players[seat]
    office = p.buildings.get("office", 0) > 0
    post = p.buildings.get("trading_post", 0) > 0
    room = len(s.house) < TRADING_HOUSE_SIZE
    for g in range(5):
        if p.goods[g] <= 0:
            continue
        if room and (office or g not in s.house):
            yield C.Sell(good=GOODS[g], venue="trading_house")
        if post:
            yield C.Sell(good=GOODS[g], venue="trading_post")
    yield C.Pass()


def _check_sell(s: State, seat: int, cmd: C.Sell) -> None:
    p = s.players[seat]
    if cmd.good not in GOOD_INDEX:
        raise illegal("unknown_good", f"no good {cmd.good!r}")
    g = GOOD_INDEX[cmd.good]
    if p.goods[g] <= 0:
        raise illegal("no_good", f"you hold no {cmd.good}")
    if cmd.venue == "trading_house":
        if len(s.house) >= TRADING_HOUSE_SIZE:
            raise illegal("house_full", "the trading house is full")
        if g in s.house and p.buildings.get("office", 0) <= 0:
            raise illegal("kind_in_house", f"{cmd.good} is already in the trading house")
    elif cmd.venue == "trading_post":
        if p.buildings.get("trading_post", 0) <= 0:
            raise illegal("no_trading_post", "no occupied trading post")
    else:
        raise illegal("bad_venue", f"unknown venue {cmd.venue!r}")


def _do_sell(ctx: Ctx, seat: int, cmd: C.Sell) -> None:
    s = ctx.s
    p = s.players[seat]
    g = GOOD_INDEX[cmd.good]
    price = PRICE[g]
    if seat == s.chooser:
        price += 2 if library_doubles(s, seat) else 1
    if cmd.venue == "trading_house":
        price += (1 if p.buildings.get("small_market", 0) > 0 else 0) + (
            2 if p.buildings.get("large_market", 0) > 0 else 0
        )
    ctx.emit(E.Sold(seat=seat, good=cmd.good, venue=cmd.venue, price=price))
    _trader_next(ctx, _next_in_phase(s, seat))


def _trader_next(ctx: Ctx, seat: int | None) -> None:
    s = ctx.s
    if seat is not None:
        ctx.emit(E.TurnStarted(step="trader_turn", seat=seat))
        return
    if len(s.house) >= TRADING_HOUSE_SIZE:
        ctx.emit(E.TradingHouseEmptied(goods=[GOODS[g] for g in s.house]))
    _end_phase(ctx)


def _start_trader(ctx: Ctx) -> None:
    _trader_next(ctx, ctx.s.chooser)


# ============================================================================ captain


def _start_captain(ctx: Ctx) -> None:
    if not _open_window(ctx, "captain"):
        _captain_start_effects(ctx)


def _captain_start_effects(ctx: Ctx) -> None:
    s = ctx.s
    if s.players[s.chooser].buildings.get("lighthouse", 0) > 0:
        ctx.emit(E.LighthousePaid(seat=s.chooser))  # R19
    for seat in _order_from(s, s.chooser):
        p = s.players[seat]
        if p.buildings.get("union_hall", 0) > 0:
            vp = sum(c // 2 for c in p.goods)
            if vp:
                ctx.emit(E.UnionHallScored(seat=seat, vp=vp))  # R15
    ctx.emit(E.TurnStarted(step="captain_turn", seat=s.chooser))


def _load_options(s: State, p: Player) -> list[C.Load]:
    out: list[C.Load] = []
    for g in range(5):
        have = p.goods[g]
        if not have:
            continue
        if g in s.ship_good:
            i = s.ship_good.index(g)
            if s.ship_load[i] < s.ship_capacity[i]:
                out.append(C.Load(good=GOODS[g], ship=i))
            continue
        best = 0
        ships: list[int] = []
        for i, cap in enumerate(s.ship_capacity):
            if s.ship_good[i] == -1:
                fit = min(have, cap)
                if fit > best:
                    best, ships = fit, [i]
                elif fit == best:
                    ships.append(i)
        out.extend(C.Load(good=GOODS[g], ship=i) for i in ships)
    return out


def _small_wharf_mixes(p: Player) -> list[dict[str, int]]:
    kinds = [g for g in range(5) if p.goods[g] > 0]
    out: list[dict[str, int]] = []
    for counts in product(*(range(p.goods[g] + 1) for g in kinds)):
        if any(counts):
            out.append({GOODS[g]: c for g, c in zip(kinds, counts, strict=False) if c})
    return out


def _legal_captain(s: State, seat: int) -> list[Any]:
    p = s.players[seat]
    loads = _load_options(s, p)
    out: list[Any] = list(loads)
    if p.buildings.get("wharf", 0) > 0 and not s.wharf_used[seat]:
        out.extend(C.ShipWharf(good=GOODS[g]) for g in range(5) if p.goods[g] > 0)
    if p.buildings.get("small_wharf", 0) > 0 and not s.small_wharf_used[seat]:
        out.extend(C.ShipSmallWharf(goods=m) for m in _small_wharf_mixes(p))
    if not loads:
        out.append(C.Pass())
    return out


def _check_load(s: State, seat: int, cmd: C.Load) -> None:
    if cmd.good not in GOOD_INDEX:
        raise illegal("unknown_good", f"no good {cmd.good!r}")
    if not isinstance(cmd.ship, int) or not 0 <= cmd.ship < len(s.ship_capacity):
        raise illegal("unknown_ship", f"no cargo ship {cmd.ship!r}")
    if s.players[seat].goods[GOOD_INDEX[cmd.good]] <= 0:
        raise illegal("no_good", f"you hold no {cmd.good}")
    if cmd not in _load_options(s, s.players[seat]):
        raise illegal("wrong_ship", f"{cmd.good} cannot go on ship {cmd.ship}")


def _shipment_bonus(s: State, seat: int) -> tuple[int, int]:
    """(VP, doubloons) added to one shipment: captain privilege, harbor, lighthouse."""
    p = s.players[seat]
    vp = 0
    if seat == s.chooser and not s.captain_shipped:
        vp += 2 if library_doubles(s, seat) else 1
    if p.buildings.get("harbor", 0) > 0:
        vp += 1
    return vp, (1 if p.buildings.get("lighthouse", 0) > 0 else 0)


def _do_load(ctx: Ctx, seat: int, cmd: C.Load) -> None:
    s = ctx.s
    g = GOOD_INDEX[cmd.good]
    count = min(s.players[seat].goods[g], s.ship_capacity[cmd.ship] - s.ship_load[cmd.ship])
    vp, coins = _shipment_bonus(s, seat)
    ctx.emit(
        E.Loaded(
            seat=seat, good=cmd.good, ship=cmd.ship, count=count, vp=count + vp, doubloons=coins
        )
    )
    _captain_next(ctx, seat)


def _check_wharf(s: State, seat: int, cmd: C.ShipWharf) -> None:
    p = s.players[seat]
    if p.buildings.get("wharf", 0) <= 0:
        raise illegal("no_wharf", "no occupied wharf")
    if s.wharf_used[seat]:
        raise illegal("already_used", "the wharf was used this phase")
    if cmd.good not in GOOD_INDEX:
        raise illegal("unknown_good", f"no good {cmd.good!r}")
    if p.goods[GOOD_INDEX[cmd.good]] <= 0:
        raise illegal("no_good", f"you hold no {cmd.good}")


def _do_wharf(ctx: Ctx, seat: int, cmd: C.ShipWharf) -> None:
    s = ctx.s
    count = s.players[seat].goods[GOOD_INDEX[cmd.good]]
    vp, coins = _shipment_bonus(s, seat)
    ctx.emit(E.WharfShipped(seat=seat, good=cmd.good, count=count, vp=count + vp, doubloons=coins))
    _captain_next(ctx, seat)


def _check_small_wharf(s: State, seat: int, cmd: C.ShipSmallWharf) -> None:
    p = s.players[seat]
    if p.buildings.get("small_wharf", 0) <= 0:
        raise illegal("no_small_wharf", "no occupied small wharf")
    if s.small_wharf_used[seat]:
        raise illegal("already_used", "the small wharf was used this phase")
    if not cmd.goods:
        raise illegal("bad_goods", "ship at least one barrel")
    for good, c in cmd.goods.items():
        if good not in GOOD_INDEX:
            raise illegal("unknown_good", f"no good {good!r}")
        if not isinstance(c, int) or c <= 0:
            raise illegal("bad_goods", "counts are positive (zeros are omitted)")
        if c > p.goods[GOOD_INDEX[good]]:
            raise illegal("no_good", f"you hold fewer than {c} {good}")


def _do_small_wharf(ctx: Ctx, seat: int, cmd: C.ShipSmallWharf) -> None:
    s = ctx.s
    vp, coins = _shipment_bonus(s, seat)
    total = sum(cmd.goods.values())
    goods = {GOODS[g]: cmd.goods[GOODS[g]] for g in range(5) if GOODS[g] in cmd.goods}
    ctx.emit(E.SmallWharfShipped(seat=seat, goods=goods, vp=total // 2 + vp, doubloons=coins))
    _captain_next(ctx, seat)


def _do_captain_pass(ctx: Ctx, seat: int) -> None:
    ctx.emit(E.Passed(seat=seat, step="captain_turn"))
    _captain_next(ctx, seat)


def _captain_next(ctx: Ctx, seat: int) -> None:
    s = ctx.s
    if s.passes < s.n:
        ctx.emit(E.TurnStarted(step="captain_turn", seat=(seat + 1) % s.n))
    else:
        ctx.emit(E.TurnStarted(step="store", seat=s.chooser))


def _capacity(s: State, p: Player) -> tuple[int, int]:
    """(warehouse kinds, loose barrels) when goods are stored after the captain phase."""
    kinds = (1 if p.buildings.get("small_warehouse", 0) > 0 else 0) + (
        2 if p.buildings.get("large_warehouse", 0) > 0 else 0
    )
    loose = 1 + (3 if p.buildings.get("storehouse", 0) > 0 else 0)
    return kinds, loose


def _fits(counts: list[int], kinds: int, loose: int) -> bool:
    ordered = sorted(counts, reverse=True)
    return sum(ordered[kinds:]) <= loose


def _maximal(keep: list[int], have: list[int], kinds: int, loose: int) -> bool:
    for g in range(5):
        if keep[g] < have[g]:
            keep[g] += 1
            ok = _fits(keep, kinds, loose)
            keep[g] -= 1
            if ok:
                return False
    return True


def _legal_keeps(s: State, seat: int) -> list[dict[str, int]]:
    p = s.players[seat]
    have = p.goods
    kinds, loose = _capacity(s, p)
    held = [g for g in range(5) if have[g] > 0]
    if _fits(have, kinds, loose):
        return [{GOODS[g]: have[g] for g in held}]
    seen: set[tuple[int, ...]] = set()
    out: list[dict[str, int]] = []
    for w in combinations(held, min(kinds, len(held))):
        others = [g for g in held if g not in w]
        pool = [g for g in others for _ in range(have[g])]
        for extra in set(combinations(pool, min(loose, len(pool)))):
            keep = [have[g] if g in w else 0 for g in range(5)]
            for g in extra:
                keep[g] += 1
            key = tuple(keep)
            if key in seen or not _maximal(keep, have, kinds, loose):
                continue
            seen.add(key)
            out.append({GOODS[g]: keep[g] for g in range(5) if keep[g]})
    out.sort(key=lambda d: [-d.get(g, 0) for g in GOODS])
    return out


def _check_store(s: State, seat: int, cmd: C.Store) -> None:
    p = s.players[seat]
    keep = [0] * 5
    for good, c in cmd.keep.items():
        if good not in GOOD_INDEX:
            raise illegal("unknown_good", f"no good {good!r}")
        if not isinstance(c, int) or c <= 0:
            raise illegal("bad_keep", "counts are positive (zeros are omitted)")
        if c > p.goods[GOOD_INDEX[good]]:
            raise illegal("no_good", f"you hold fewer than {c} {good}")
        keep[GOOD_INDEX[good]] = c
    kinds, loose = _capacity(s, p)
    if not _fits(keep, kinds, loose):
        raise illegal("storage_exceeded", "that is more than your storage holds")
    if not _maximal(keep, p.goods, kinds, loose):
        raise illegal("must_keep", "keep every barrel you can store (R22)")


def _do_store(ctx: Ctx, seat: int, cmd: C.Store) -> None:
    s = ctx.s
    p = s.players[seat]
    returned = {GOODS[g]: p.goods[g] - cmd.keep.get(GOODS[g], 0) for g in range(5)}
    returned = {k: v for k, v in returned.items() if v}
    keep = {GOODS[g]: cmd.keep[GOODS[g]] for g in range(5) if GOODS[g] in cmd.keep}
    ctx.emit(E.GoodsStored(seat=seat, keep=keep, returned=returned))
    nxt = _next_in_phase(s, seat)
    if nxt is not None:
        ctx.emit(E.TurnStarted(step="store", seat=nxt))
        return
    full = [i for i in range(len(s.ship_capacity)) if s.ship_load[i] >= s.ship_capacity[i]]
    if full:
        ctx.emit(E.ShipsUnloaded(ships=full))
    _end_phase(ctx)


# ============================================================================ prospector


def _start_prospector(ctx: Ctx) -> None:
    s = ctx.s
    ctx.emit(E.Prospected(seat=s.chooser, doubloons=2 if library_doubles(s, s.chooser) else 1))
    _end_phase(ctx)


def _legal_settler_library(s: State, seat: int) -> Iterator[Any]:
    return _legal_settler(s, seat, library=True)


def _legal_store(s: State, seat: int) -> list[Any]:
    return [C.Store(keep=k) for k in _legal_keeps(s, seat)]


START = {
    "settler": _start_settler,
    "mayor": _start_mayor,
    "builder": _start_builder,
    "craftsman": _start_craftsman,
    "trader": _start_trader,
    "captain": _start_captain,
    "prospector": _start_prospector,
}
AFTER_WINDOW = {
    "craftsman": _production,
    "captain": _captain_start_effects,
    "end": _finish,
}

# ============================================================================ dispatch

# Each step's commands, in order: a list, or an iterator where a single choice is often
# known after two of them (`_advance` takes no more).
LEGAL: dict[str, Callable[[State, int], Iterable[Any]]] = {
    "draft_building": _legal_draft,
    "choose_role": _legal_roles,
    "settler_turn": _legal_settler,
    "settler_library": _legal_settler_library,
    "hacienda_place": _legal_hacienda_place,
    "place_colonists": _legal_mayor,
    "builder_turn": _legal_builder,
    "craftsman_bonus": _legal_bonus,
    "trader_turn": _legal_trader,
    "captain_turn": _legal_captain,
    "store": _legal_store,
}

# command type -> steps where it may be given
ALLOWED: dict[type, tuple[str, ...]] = {
    C.DraftBuilding: ("draft_building",),
    C.ChooseRole: ("choose_role",),
    C.HaciendaDraw: ("settler_turn",),
    C.HaciendaPlace: ("hacienda_place",),
    C.Settle: ("settler_turn", "settler_library"),
    C.Pass: ("settler_turn", "settler_library", "builder_turn", "trader_turn", "captain_turn"),
    C.PlaceColonists: ("place_colonists",),
    C.Build: ("builder_turn",),
    C.CraftsmanBonus: ("craftsman_bonus",),
    C.Sell: ("trader_turn",),
    C.Load: ("captain_turn",),
    C.ShipWharf: ("captain_turn",),
    C.ShipSmallWharf: ("captain_turn",),
    C.Store: ("store",),
}


def awaiting(s: State) -> list[int]:
    if s.over:
        return []
    if s.step == "guest_window":
        return list(s.window)
    if s.step:
        return [s.actor]
    return []


def legal_commands(s: State, seat: int) -> Sequence[Any]:
    if s.over:
        return []
    if s.step == "guest_window":
        if seat not in s.window:
            return []
        return [*_legal_guest_moves(s, seat), C.GuestsDone()]
    if not s.step or seat != s.actor:
        return []
    if s.step == "place_colonists":  # no guest moves in the mayor phase
        return _legal_mayor(s, seat)
    out = list(LEGAL[s.step](s, seat))
    if s.step != "draft_building":
        out.extend(_legal_guest_moves(s, seat))
    return out


def _check_hacienda_place(s: State, seat: int, cmd: C.HaciendaPlace) -> None:
    if not isinstance(cmd.as_forest, bool):
        raise illegal("bad_command", "as_forest is a boolean")


def _check_pass(s: State, seat: int, cmd: C.Pass) -> None:
    if s.step == "captain_turn" and _load_options(s, s.players[seat]):
        raise illegal("must_load", "you can load a cargo ship, so you cannot pass")
    if s.step in ("settler_turn", "settler_library") and not island_free(s.players[seat]):
        raise illegal("island_full", "no empty island space")


# command type -> its own checks, once its step is right (by exact type: decoded commands)
CHECKS: dict[type, Callable[[State, int, Any], object]] = {
    C.DraftBuilding: _check_draft,
    C.ChooseRole: _check_role,
    C.HaciendaDraw: _check_hacienda_draw,
    C.HaciendaPlace: _check_hacienda_place,
    C.Settle: _check_settle,
    C.Pass: _check_pass,
    C.PlaceColonists: _check_mayor,
    C.Build: _check_build,
    C.CraftsmanBonus: _check_bonus,
    C.Sell: _check_sell,
    C.Load: _check_load,
    C.ShipWharf: _check_wharf,
    C.ShipSmallWharf: _check_small_wharf,
    C.Store: _check_store,
    C.MoveGuest: _check_move_guest,
    C.GuestsDone: lambda s, seat, cmd: None,
}


def _check(s: State, seat: int, cmd: Any) -> None:
    """Raise RuleError unless `cmd` is legal for `seat` now."""
    if s.over:
        raise illegal("game_over", "the game is over")
    t = type(cmd)
    check = CHECKS.get(t)
    if check is None:
        raise illegal("unknown_command", f"not a Puerto Rico command: {t.__name__}")
    if s.step == "guest_window":
        if seat not in s.window:
            raise not_your_turn(seat)
        if t is not C.GuestsDone and t is not C.MoveGuest:
            raise illegal("wrong_phase", "only move_guest or guests_done in a guest window")
    elif not s.step or seat != s.actor:
        raise not_your_turn(seat)
    elif t is C.MoveGuest:
        if s.step == "draft_building":
            raise illegal("wrong_phase", "no guests during the draft")
    elif s.step not in ALLOWED.get(t, ()):
        raise illegal("wrong_phase", f"{t.__name__} is not possible at {s.step}")
    check(s, seat, cmd)


def _apply(ctx: Ctx, seat: int, cmd: Any) -> None:
    s = ctx.s
    t = type(cmd)
    if t is C.MoveGuest:
        _do_move_guest(ctx, seat, cmd)
    elif t is C.GuestsDone:
        _do_guests_done(ctx, seat, cmd)
    elif t is C.DraftBuilding:
        _do_draft(ctx, seat, cmd)
    elif t is C.ChooseRole:
        _do_role(ctx, seat, cmd)
    elif t is C.HaciendaDraw:
        _do_hacienda_draw(ctx, seat, cmd)
    elif t is C.HaciendaPlace:
        _do_hacienda_place(ctx, seat, cmd)
    elif t is C.Settle:
        _do_settle(ctx, seat, cmd)
    elif t is C.Pass:
        step = s.step
        if step in ("settler_turn", "settler_library"):
            _do_settler_pass(ctx, seat)
        elif step == "builder_turn":
            ctx.emit(E.Passed(seat=seat, step=step))
            _builder_next(ctx, _next_in_phase(s, seat))
        elif step == "trader_turn":
            ctx.emit(E.Passed(seat=seat, step=step))
            _trader_next(ctx, _next_in_phase(s, seat))
        else:
            _do_captain_pass(ctx, seat)
    elif t is C.PlaceColonists:
        _do_mayor(ctx, seat, cmd)
    elif t is C.Build:
        _do_build(ctx, seat, cmd)
    elif t is C.CraftsmanBonus:
        _do_bonus(ctx, seat, cmd)
    elif t is C.Sell:
        _do_sell(ctx, seat, cmd)
    elif t is C.Load:
        _do_load(ctx, seat, cmd)
    elif t is C.ShipWharf:
        _do_wharf(ctx, seat, cmd)
    elif t is C.ShipSmallWharf:
        _do_small_wharf(ctx, seat, cmd)
    elif t is C.Store:
        _do_store(ctx, seat, cmd)


def _advance(ctx: Ctx) -> None:
    """skip decisions with no command; with `auto_forced`, apply single choices."""
    s = ctx.s
    auto = s.options.auto_forced
    while not s.over:
        if s.step == "guest_window":
            if not auto:
                return
            for seat in list(s.window):
                if not movable_guest(s, seat):
                    _apply(ctx, seat, C.GuestsDone())
                    break
            else:
                return
            continue
        if not s.step:
            return
        seat = s.actor
        if s.step == "choose_role":  # at least two cards are always left
            return
        if s.step == "place_colonists":
            # only the count matters here (no guests move in the mayor phase)
            if not auto or _mayor_privilege_max(s, seat) > 0:
                return
            p = s.players[seat]
            slots = _layout_slots(p)
            place = min(_colonist_total(p), sum(c for _, c in slots))
            if _single_layout(slots, place):
                _apply(
                    ctx,
                    seat,
                    C.PlaceColonists(layout=_enumerate_layouts(slots, place)[0], privilege=0),
                )
                continue
            return
        if not auto:
            return
        options = list(islice(LEGAL[s.step](s, seat), 2))  # a single choice or more?
        assert options, f"no legal command at {s.step}"  # the flow never emits such a decision
        if len(options) > 1 or (s.step != "draft_building" and movable_guest(s, seat)):
            return
        _apply(ctx, seat, options[0])


def decide(state: State, seat: int, cmd: Any, rng: random.Random) -> list[Any]:
    return decide_evolve(state, seat, cmd, rng)[0]


def decide_evolve(state: State, seat: int, cmd: Any, rng: random.Random) -> tuple[list[Any], State]:
    """The events of `cmd` and the working copy they were applied to."""
    try:
        _check(state, seat, cmd)
    except RuleError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise illegal("bad_command", f"malformed command: {exc}") from None
    ctx = Ctx(state.working_copy(), rng)
    _apply(ctx, seat, cmd)
    _advance(ctx)
    return ctx.events, ctx.s

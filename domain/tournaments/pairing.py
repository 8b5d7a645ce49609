"""Each round's tables, by format, with seats balanced over the tournament.

- Table sizes: as many tables as a full table each needs, sizes as even as possible and
  never below the game's minimum; when that cannot be done, the fewest byes that make it
  possible (a bye goes to whoever has had the fewest, the lowest placed first).
- swiss: entrants in standings order fill the tables top down; then swaps between tables
  that lower repeat meetings first and the spread of points at a table second.
- round-robin: with n = k * k entrants at tables of k (k = 2, 3, 4, 5) the rounds are the
  parallel classes of the affine plane of order k, so every pair meets exactly once in
  k + 1 rounds (16 at tables of 4: 5 rounds); otherwise swaps that make pairs meet as
  evenly as the numbers allow.
- knockout: the best `advance` of each table (rank, then game score) go on until one table
  with no bye is left: the final. A seat that forfeited, or an entrant who withdrew, never
  goes on. When fewer would go on than the smallest table seats, the best of the others
  (rank, then game score, whatever their table) fill it, so a knockout ends in a final
  unless forfeits and withdrawals left too few to seat one.
- Withdrawals: an entrant whose seats in two consecutive recorded tables of theirs were
  both forfeited (`forfeited_twice`) is withdrawn by the director and paired no more.
- Seats: each table's entrants take the seat order that keeps their seat positions most
  even (every order is tried; tables have at most 5 seats). The swaps above weigh a table
  that no order could keep within 2 of even before anything else, since the tables of a
  round decide which seats its entrants can get at all.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

from domain.tournaments.standings import standings
from domain.tournaments.state import Tournament

Pair = frozenset[str]
Seats = tuple[dict[str, list[int]], dict[str, int]]  # seat counts, and widest tables, per entrant
MAX_PASSES = 40
RESTARTS = 7  # further starting orders for the swaps
SEAT_SPREAD = 2  # a table that would leave someone's seats further apart than this costs more


def table_sizes(n: int, low: int, high: int) -> tuple[list[int], int]:
    """(table sizes, byes) for `n` entrants at tables of `low`..`high` seats."""
    for playing in range(n, 0, -1):
        tables = -(-playing // high)
        base, extra = divmod(playing, tables)
        if base >= low:
            return [base + 1] * extra + [base] * (tables - extra), n - playing
    return [], n


def over(state: Tournament, low: int = 2) -> bool:
    """Whether the last round was the tournament's last (a knockout's: its final, one
    table and no bye, or too few left to seat a table of `low`)."""
    if not state.rounds or not state.rounds[-1].complete:
        return False
    if state.config["format"] == "knockout":
        last = state.rounds[-1]
        final = len(last.tables) == 1 and not last.byes
        return final or len(_advancing(state, low)) < max(2, low)
    return len(state.rounds) >= int(state.config["rounds"])


def next_round(state: Tournament, low: int, high: int) -> tuple[list[list[str]], list[str]]:
    """The next round's tables (entrant ids in seat order) and byes."""
    rng = random.Random(f"{state.config['seed']}/{len(state.rounds) + 1}")
    form = state.config["format"]
    players = _advancing(state, low) if form == "knockout" and state.rounds else state.active
    if form == "swiss":
        placed = [line["entrant"] for line in standings(state) if line["entrant"] in players]
        if not state.rounds:
            rng.shuffle(placed)
    else:  # one order for the whole tournament: the plane's points keep their entrants
        placed = list(players)
        random.Random(f"{state.config['seed']}/order").shuffle(placed)
    sizes, bye_count = table_sizes(len(placed), low, high)
    if form == "knockout" and low <= len(placed) <= high:
        sizes, bye_count = [len(placed)], 0  # all fit one table: the final
    byes = _byes(state, placed, bye_count)
    playing = [p for p in placed if p not in byes]
    met = meetings(state)
    seats = seat_counts(state), widest_tables(state)
    if form == "round-robin":
        tables = _plane(playing, sizes, len(state.rounds)) or _spread(
            playing, sizes, met, None, rng, seats
        )
    elif form == "swiss":
        points = {line["entrant"]: line["points"] for line in standings(state)}
        tables = _spread(playing, sizes, met, points, rng, seats)
    else:
        tables = _cut(playing, sizes)
    return [_balanced(t, seats) for t in tables], byes


def seated(state: Tournament, tables: list[list[str]]) -> list[list[str]]:
    """`tables` (an arena's, formed as its pool allows) each in the seat order that keeps
    its entrants' seat positions most even, as a round's tables are."""
    seats = seat_counts(state), widest_tables(state)
    return [_balanced(t, seats) for t in tables]


def _advancing(state: Tournament, low: int = 2) -> list[str]:
    """Knockout: who goes on from the last round: its byes, and each table's best (at most
    `advance`, and never the whole table, so every round ends someone's run), never a seat
    that forfeited nor an entrant who withdrew. Fewer than a table of `low` (at least 2):
    the best of the others, by rank then game score, fill it."""
    last = state.rounds[-1]
    going = [e for e in last.byes if e not in state.withdrawn]
    registered = {e: i for i, e in enumerate(state.entrants)}
    others: list[tuple[int, int, int, str]] = []  # (rank, -score, registration, entrant)
    for t in last.tables:
        assert t.ranks is not None and t.scores is not None
        ranks, scores = t.ranks, t.scores
        keep = min(int(state.config["advance"]), len(t.seats) - 1)
        can = [s for s in range(len(t.seats)) if _can_go_on(state, t.seats[s], s, t.forfeited)]
        best = sorted(can, key=lambda s: (ranks[s], -scores[s], s))
        going += [t.seats[s] for s in best[:keep]]
        others += [(ranks[s], -scores[s], registered[t.seats[s]], t.seats[s]) for s in best[keep:]]
    short = max(2, low) - len(going)
    if short > 0:  # too few for a table: a final of the best who are left
        going += [entrant for *_, entrant in sorted(others)[:short]]
    return going


def _can_go_on(state: Tournament, entrant: str, seat: int, forfeited: list[int]) -> bool:
    return seat not in forfeited and entrant not in state.withdrawn


def forfeited_twice(state: Tournament) -> list[str]:
    """Active entrants whose seats in their last two recorded tables (byes between them do
    not count) were both forfeited: the director withdraws them, so an idle entrant stops
    being paired (and forfeiting) every round. In registration order."""
    recorded: dict[str, list[bool]] = {e: [] for e in state.active}
    for r in state.rounds:
        for t in r.tables:
            if t.ranks is None:
                continue
            for seat, entrant in enumerate(t.seats):
                if entrant in recorded:
                    recorded[entrant].append(seat in t.forfeited)
    return [e for e, games in recorded.items() if games[-2:] == [True, True]]


def _byes(state: Tournament, placed: list[str], count: int) -> list[str]:
    had = Counter(b for r in state.rounds for b in r.byes)
    lowest_first = list(reversed(placed))
    return sorted(lowest_first, key=lambda e: had[e])[:count]


def meetings(state: Tournament) -> Counter[Pair]:
    """How often each pair of entrants has shared a table."""
    met: Counter[Pair] = Counter()
    for r in state.rounds:
        for t in r.tables:
            met.update(frozenset(p) for p in itertools.combinations(t.seats, 2))
    return met


def seat_counts(state: Tournament) -> dict[str, list[int]]:
    """How often each entrant has held each seat position (0 = first seat)."""
    size = state.table_size
    counts = {e: [0] * size for e in state.entrants}
    for r in state.rounds:
        for t in r.tables:
            for seat, entrant in enumerate(t.seats):
                counts[entrant][seat] += 1
    return counts


def widest_tables(state: Tournament) -> dict[str, int]:
    """The largest table each entrant has sat at (0 before its first game)."""
    widest = dict.fromkeys(state.entrants, 0)
    for r in state.rounds:
        for t in r.tables:
            for entrant in t.seats:
                widest[entrant] = max(widest[entrant], len(t.seats))
    return widest


def seat_spread(state: Tournament) -> int:
    """The largest difference, over entrants, between their most and least held seat
    among the seats of the tables they played (0 or 1 is as even as it gets)."""
    counts, widest = seat_counts(state), widest_tables(state)
    return max((_spread_of(counts[e][: widest[e]]) for e in counts if widest[e]), default=0)


def _spread_of(held: list[int]) -> int:
    return max(held) - min(held)


def _balanced(table: list[str], seats: Seats) -> list[str]:
    """The table's seat order by `_seat_order`; the seat counts are updated with it."""
    best = _seat_order(table, seats)[0]
    counts, widest = seats
    for seat, entrant in enumerate(best):
        counts[entrant][seat] += 1
        widest[entrant] = max(widest[entrant], len(table))
    return best


def _seat_order(table: list[str], seats: Seats) -> tuple[list[str], tuple[int, int, int]]:
    """The seat order that keeps each entrant's seats most even, and its cost: first the
    widest spread any of them would have (over the seats of the largest table it has sat
    at), then the seats they have held least (every order is tried: at most 5 seats)."""
    counts, widest = seats

    def spread(entrant: str, seat: int) -> int:
        held = list(counts[entrant])
        held[seat] += 1
        return _spread_of(held[: max(len(table), widest[entrant])])

    def cost(order: tuple[str, ...]) -> tuple[int, int, int]:
        spreads = [spread(e, s) for s, e in enumerate(order)]
        held = [counts[e][s] for s, e in enumerate(order)]
        return max(spreads), sum(d * d for d in spreads), sum(h * h for h in held)

    best = min(itertools.permutations(table), key=cost)
    return list(best), cost(best)


def _cut(players: list[str], sizes: list[int]) -> list[list[str]]:
    tables, at = [], 0
    for size in sizes:
        tables.append(players[at : at + size])
        at += size
    return tables


def _spread(
    players: list[str],
    sizes: list[int],
    met: Counter[Pair],
    points: dict[str, float] | None,
    rng: random.Random,
    seating: Seats,
) -> list[list[str]]:
    """Tables filled in order, then improved by swaps: fewer repeat meetings first, then
    (swiss, `points` given) a smaller spread of points at each table. Swaps stop at a
    local best, so they start again from a few nearby orders (neighbours swapped at random,
    so a swiss order stays close to the standings) and the best tables are kept."""

    seats: dict[frozenset[str], int] = {}

    def cost(table: list[str]) -> tuple[int, int, float]:
        repeats = sum(met[frozenset(p)] ** 2 for p in itertools.combinations(table, 2))
        key = frozenset(table)
        if key not in seats:  # a table whose seats cannot stay even costs more
            counts, widest = seating  # one more game widens a spread by at most 1
            tight = any(
                _spread_of(counts[e][: max(len(table), widest[e])]) >= SEAT_SPREAD for e in table
            )
            over = _seat_order(table, seating)[1][0] - SEAT_SPREAD if tight else 0
            seats[key] = max(0, over)
        spread = max(points[e] for e in table) - min(points[e] for e in table) if points else 0
        return seats[key], repeats, spread

    def improved(order: list[str]) -> tuple[tuple[int, int, float], list[list[str]]]:
        tables = _cut(order, sizes)
        for _ in range(MAX_PASSES):
            better = False
            for a, b in itertools.combinations(range(len(tables)), 2):
                for i, j in itertools.product(range(len(tables[a])), range(len(tables[b]))):
                    before = _add(cost(tables[a]), cost(tables[b]))
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                    if _add(cost(tables[a]), cost(tables[b])) < before:
                        better = True
                    else:
                        tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
            if not better:
                break
        total: tuple[int, int, float] = (0, 0, 0.0)
        for table in tables:
            total = _add(total, cost(table))
        return total, tables

    best = improved(players)
    for _ in range(RESTARTS):
        order = list(players)
        for i in range(len(order) - 1):
            if rng.random() < 0.5:
                order[i], order[i + 1] = order[i + 1], order[i]
        tried = improved(order)
        if tried[0] < best[0]:
            best = tried
    return best[1]


def _add(x: tuple[int, int, float], y: tuple[int, int, float]) -> tuple[int, int, float]:
    return x[0] + y[0], x[1] + y[1], x[2] + y[2]


# ---- round-robin on an affine plane --------------------------------------------------------

_GF4_MUL = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]]


def _field(k: int) -> tuple[Any, Any] | None:
    """(add, mul) of the field of order k, for the orders the plane is built for."""
    if k in (2, 3, 5):
        return (lambda a, b: (a + b) % k), (lambda a, b: (a * b) % k)
    if k == 4:
        return (lambda a, b: a ^ b), (lambda a, b: _GF4_MUL[a][b])
    return None


def _plane(players: list[str], sizes: list[int], done: int) -> list[list[str]] | None:
    """Round `done + 1` of the affine plane of order k, when it applies."""
    k = sizes[0] if sizes else 0
    ops = _field(k)
    if ops is None or len(players) != k * k or set(sizes) != {k} or done > k:
        return None
    add, mul = ops
    point = {(x, y): players[x * k + y] for x in range(k) for y in range(k)}
    if done == k:  # the vertical lines
        return [[point[(c, y)] for y in range(k)] for c in range(k)]
    slope = done
    return [[point[(x, add(mul(slope, x), b))] for x in range(k)] for b in range(k)]

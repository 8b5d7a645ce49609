"""Arena: a tournament of fixed duration in which tables form continuously (Lichess's most
played format, here for tables of any size).

- It runs from its start until `ends_at` (the start plus `duration_s`, recorded in its
  `started` event). An entrant who finishes a game goes back into the pool at once; a table
  forms as soon as `table_size` entrants are waiting (the director looks on every tick of
  the timekeeper), longest waiting first, preferring entrants who did not just meet (who
  were not at the last table of any of the others). No table forms in the last `quiet_s`
  seconds, so that the games started can end in time.
- At `ends_at` the tournament finishes, with the tables finished by then; a game still
  running does not count (its players' games go on, and are rated, but the standings are
  final on time).
- Points by rank on the tournament's scale (standings.points_for). A streak: an entrant
  whose two previous games were both wins (rank 1) scores double for the next game, and
  for every game after it while the wins go on (Lichess's streak: two wins light it, a
  game not won puts it out).
- Standings: points, then wins, then total game score, then registration order; live while
  it runs (from the tables recorded so far).

All of it is a function of the tournament's events (the recorded order of the finished
tables included), so an export recomputes the standings exactly.
"""

from __future__ import annotations

from typing import Any

from domain.tournaments.state import Table, Tournament

STREAK = 2  # wins in a row that light a streak


def tables(state: Tournament) -> list[Table]:
    """Every table of the arena, in the order they formed."""
    return [t for r in state.rounds for t in r.tables]


def waiting(state: Tournament) -> list[str]:
    """The active entrants not at a running table, longest waiting first: those who never
    played (in registration order), then by the order their last tables finished."""
    busy = {e for t in tables(state) if t.ranks is None for e in t.seats}
    last_finish: dict[str, int] = {}
    for t in tables(state):
        if t.finished is not None:
            for e in t.seats:
                last_finish[e] = max(last_finish.get(e, -1), t.finished)
    order = {e: i for i, e in enumerate(state.entrants)}
    free = [e for e in state.active if e not in busy]
    return sorted(free, key=lambda e: (last_finish.get(e, -1), order[e]))


def last_met(state: Tournament) -> dict[str, set[str]]:
    """Each entrant's opponents at its last finished table."""
    met: dict[str, tuple[int, set[str]]] = {}
    for t in tables(state):
        if t.finished is None:
            continue
        for e in t.seats:
            if e not in met or met[e][0] < t.finished:
                met[e] = (t.finished, {o for o in t.seats if o != e})
    return {e: others for e, (_, others) in met.items()}


def pair(state: Tournament) -> list[list[str]]:
    """The tables to form now from the pool: while `table_size` entrants wait, the longest
    waiting starts a table, and each seat goes to the longest waiting entrant who did not
    just meet anyone already at it (the longest waiting of all when everyone did)."""
    size = state.table_size
    pool = waiting(state)
    met = last_met(state)
    formed: list[list[str]] = []
    while len(pool) >= size:
        table = [pool.pop(0)]
        while len(table) < size:
            fresh = [e for e in pool if not any(e in met.get(s, ()) for s in table)]
            chosen = (fresh or pool)[0]
            pool.remove(chosen)
            table.append(chosen)
        formed.append(table)
    return formed


def standings(state: Tournament, points_for: Any) -> list[dict[str, Any]]:
    """Every entrant's line, best first, with its place (shared on a full tie). Games count
    in the order their tables finished (a streak is an order)."""
    scale = list(state.config["points"])
    points = dict.fromkeys(state.entrants, 0.0)
    wins = dict.fromkeys(state.entrants, 0)
    score = dict.fromkeys(state.entrants, 0)
    games = dict.fromkeys(state.entrants, 0)
    run = dict.fromkeys(state.entrants, 0)  # wins in a row so far
    done = sorted((t.finished, t) for t in tables(state) if t.finished is not None)
    for _, t in done:
        assert t.ranks is not None and t.scores is not None
        for seat, e in enumerate(t.seats):
            gained = points_for(scale, len(t.seats), t.ranks[seat])
            if run[e] >= STREAK:
                gained *= 2
            won = t.ranks[seat] == 1 and seat not in t.forfeited
            run[e] = run[e] + 1 if won else 0
            points[e] = round(points[e] + gained, 6)
            wins[e] += won
            score[e] += t.scores[seat]
            games[e] += 1
    order = list(state.entrants)
    lines = [
        {
            "entrant": e,
            "name": state.entrants[e]["name"],
            "points": points[e],
            "wins": wins[e],
            "streak": run[e] >= STREAK,  # its next game counts double
            "score": score[e],
            "games": games[e],
            "withdrawn": e in state.withdrawn,
            "withdrawn_reason": state.withdrawn_reasons.get(e),
        }
        for e in order
    ]

    def key(line: dict[str, Any]) -> tuple[float, int, int]:
        return (line["points"], line["wins"], line["score"])

    lines.sort(key=lambda line: (*(-k for k in key(line)), order.index(line["entrant"])))
    for i, line in enumerate(lines):
        tied = i > 0 and key(lines[i - 1]) == key(line)
        line["place"] = lines[i - 1]["place"] if tied else i + 1
    return lines

"""Points, standings and tie-breaks.

Points per rank come from the tournament (default 6/4/2/0 for four seats: 2 per place
beaten). A smaller table's points are the tournament's scale read at the same fraction of
the way from first to last (a three-seat table of a four-seat tournament gives 6/3/0), so
first and last are worth the same at every table. Tied seats (the rules' competition
ranks: 1, 1, 3) each take the points of the rank they share. A bye is worth the mean of
the full table's points.

Standings order: points, then opponents' points (the sum of the points of everyone met),
then total game score, then registration order.
"""

from __future__ import annotations

from typing import Any

from domain.tournaments.state import Tournament


def default_points(table_size: int) -> list[float]:
    return [2.0 * (table_size - 1 - i) for i in range(table_size)]


def points_for(scale: list[float], size: int, rank: int) -> float:
    """Points for `rank` (1-based) at a table of `size` seats, on the tournament's scale."""
    if size == 1:
        return scale[0]
    where = (rank - 1) * (len(scale) - 1) / (size - 1)
    low = int(where)
    if low >= len(scale) - 1:
        return scale[-1]
    part = where - low
    return round(scale[low] + (scale[low + 1] - scale[low]) * part, 6)


def bye_points(scale: list[float]) -> float:
    return round(sum(scale) / len(scale), 6)


def standings(state: Tournament) -> list[dict[str, Any]]:
    """Every entrant's line, best first, with its place (shared on a full tie)."""
    scale = list(state.config["points"])
    points = {e: 0.0 for e in state.entrants}
    score = {e: 0 for e in state.entrants}
    games = {e: 0 for e in state.entrants}
    met: dict[str, list[str]] = {e: [] for e in state.entrants}
    for r in state.rounds:
        for bye in r.byes:
            points[bye] += bye_points(scale)
        for t in r.tables:
            if t.ranks is None or t.scores is None:
                continue
            for seat, entrant in enumerate(t.seats):
                points[entrant] += points_for(scale, len(t.seats), t.ranks[seat])
                score[entrant] += t.scores[seat]
                games[entrant] += 1
                met[entrant] += [o for o in t.seats if o != entrant]
    opponents = {e: round(sum(points[o] for o in met[e]), 6) for e in state.entrants}
    order = list(state.entrants)
    lines = [
        {
            "entrant": e,
            "name": state.entrants[e]["name"],
            "points": round(points[e], 6),
            "opponents_points": opponents[e],
            "score": score[e],
            "games": games[e],
            "withdrawn": e in state.withdrawn,
        }
        for e in order
    ]

    def key(line: dict[str, Any]) -> tuple[float, float, int]:
        return (line["points"], line["opponents_points"], line["score"])

    lines.sort(key=lambda line: (*(-k for k in key(line)), order.index(line["entrant"])))
    for i, line in enumerate(lines):
        tied = i > 0 and key(lines[i - 1]) == key(line)
        line["place"] = lines[i - 1]["place"] if tied else i + 1
    return lines

"""Points, standings and tie-breaks.

Points per rank come from the tournament (default 6/4/2/0 for four seats: 2 per place
beaten). A smaller table's points are the tournament's scale read at the same fraction of
the way from first to last (a three-seat table of a four-seat tournament gives 6/3/0), so
first and last are worth the same at every table. Tied seats (the rules' competition
ranks: 1, 1, 3) each take the points of the rank they share. A bye is worth the mean of
the full table's points.

Arena: points with a streak bonus, then wins (domain/tournaments/arena.py).

Swiss and round-robin order: points, then opponents' points (the sum of the points of
everyone met), then total game score, then registration order.

Knockout order (tournaments of ruleset 2 and later), by how far each entrant went:

1. the last round reached (a table or a bye in it), later rounds first, so the final's
   table takes places 1 to k and nobody knocked out earlier is ever above someone who
   went further;
2. within that round, those who could go on first: a seat that forfeited there, or an
   entrant who withdrew, comes behind the others of its table;
3. the table rank in that round (the final's ranks are its places: the rules' competition
   ranks, so a tie at 1 gives 1, 1, 3); an unfinished table's entrants come first, still
   playing;
4. then, except in the final, points, opponents' points, game score, registration order.

A place is shared on a full tie of what decides it (in the final: the rank alone).

Rulesets: config["ruleset"] is the edition of these rules a tournament was created under.
Tournaments without one (created before knockout places and withdrawal reasons) keep the
standings they were finished with, the points order for every format and no
`withdrawn_reason`, so that their exports still verify.
"""

from __future__ import annotations

from typing import Any

from domain.tournaments import arena
from domain.tournaments.state import Tournament

RULESET = 2  # the edition of the standings rules that new tournaments record
Stage = tuple[int, int, int]  # (last round reached, out there (1) or not (0), rank there)


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
    if state.config["format"] == "arena":
        return arena.standings(state, points_for)
    lines = _lines(state)
    order = {e: i for i, e in enumerate(state.entrants)}
    ruleset = int(state.config.get("ruleset", 1))
    if ruleset >= 2:
        for line in lines:
            line["withdrawn_reason"] = state.withdrawn_reasons.get(line["entrant"])
    if ruleset >= 2 and state.config["format"] == "knockout":
        return _knockout(state, lines, order)

    def key(line: dict[str, Any]) -> tuple[float, float, int]:
        return (line["points"], line["opponents_points"], line["score"])

    lines.sort(key=lambda line: (*(-k for k in key(line)), order[line["entrant"]]))
    _place(lines, key)
    return lines


def _lines(state: Tournament) -> list[dict[str, Any]]:
    """Each entrant's points, opponents' points, game score and games, in registration
    order."""
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
    return [
        {
            "entrant": e,
            "name": state.entrants[e]["name"],
            "points": round(points[e], 6),
            "opponents_points": opponents[e],
            "score": score[e],
            "games": games[e],
            "withdrawn": e in state.withdrawn,
        }
        for e in state.entrants
    ]


def stages(state: Tournament) -> dict[str, Stage]:
    """Knockout: each entrant's last round reached, whether it was out there (its seat
    forfeited, or it withdrew) and its table rank there (0: a bye, or a table still being
    played). (0, 0, 0) for an entrant never seated."""
    stage: dict[str, Stage] = dict.fromkeys(state.entrants, (0, 0, 0))
    for r in state.rounds:
        for bye in r.byes:
            stage[bye] = (r.number, 0, 0)
        for t in r.tables:
            for seat, entrant in enumerate(t.seats):
                rank = t.ranks[seat] if t.ranks is not None else 0
                stage[entrant] = (r.number, int(seat in t.forfeited), rank)
    for entrant in state.withdrawn:
        reached, _, rank = stage[entrant]
        stage[entrant] = (reached, 1, rank)
    return stage


def final_table(state: Tournament) -> int | None:
    """The number of the knockout's final round: its last, when that is one table and no
    bye, with its result recorded; None before (or when it ended with no final)."""
    if not state.rounds:
        return None
    last = state.rounds[-1]
    if len(last.tables) == 1 and not last.byes and last.complete:
        return last.number
    return None


def _knockout(
    state: Tournament, lines: list[dict[str, Any]], order: dict[str, int]
) -> list[dict[str, Any]]:
    stage = stages(state)
    final = final_table(state)

    def decides(line: dict[str, Any]) -> tuple[float, ...]:
        """What places the line: how far it went, then (but in the final) its points."""
        reached, out, rank = stage[line["entrant"]]
        went = (-reached, out, rank)
        if final is not None and reached == final:
            return went  # the final's ranks are its places
        return (*went, -line["points"], -line["opponents_points"], -line["score"])

    def sort_key(line: dict[str, Any]) -> tuple[float, ...]:
        tail = (-line["points"], -line["opponents_points"], -line["score"])
        return (*decides(line), *tail, order[line["entrant"]])

    lines.sort(key=sort_key)
    _place(lines, decides)
    return lines


def _place(lines: list[dict[str, Any]], key: Any) -> None:
    """Number the sorted lines from 1; a line whose `key` equals the one before shares its
    place (competition places: 1, 1, 3)."""
    for i, line in enumerate(lines):
        tied = i > 0 and key(lines[i - 1]) == key(line)
        line["place"] = lines[i - 1]["place"] if tied else i + 1

"""Final scoring and the result (R36)."""

from __future__ import annotations

from typing import Any

from domain.contract import Result, rank
from domain.santa_maria import data
from domain.santa_maria.state import PlayerState, SantaMariaState


def bishop_measure(s: SantaMariaState, p: PlayerState, rule: str) -> int:
    if rule == "ship_tiles":
        return sum(len(d) for d in p.port)
    if rule == "complete_lines":
        rows = sum(1 for r in range(6) if data.EMPTY not in p.cells[r * 6 : r * 6 + 6])
        cols = sum(1 for c in range(6) if data.EMPTY not in p.cells[c::6])
        return rows + cols
    if rule == "monks_placed":
        return data.MONKS_PER_PLAYER - p.monks_reserve
    if rule == "conquistador_position":
        return p.conquistador
    if rule == "coins":
        return p.coins
    if rule == "roads":
        return p.cells.count(data.ROAD)
    raise ValueError(rule)  # pragma: no cover - data error


def bishop_score(s: SantaMariaState, p: PlayerState, bishop: str) -> int:
    _, rule, per, unit = data.BISHOPS[bishop]
    return per * (bishop_measure(s, p, rule) // unit)


def breakdown(s: SantaMariaState, p: PlayerState) -> dict[str, int]:
    ships = sum(data.SHIPS[t][1] for dock in p.port for t in dock)
    scholars = sum(data.SCHOLARS[sc][1] for sc in p.scholars)
    bishops = sum(bishop_score(s, p, b) - data.BISHOP_COST for b in p.bishops)
    total = p.points + ships + scholars + bishops
    return {
        "points": p.points,
        "ships": ships,
        "scholars": scholars,
        "bishops": bishops,
        "total": total,
    }


def final_scores(s: SantaMariaState) -> list[int]:
    return [breakdown(s, p)["total"] for p in s.players]


def tiebreak(p: PlayerState) -> list[int]:
    """R36: most coins, then most resources (all five kinds, one each)."""
    return [p.coins, sum(p.res.values())]


def result(s: SantaMariaState) -> Result | None:
    if s.phase != "over":
        return None
    details: list[dict[str, Any]] = [breakdown(s, p) for p in s.players]
    scores = [d["total"] for d in details]
    tbs = [tiebreak(p) for p in s.players]
    keys = [(scores[i], *tbs[i]) for i in range(s.seats)]
    return Result(scores=scores, ranks=rank(keys), tiebreak=tbs, details={"players": details})

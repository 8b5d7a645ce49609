"""The search's estimate of a Santa Maria seat's final score (`domain/fitted.py`): features
of the seat's position, one set of weights per stage (the year, retired or not). Fitted to
greedy's games, it prices what the hand-tuned `value` leaves out, such as a port tile's
income at every retire still to come."""

from __future__ import annotations

from domain.fitted import Record, predict
from domain.santa_maria import data
from domain.santa_maria.estimate_weights import WEIGHTS
from domain.santa_maria.rules import NON_BUILDINGS, conquistador_points, conquistador_ranking
from domain.santa_maria.scoring import breakdown
from domain.santa_maria.state import PlayerState, SantaMariaState

FEATURES = (
    "bias",
    "score",
    "coins",
    "wood_grain",
    "sugar_gem",
    "gold",
    "buildings",
    "blue_dice",
    "religion",
    "conquistador",
    "year_end_points",
    "dock_coins",
    "dock_religion",
    "dock_conquistador",
    "dock_points",
    "monks_placed",
    "empty_cells",
    "main_actions",
)


def records(s: SantaMariaState) -> list[Record]:
    """Each seat's stage and features."""
    year_end = year_end_points(s)
    return [(_stage(s, p), _features(s, p, year_end[seat])) for seat, p in enumerate(s.players)]


def recorded(s: SantaMariaState) -> bool:
    """The positions a fit learns from: the play phase (the draft is over quickly)."""
    return s.phase == "play"


def _stage(s: SantaMariaState, p: PlayerState) -> str:
    return f"{max(1, s.year)}{'r' if p.retired else 'a'}"


def _features(s: SantaMariaState, p: PlayerState, year_end: int) -> list[float]:
    res = p.res
    return [
        1.0,
        float(breakdown(s, p)["total"]),
        float(p.coins),
        float(res["wood"] + res["grain"]),
        float(res["sugar"] + res["gem"]),
        float(res["gold"]),
        float(sum(1 for c in p.cells if c not in NON_BUILDINGS)),
        float(len(p.blue)),
        float(p.religion),
        float(p.conquistador),
        float(year_end),
        *(float(len(dock)) for dock in p.port),
        float(data.MONKS_PER_PLAYER - p.monks_reserve),
        float(p.cells.count(data.EMPTY)),
        float(p.main_actions),
    ]


def year_end_points(s: SantaMariaState) -> list[int]:
    """What each seat would score for the conquistador if the year ended now."""
    year = max(1, min(data.YEARS, s.year))  # the draft counts as year 1
    return conquistador_points(s, conquistador_ranking(s), year)


def estimate(s: SantaMariaState) -> list[float]:
    """Each seat's expected final score (the exact one once the game is over)."""
    if s.phase == "over":
        return [float(breakdown(s, p)["total"]) for p in s.players]
    return predict(WEIGHTS, records(s))

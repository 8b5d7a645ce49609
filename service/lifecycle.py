"""What the lifecycle rules decide, as pure functions: final ranks once seats forfeited,
the result of a game a forfeit ends, and a rematch's seat order. The service writes what
these decide; the audit recomputes them from an export.

- A seat that forfeited (it resigned, or timed out under the `forfeit` policy) ranks after
  every seat that did not; among themselves, seats keep the order the rules gave them.
- A forfeit ends a two-seat game at once (the other seat wins); with more seats a bot plays
  the forfeited seat to the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.contract import Result


def final_result(result: Result, forfeited: Mapping[int, str]) -> Result:
    """The rules' result with forfeited seats moved below everyone else."""
    if not forfeited:
        return result
    ranks = result.ranks
    kept = [s for s in range(len(ranks)) if s not in forfeited]

    def placed(seat: int) -> int:
        group = kept if seat not in forfeited else list(forfeited)
        ahead = len(kept) if seat in forfeited else 0
        return 1 + ahead + sum(1 for other in group if ranks[other] < ranks[seat])

    return Result(
        scores=list(result.scores),
        ranks=[placed(s) for s in range(len(ranks))],
        tiebreak=list(result.tiebreak),
        details={**result.details, "forfeited": _named(forfeited)},
    )


def ends_by_forfeit(seats: int, forfeited: Mapping[int, str]) -> bool:
    """A two-seat game ends as soon as one seat forfeits."""
    return seats == 2 and bool(forfeited)


def forfeit_result(seats: int, forfeited: Mapping[int, str]) -> Result:
    """The result of a game a forfeit ended before the rules did: no scores were reached
    (all 0), the seats that did not forfeit share first place, those that did share the
    place after them (all of them first when every seat forfeited)."""
    kept = seats - len(forfeited)
    return Result(
        scores=[0] * seats,
        ranks=[1 + kept if s in forfeited else 1 for s in range(seats)],
        details={"forfeited": _named(forfeited), "ended_by": "forfeit"},
    )


def _named(forfeited: Mapping[int, str]) -> dict[str, Any]:
    return {str(seat): reason for seat, reason in sorted(forfeited.items())}


def rematch_seat(seat: int, seats: int) -> int:
    """Where the player of `seat` sits in the rematch: one place earlier, so the second
    player moves first and the first player last."""
    return (seat - 1) % seats

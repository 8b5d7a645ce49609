"""Taking back a decision, with every other seated person's consent (docs/undo.md).

The fold keeps, while a takeback is possible, each person's take-back point (the version
right before their last decision, and the rules state then) and the decisions made since
the oldest point. All of it is pure data of the fold, so an export folds to the same points
and the audit judges a request as the service did.

A takeback is refused across anything the requester may have learned from it
(`refusal`): a draw of the rules' generator, an event the requester saw only in part, or
anything they saw that depended on what they could not see before their decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.contract import Game, RuleError

UNDO_REQUESTED = "undo_requested"  # {seat, to_version}: a seat asks to take back
UNDO_ACCEPTED = "undo_accepted"  # {seat}: another seat (a person, or a bot at once) agrees
UNDO_DECLINED = "undo_declined"  # {seat}: another seat refuses, or the requester withdraws
REVERTED = "reverted"  # {seat, to_version}: the game goes on from the state at to_version
UNDO_EVENTS = frozenset({UNDO_REQUESTED, UNDO_ACCEPTED, UNDO_DECLINED, REVERTED})

# The most rules events kept since a take-back point: an older point is dropped (a
# takeback is for the decision just made, not for a long line of them).
MAX_SINCE = 256
SAMPLES = 4  # hidden parts drawn again to check that what the requester saw did not depend


@dataclass(frozen=True)
class Points:
    """Each person's take-back point, (seat, to_version, rules state at to_version), and the
    rules events since the oldest, (version before it, seat, command as recorded: a
    decision's events share its seat and command). Immutable:
    a fold replaces it, so copies of a fold share it safely (the states are never evolved:
    a revert clones the one it goes back to)."""

    points: tuple[tuple[int, int, Any], ...] = ()
    log: tuple[tuple[int, int, Any], ...] = ()

    def point(self, seat: int) -> tuple[int, Any] | None:
        return next(((v, st) for s, v, st in self.points if s == seat), None)

    def since(self, version: int) -> list[tuple[int, Any]]:
        """(seat, command) of each rules event from `version` on."""
        return [(seat, command) for v, seat, command in self.log if v >= version]


NONE = Points()


def noted(
    points: Points, version: int, seat: int, command: Any, before: Any, person: bool
) -> Points:
    """A rules event of `seat`'s decision `command`, made at `version` (the state `before`
    it): the first of a person's decision moves their point to it (`person`); the log keeps
    it while a point is older."""
    if not person and not points.points:
        return points  # nobody's point to keep a log for (a bots' stretch of the game)
    kept = points.points
    if person:
        kept = (*(p for p in kept if p[0] != seat), (seat, version, before))
    log = (*points.log, (version, seat, command))
    if len(log) > MAX_SINCE:
        log = log[-MAX_SINCE:]
        kept = tuple(p for p in kept if p[1] >= log[0][0])
    oldest = min((p[1] for p in kept), default=None)
    log = tuple(e for e in log if oldest is not None and e[0] >= oldest)
    return Points(kept, log)


def dropped(points: Points, seat: int) -> Points:
    """`seat` has no point any more (it timed out: what its bot decided is not its own to
    take back, and nothing before the timeout either)."""
    return Points(tuple(p for p in points.points if p[0] != seat), points.log)


def reverted(points: Points, to_version: int) -> Points:
    """After a revert to `to_version`: the decisions from it on are undone, and so are the
    points they made (the points before them stand)."""
    kept = tuple(p for p in points.points if p[1] < to_version)
    log = tuple(e for e in points.log if e[0] < to_version)
    return Points(kept, log)


class _NoDraws(random.Random):
    """A generator that refuses every draw: a decision re-run with it that completes drew
    nothing (every method of random.Random draws through these two)."""

    def random(self) -> float:
        raise _Drew

    def getrandbits(self, k: int) -> int:
        raise _Drew


class _Drew(BaseException):  # not an Exception: rules that catch those cannot hide a draw
    pass


def refusal(game: Game[Any, Any], points: Points, seat: int, current: Any) -> str | None:
    """Why `seat` may not take back its last decision now (a problem code), or None.

    1. `undo_nothing_to_take_back`: no point (no decision of its own kept), or the
       decisions kept since it do not lead to the `current` state.
    2. `undo_across_randomness`: a decision since, re-run on the state it was made on with a
       generator that refuses every draw, drew (so it used the rules' randomness); or an
       event since was shown to the seat redacted (it hid something that may show later); or
       what the seat saw since (each event as shown to it, and its view after it) changes
       when what it could not see at its point is drawn again (`sample_hidden`): it saw
       something it could not see before.
    """
    found = points.point(seat)
    if found is None:
        return "undo_nothing_to_take_back"
    version, before = found
    decisions = points.since(version)
    seen, reached = _seen(game, before, decisions, seat, redacted_refused=True)
    if seen is None:
        return "undo_across_randomness"
    if reached != current:
        return "undo_nothing_to_take_back"
    for k in range(SAMPLES):
        drawn = game.sample_hidden(game.clone(before), seat, random.Random(f"undo:{version}:{k}"))
        if _seen(game, drawn, decisions, seat)[0] != seen:
            return "undo_across_randomness"
    return None


def _seen(
    game: Game[Any, Any],
    state: Any,
    decisions: list[tuple[int, Any]],
    seat: int,
    redacted_refused: bool = False,
) -> tuple[list[Any] | None, Any]:
    """What `seat` sees while `decisions` are re-run from `state` (never drawing): each
    event as shown to it and its view after each; None when a decision drew, the rules
    refuse it there, or (`redacted_refused`) an event was shown to the seat redacted; and
    the state reached."""
    state = game.clone(state)
    seen: list[Any] = []
    i = 0
    try:
        while i < len(decisions):  # a decision, then past as many logged events as it made
            actor, recorded = decisions[i]
            command = msgspec.convert(recorded, game.command_type)
            made = game.decide(state, actor, command, _NoDraws())
            if not made or decisions[i : i + len(made)] != [(actor, recorded)] * len(made):
                return None, state  # not the events that were logged
            for event in made:
                shown = game.redact(event, seat)
                if redacted_refused and shown != event:
                    return None, state
                state = game.evolve(state, event)
                seen += [msgspec.to_builtins(shown), msgspec.to_builtins(game.view(state, seat))]
            i += len(made)
    except (_Drew, RuleError, msgspec.ValidationError):
        return None, state
    return seen, state

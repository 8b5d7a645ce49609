"""Time controls: what a game's clock is, and the clock folded from the events' time stamps.

Time is data. The service stamps every event with the time its decision was made (`at`);
a clock is a fold over those stamps, so the export alone lets anyone recompute every seat's
remaining time and check that each timeout was due and that no decision came after its
deadline.

A seat's decision starts at the event after which the game awaits it (its clock runs from
that event's `at`) and ends at the first event of its command, which records the time it
used. Simultaneous decisions run every awaited seat's clock at once. A seat that forfeited
never runs a clock; a bot's seat runs one in games created with `bot_clocks` (its thinking
is its own time), and never in older games (Fold.timed_seats).

- `fischer`: each seat has `initial_s`; a decision costs the time it used and then gains
  `increment_s`. The deadline is the decision's start plus the time left.
- `deadline`: each decision has `per_decision_s` (correspondence play).

No clock runs while the service cannot act (every process stopped, or the store out of
reach): the timekeeper that takes over after such a gap records a `clock_credit` in each
running timed game, and the credited seats' decisions started that much later
(service/heartbeat.py tells the gap; `Clock.credit`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from service.errors import Unprocessable

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_SECONDS = 60 * 60 * 24 * 60  # 60 days: more than any clock needs
KINDS = ("fischer", "deadline")
POLICIES = ("bot:random", "bot:greedy", "forfeit")
DEFAULT_POLICY = "bot:random"

Seconds = Annotated[int, Meta(ge=1, le=MAX_SECONDS)]


class Fischer(msgspec.Struct, tag="fischer", tag_field="kind", forbid_unknown_fields=True):
    """A live clock per seat: `initial_s`, plus `increment_s` after each decision."""

    initial_s: Seconds  # each seat's time at the start, in seconds (at most 60 days)
    # Seconds added to a seat's time after each of its decisions (at most 60 days).
    increment_s: Annotated[int, Meta(ge=0, le=MAX_SECONDS)] = 0


class Deadline(msgspec.Struct, tag="deadline", tag_field="kind", forbid_unknown_fields=True):
    """Correspondence: `per_decision_s` for every decision (e.g. 86400 for a day)."""

    per_decision_s: Seconds  # the seconds each decision may take (at most 60 days)


ClockSpec = Fischer | Deadline


def parse(clock: Any, on_timeout: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The clock and timeout policy of a new game as stored in its `game_created` event
    (None, None for a game without a clock); 422 `invalid_clock` when either is wrong."""
    if clock is None:
        if on_timeout is not None:
            raise Unprocessable("invalid_clock", "on_timeout needs a clock")
        return None, None
    try:
        spec = msgspec.convert(clock, ClockSpec, strict=True)
    except msgspec.ValidationError as error:
        raise Unprocessable("invalid_clock", f"clock: {error}") from None
    policy = on_timeout or DEFAULT_POLICY
    if policy not in POLICIES:
        raise Unprocessable("invalid_clock", f"on_timeout must be one of {', '.join(POLICIES)}")
    return msgspec.to_builtins(spec), policy


def micros(at: str) -> int:
    """An `at` stamp (ISO 8601, UTC) as integer microseconds since the epoch: exact."""
    return (datetime.fromisoformat(at) - EPOCH) // timedelta(microseconds=1)


def stamp(us: int) -> str:
    """Integer microseconds since the epoch as an `at`-style stamp."""
    moment = EPOCH + timedelta(microseconds=us)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


class Clock:
    """The clocks of one game, folded event by event (`observe`). Mutable; `copy` it."""

    __slots__ = ("increment", "initial", "kind", "per_decision", "remaining", "since")

    def __init__(self, spec: dict[str, Any], seats: int) -> None:
        self.kind: str = spec["kind"]
        self.initial: int = spec.get("initial_s", 0) * 1_000_000
        self.increment: int = spec.get("increment_s", 0) * 1_000_000
        self.per_decision: int = spec.get("per_decision_s", 0) * 1_000_000
        self.remaining = [self.initial] * seats  # fischer: microseconds left per seat
        self.since: dict[int, int] = {}  # awaited seat -> when its decision started (us)

    def copy(self) -> Clock:
        new = Clock.__new__(Clock)
        new.kind, new.initial, new.increment = self.kind, self.initial, self.increment
        new.per_decision, new.remaining, new.since = (
            self.per_decision,
            list(self.remaining),
            dict(self.since),
        )
        return new

    def deadline(self, seat: int) -> int | None:
        """When `seat`'s current decision times out (us), if its clock runs."""
        start = self.since.get(seat)
        if start is None:
            return None
        return start + (self.remaining[seat] if self.kind == "fischer" else self.per_decision)

    def used(self, seat: int, at: str) -> int:
        """Microseconds `seat` has used on its current decision at time `at`."""
        return micros(at) - self.since.get(seat, micros(at))

    def charged(self, seat: int, at: str) -> dict[str, int]:
        """What `seat`'s decision at `at` records: the time it used, and on a Fischer clock
        the time left after its increment (milliseconds)."""
        used = self.used(seat, at)
        if self.kind != "fischer":
            return {"used_ms": used // 1000}
        left = max(0, self.remaining[seat] - used) + self.increment
        return {"used_ms": used // 1000, "remaining_ms": left // 1000}

    def decided(self, seat: int, at: str) -> None:
        """`seat` decides at `at`: its clock stops and is charged."""
        used = self.used(seat, at)
        self.since.pop(seat, None)
        if self.kind == "fischer":
            self.remaining[seat] = max(0, self.remaining[seat] - used) + self.increment

    def credit(self, seats: list[int], ms: int) -> None:
        """The service could not act for `ms` while `seats` were deciding: their decisions
        count as started that much later (a Fischer seat keeps its time, a deadline moves)."""
        for seat in seats:
            if seat in self.since:
                self.since[seat] += ms * 1000

    def pause(self, seat: int, at: str) -> int:
        """`seat`'s clock stops at `at` without a charge (a takeback request stands): the
        microseconds it had used on its decision, for `resume`."""
        used = self.used(seat, at)
        self.since.pop(seat, None)
        return used

    def resume(self, seat: int, at: str, used: int) -> None:
        """`seat`'s paused decision goes on at `at`, the `used` microseconds still counted."""
        self.since[seat] = micros(at) - used

    def timed_out(self, seat: int) -> None:
        """`seat` ran out: a bot decides for it now, and its clock goes on from the next
        decision with the increment plus a grace of a tenth of the initial time (fischer),
        so that a player who comes back has time to play."""
        self.since.pop(seat, None)
        if self.kind == "fischer":
            self.remaining[seat] = self.increment + self.initial // 10

    def observe(self, at: str, timed: list[int]) -> None:
        """After an event stamped `at`, the seats whose clock runs (awaited, played by
        people): a seat not running before starts now; one no longer awaited stops."""
        for seat in list(self.since):
            if seat not in timed:
                del self.since[seat]
        now: int | None = None
        for seat in timed:
            if seat not in self.since:
                now = micros(at) if now is None else now
                self.since[seat] = now

    def shown(self, seats: int, now_us: int) -> list[dict[str, Any]]:
        """Each seat's clock as `GET` of a game shows it at `now_us`."""
        out = []
        for seat in range(seats):
            deadline = self.deadline(seat)
            running = deadline is not None
            if self.kind == "fischer":
                left = self.remaining[seat] - (now_us - self.since[seat] if running else 0)
                left_ms: int | None = max(0, left) // 1000
            else:
                left_ms = max(0, deadline - now_us) // 1000 if deadline is not None else None
            out.append(
                {
                    "seat": seat,
                    "running": running,
                    "remaining_ms": left_ms,
                    "deadline": stamp(deadline) if deadline is not None else None,
                }
            )
        return out

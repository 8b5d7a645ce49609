"""The sentinel: every ended game's record re-read, again and again, against its leaf in the
transparency log, so that a game rewritten or cut short after it ended is found by the
service itself, not only by a client who kept its export (docs/trust.md).

It takes a bounded share of the store: at most `events_per_s` events read a second, and no
faster than one pass over every logged game per `period_s` (a pass that cannot fit in the
period at that budget says so). One process of a database runs it (a role lock, as the
timekeeper's): `tabletop serve` unless TABLETOP_SENTINEL=elsewhere, or `tabletop sentinel
run`. What it finds is kept in the store (service/findings.py) and said in the log.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from uuid import UUID

import structlog

from service.audit import stored_lines
from service.findings import Findings
from service.settings import Settings
from service.sole import sole
from service.store import EventStoreApp, open_store
from service.tamper import Tamper, against_leaf
from service.transparency import LeafAppended, log_of

log = structlog.get_logger("tabletop.sentinel")

PAGE = 500  # leaves read at a time


@dataclass(frozen=True)
class Pace:
    """The sentinel's share of the store."""

    events_per_s: float = 2000.0  # TABLETOP_SENTINEL_EVENTS_PER_S: at most this many read
    period_s: float = 3600.0  # TABLETOP_SENTINEL_PERIOD_S: every game within this, no faster

    @classmethod
    def from_env(cls) -> Pace:
        env = os.environ.get
        pace = cls(
            events_per_s=float(env("TABLETOP_SENTINEL_EVENTS_PER_S", str(cls.events_per_s))),
            period_s=float(env("TABLETOP_SENTINEL_PERIOD_S", str(cls.period_s))),
        )
        if pace.events_per_s <= 0 or pace.period_s < 0:
            raise ValueError("the sentinel's events per second must be above 0, its period >= 0")
        return pace


def check_game(store: EventStoreApp, leaf: LeafAppended) -> tuple[Tamper | None, int]:
    """A logged game's stored record against its leaf; and how many events were read."""
    lines = stored_lines(store, UUID(leaf.subject))
    return against_leaf(leaf.subject, lines, leaf.final_hash, leaf.version or None), len(lines)


class Sentinel:
    def __init__(self, store: EventStoreApp, pace: Pace, findings: Findings | None = None) -> None:
        self._store = store
        self.pace = pace
        self.findings = findings or Findings(store)
        self.checked = 0  # games checked by this process

    def sweep(self, stop: threading.Event | None = None) -> list[Tamper]:
        """One pass over every game leaf this process holds, paced; what it found."""
        stop = stop or threading.Event()
        logged = log_of(self._store)
        found: list[Tamper] = []
        began, start = time.monotonic(), 0
        while not stop.is_set():
            leaves = logged.held(start, PAGE)
            start += len(leaves)
            for leaf in leaves:
                if stop.is_set() or leaf.kind != "game" or logged.leaf(leaf.subject) != leaf:
                    continue  # a game is held to its first leaf (a later one vouches nothing)
                checking = time.monotonic()
                tamper, events = check_game(self._store, leaf)
                self.checked += 1
                if tamper is None:
                    if logged.refusal is None:  # a leaf of a log that is not itself whole
                        self.findings.matches(leaf.subject)  # clears nothing
                else:
                    self.findings.found(tamper)
                    found.append(tamper)
                self._rest(stop, events, logged.size(), time.monotonic() - checking)
            if len(leaves) < PAGE:
                break
        spent = time.monotonic() - began
        if self.pace.period_s > 0 and spent > self.pace.period_s * 1.5:
            log.warning("sentinel_behind", seconds=round(spent), period_s=self.pace.period_s)
        return found

    def run(self, stop: threading.Event) -> None:
        """Sweep after sweep until `stop`."""
        while not stop.is_set():
            began = time.monotonic()
            self.sweep(stop)
            # nothing logged yet, or a quick pass: the rest of the period
            stop.wait(max(0.5, self.pace.period_s - (time.monotonic() - began)))

    def keep(self, settings: Settings, stop: threading.Event) -> None:
        """`run`, as the one sentinel of the database (waits on its lock while another
        process holds it; starts again when the store comes back)."""
        while not stop.is_set():
            try:
                with sole(settings, "sentinel"):
                    self.run(stop)
            except Exception as error:  # no database now: the lock comes back with it
                log.warning("sentinel_failed", error=repr(error))
                stop.wait(1.0)

    def _rest(self, stop: threading.Event, events: int, logged: int, spent: float) -> None:
        """Wait so that the events read stay within the budget, and a pass takes its
        period (shared out over the games logged), whichever is the longer."""
        budget = events / self.pace.events_per_s
        share = self.pace.period_s / max(logged, 1)
        stop.wait(max(0.0, max(budget, share) - spent))


def run_forever(settings: Settings, stop: threading.Event | None = None) -> None:
    """`tabletop sentinel run`: the sentinel in a process of its own, until `stop`."""
    store = open_store(settings)
    try:
        Sentinel(store, Pace.from_env()).keep(settings, stop or threading.Event())
    finally:
        store.close()

"""Reads of a game's history (its event pages, its export and audit) from a hot standby
(TABLETOP_READ_DATABASE_URL), never behind what the primary says.

A standby replays the primary's log a little later: milliseconds usually, seconds under
load, without bound while its replication is cut. A game's history is read there only up
to the version its caller's fold is at (a fold is caught up with the primary's head before
any read answers, service/heads.py), and only if the standby has replayed that far;
otherwise the primary answers, as it does when the standby does not answer at all. So a
client never reads less from the standby than it wrote or was shown: reads stay consistent
across processes and hosts. `standby_reads` and `fallbacks` count which one answered.

The read models' lists are read there too (`Listings`), with no such check: they trail the
writes anyway (by the projection lag), and on the standby by its replication lag too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar
from uuid import UUID

import psycopg
import structlog
from eventsourcing.persistence import PersistenceError

from service.audit import stored_lines
from service.reader import read_events
from service.store import Envelope, EventStoreApp

log = structlog.get_logger("tabletop.history")

_T = TypeVar("_T")


RESTING = 10.0  # seconds a standby that failed is left alone (the primary answers meanwhile)


class History:
    def __init__(self, primary: EventStoreApp, standby: EventStoreApp | None = None) -> None:
        self.primary = primary
        self.standby = standby
        self.standby_reads = 0
        self.fallbacks = 0  # reads the standby could not answer (behind, or down)
        self._resting_until = 0.0

    def events(
        self, game_id: UUID, version: int, after: int = 0, limit: int | None = None
    ) -> list[Envelope]:
        """The game's stored events after `after` (at most `limit`), where the game is known
        to be at `version` at least."""
        if self.standby is not None:
            wanted = max(0, version - after)
            wanted = wanted if limit is None else min(limit, wanted)
            found = self.attempt(read_events, self.standby, game_id, gt=after or None,
                                 lte=version, limit=limit)  # fmt: skip
            if found is not None and len(found) == wanted:
                self.standby_reads += 1
                return found
            self.fallbacks += 1
        return read_events(self.primary, game_id, gt=after or None, limit=limit)

    def lines(self, game_id: UUID, version: int) -> list[dict[str, Any]]:
        """Every stored event of the game as an export line (service/audit.py), where the
        game is known to be at `version` at least."""
        if self.standby is not None:
            found = self.attempt(stored_lines, self.standby, game_id)
            if found and found[-1]["version"] >= version:
                self.standby_reads += 1
                return found
            self.fallbacks += 1
        return stored_lines(self.primary, game_id)

    def attempt(self, read: Callable[..., _T], *args: Any, **kwargs: Any) -> _T | None:
        """`read(*args, **kwargs)` on the standby; None when it fails. A standby that failed
        is left alone for RESTING seconds (None at once): finding it down again can take
        seconds of connection attempts, which only its first reader should wait."""
        if time.monotonic() < self._resting_until:
            return None
        try:
            return read(*args, **kwargs)
        except (PersistenceError, psycopg.Error) as error:
            log.warning("standby_unavailable", error=repr(error), resting_s=RESTING)
            self._resting_until = time.monotonic() + RESTING
            return None


class Listings:
    """The read models' list queries (projections/views.py: lists of games, profiles,
    leaderboards, tournaments) on the standby's read models, on the primary's while the
    standby does not answer. Each query returns a list, never None."""

    def __init__(self, history: History, standby: Any, primary: Any) -> None:
        self._history = history
        self._standby = standby
        self._primary = primary

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def query(*args: Any, **kwargs: Any) -> Any:
            found = self._history.attempt(getattr(self._standby, name), *args, **kwargs)
            return found if found is not None else getattr(self._primary, name)(*args, **kwargs)

        return query

"""Reads of a game's history (its event pages, its export and audit) from a hot standby
(TABLETOP_READ_DATABASE_URL), never behind what the primary says.

A standby replays the primary's log a little later: milliseconds usually, seconds under
load, without bound while its replication is cut. A game's history is read there only up
to the version its caller's fold is at (a fold is caught up with the primary's head before
any read answers, service/heads.py), and only if the standby has replayed that far;
otherwise the primary answers, as it does when the standby does not answer at all. So a
client never reads less from the standby than it wrote or was shown: reads stay consistent
across processes and hosts. `standby_reads` and `fallbacks` count which one answered.
"""

from __future__ import annotations

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


class History:
    def __init__(self, primary: EventStoreApp, standby: EventStoreApp | None = None) -> None:
        self.primary = primary
        self.standby = standby
        self.standby_reads = 0
        self.fallbacks = 0  # reads the standby could not answer (behind, or down)

    def events(
        self, game_id: UUID, version: int, after: int = 0, limit: int | None = None
    ) -> list[Envelope]:
        """The game's stored events after `after` (at most `limit`), where the game is known
        to be at `version` at least."""
        if self.standby is not None:
            wanted = max(0, version - after)
            wanted = wanted if limit is None else min(limit, wanted)
            found = self._on_standby(read_events, game_id, gt=after or None, lte=version,
                                     limit=limit)  # fmt: skip
            if found is not None and self._counted(len(found) == wanted):
                return found
        return read_events(self.primary, game_id, gt=after or None, limit=limit)

    def lines(self, game_id: UUID, version: int) -> list[dict[str, Any]]:
        """Every stored event of the game as an export line (service/audit.py), where the
        game is known to be at `version` at least."""
        if self.standby is not None:
            found = self._on_standby(stored_lines, game_id)
            if found is not None and self._counted(bool(found) and found[-1]["version"] >= version):
                return found
        return stored_lines(self.primary, game_id)

    def _on_standby(self, read: Callable[..., _T], game_id: UUID, **kwargs: Any) -> _T | None:
        """`read(standby, game_id, ...)`; None when the standby fails (a fallback)."""
        try:
            return read(self.standby, game_id, **kwargs)
        except (PersistenceError, psycopg.Error) as error:
            log.warning("standby_unavailable", game_id=str(game_id), error=repr(error))
            self.fallbacks += 1
            return None

    def _counted(self, complete: bool) -> bool:
        """Whether the standby's answer is complete (else the primary answers), counted."""
        if complete:
            self.standby_reads += 1
        else:
            self.fallbacks += 1
        return complete

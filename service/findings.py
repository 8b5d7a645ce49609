"""Tampered games found (by the sentinel or an audit), kept in the store: events of a stream
of their own, so that every process of the database reports them (`/health`, `/metrics`),
not only the one that found them, and both stores keep them without a table of their own.

A game stays tampered until a check finds its record matching its leaf again (the
operator restored it): then a clearing event follows.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import RecordConflictError

from service.chain import now_text
from service.store import EventStoreApp
from service.tamper import Tamper

log = structlog.get_logger("tabletop.findings")

FINDINGS_STREAM = uuid.uuid5(uuid.UUID("5e1f3a7c-2b4d-4c6e-9f80-1a2b3c4d5e6f"), "tamper-findings")
FRESH = 2.0  # seconds a process answers from the findings it read last
LOG_AGAIN = 60.0  # seconds before a finding already logged is logged again


@dataclass(frozen=True)
class TamperFound(DomainEvent):
    """A game whose record no longer matches what vouched for it."""

    game: str
    what: str  # Tamper.what
    first_version: int  # 0: not known
    stored_events: int
    logged_version: int  # 0: not said
    detail: str
    found_at: str


@dataclass(frozen=True)
class TamperCleared(DomainEvent):
    """A game found tampered before whose record matches its leaf again."""

    game: str
    found_at: str


class Findings:
    """The tampered games of a store, as its findings stream says now."""

    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._read = 0  # events of the stream folded
        self._tampered: dict[str, TamperFound] = {}
        self._at = float("-inf")  # when the stream was last read (monotonic)
        # `_lock` guards the state and is never held across a read of the store (the event
        # loop takes it, in `known`); `_refreshing` orders the reads
        self._lock = threading.Lock()
        self._refreshing = threading.Lock()
        self._reading: threading.Thread | None = None
        self._logged: dict[str, float] = {}  # game: when its finding was last logged

    def tampered(self, fresh: float = FRESH) -> dict[str, TamperFound]:
        """The games found tampered and not cleared, read again if older than `fresh`
        seconds (/health and /metrics ask often; another process may have found one)."""
        with self._refreshing:
            if time.monotonic() - self._at >= fresh:
                self._refresh()
        with self._lock:
            return dict(self._tampered)

    def known(self) -> dict[str, TamperFound]:
        """The tampered games as last read, at once: when that read is older than FRESH, a
        thread of its own reads them again for the next caller (/health answers from the
        event loop and takes nothing from the pool the requests wait on)."""
        with self._lock:
            stale = time.monotonic() - self._at >= FRESH
            if stale and (self._reading is None or not self._reading.is_alive()):
                self._reading = threading.Thread(target=self._read_quietly, daemon=True)
                self._reading.start()
            return dict(self._tampered)

    def _read_quietly(self) -> None:
        try:
            self.tampered()
        except Exception as error:  # the store away: /health says so from its own probe
            log.warning("findings_unread", error=repr(error))

    def found(self, tamper: Tamper) -> None:
        """Record a game found tampered (once for as long as what differs stays the same),
        and say so in the log: when it is new, then at most every LOG_AGAIN seconds per game
        (an audit anyone may ask for must not turn into a flood of error lines)."""
        new = self._append(
            tamper.game,
            lambda version: TamperFound(
                originator_id=FINDINGS_STREAM,
                originator_version=version,
                timestamp=TamperFound.create_timestamp(),
                game=tamper.game,
                what=tamper.what,
                first_version=tamper.first_version or 0,
                stored_events=tamper.stored_events,
                logged_version=tamper.logged_version or 0,
                detail=tamper.detail,
                found_at=now_text(),
            ),
            lambda known: known is None or known.detail != tamper.detail,
        )
        now = time.monotonic()
        with self._lock:
            said = self._logged.get(tamper.game)
            if not new and said is not None and now - said < LOG_AGAIN:
                return
            self._logged[tamper.game] = now
        log.error(
            "game_tampered",
            game=tamper.game,
            what=tamper.what,
            first_version=tamper.first_version,
            stored_events=tamper.stored_events,
            logged_version=tamper.logged_version,
            detail=tamper.detail,
            new=new,
        )

    def matches(self, game: str) -> None:
        """A game checked and found matching: clear it if it was found tampered."""
        if game not in self.tampered():
            return
        log.info("game_tamper_cleared", game=game)
        self._append(
            game,
            lambda version: TamperCleared(
                originator_id=FINDINGS_STREAM,
                originator_version=version,
                timestamp=TamperCleared.create_timestamp(),
                game=game,
                found_at=now_text(),
            ),
            lambda known: known is not None,
        )

    def _append(
        self,
        game: str,
        event: Callable[[int], DomainEvent],
        needed: Callable[[TamperFound | None], bool],
    ) -> bool:
        """Whether this process appended it (not needed: another had, or it was known)."""
        for _ in range(10):
            with self._refreshing:
                self._refresh()
                if not needed(self._tampered.get(game)):
                    return False
                made = event(self._read + 1)
            try:
                self._store.save(made)
                return True
            except RecordConflictError:
                continue  # another process recorded one first: read it, then judge again
        log.warning("findings_contended", game=game)
        return False

    def _refresh(self) -> None:
        """(`_refreshing` held) Read what was appended since, then swap it in at once."""
        tampered, read = dict(self._tampered), self._read
        for event in self._store.events.get(FINDINGS_STREAM, gt=read or None):
            if isinstance(event, TamperFound):
                tampered[event.game] = event
            elif isinstance(event, TamperCleared):
                tampered.pop(event.game, None)
            read = event.originator_version
        with self._lock:
            self._tampered, self._read, self._at = tampered, read, time.monotonic()

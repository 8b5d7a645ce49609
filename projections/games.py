"""The games projection: every stored game event updates that game's summary (and, when
players, status or result change, its seat rows); tournaments, challenges and seeks (known
by their events' type prefix) update their own rows (projections/tournaments.py,
projections/competition.py); other streams (players, seeds) only move the tracked
position. A game whose stored events no longer read or fold is left as it was
(and logged): damage to one game must not stop the read models of all the others.

Whose turn it is comes from the rules, so the projection folds each game as the service
does. Folds are cached; a cold cache (a restart, an evicted game) refolds the game from the
log up to the event before, so the result does not depend on what the cache held.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import structlog
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from projections.competition import Batch as CompetitionBatch
from projections.competition import is_competition
from projections.notices import PER_EVENT, Notice, Told, notices
from projections.ratings import Ratings
from projections.summary import summarize
from projections.tournaments import tournament_row
from projections.views import NAME, Extra, GamesView, GameWrite
from service import clocks
from service.challenge_log import Noticed
from service.fold import (
    GAME_CREATED,
    GAME_FINISHED,
    SEAT_LEFT,
    SEAT_TAKEN,
    UNREADABLE,
    Fold,
    new_fold,
)
from service.store import Recorded
from service.tournament_log import PREFIX as TOURNAMENT

log = structlog.get_logger("tabletop.projections")

CACHE_SIZE = 2048
SEAT_EVENTS = (SEAT_TAKEN, SEAT_LEFT)


class GamesProjection(Projection[GamesView]):
    name = NAME

    def __init__(self, view: GamesView) -> None:
        super().__init__(view)
        self._folds: OrderedDict[UUID, tuple[Fold, int]] = OrderedDict()  # game -> (fold, seq)
        self._told: dict[UUID, Told] = {}  # kept beside each cached fold (notices.py)
        self.ratings = Ratings(view.rating_of)
        self._created: dict[UUID, int] = {}  # creation positions seen in the current batch
        # Seconds from each game event's append to its read-model commit (tests, metrics).
        self.delays: deque[float] = deque(maxlen=200_000)

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.apply([(domain_event, tracking)])

    def apply(self, batch: Sequence[tuple[Any, Tracking]]) -> None:
        """Apply events in log order; write each touched game once, with the position of the
        batch's last event, in one transaction."""
        if not batch:
            return
        by_game: dict[UUID, list[Recorded]] = {}  # a game's events stay in log order
        positions: dict[int, int] = {}  # id(event) -> its position in the log
        tournaments: dict[UUID, tuple[int, int]] = {}  # -> (latest version, creation position)
        competition = CompetitionBatch()  # challenges, seeks, their notices (competition.py)
        for event, tracking in batch:
            if isinstance(event, Recorded) and event.type.startswith(TOURNAMENT):
                seq = tournaments.get(event.originator_id, (0, tracking.notification_id))[1]
                tournaments[event.originator_id] = (event.originator_version, seq)
            elif isinstance(event, Recorded) and is_competition(event.type):
                competition.add(event, tracking.notification_id)  # (by prefix: no query)
            elif isinstance(event, Noticed):
                competition.notice(event, tracking.notification_id)
            elif isinstance(event, Recorded):
                by_game.setdefault(event.originator_id, []).append(event)
                positions[id(event)] = tracking.notification_id
                if event.type == GAME_CREATED:
                    self._created[event.originator_id] = tracking.notification_id
        pending: dict[UUID, tuple[Fold, int]] = {}
        writes: list[GameWrite] = []
        # (position of its end, when it ended, fold): rated in the order of those positions,
        # which is the transparency log's (projections/ratings.py says why)
        rated: list[tuple[int, str, Fold]] = []
        for game_id, events in by_game.items():
            try:
                entry = self._advance(game_id, events, positions)
                if entry is not None:
                    fold, seq, changed, told, had = entry
                    pending[game_id] = (fold, seq)
                    ended = [(positions[id(e)], e.at) for e in events if e.type == GAME_FINISHED]
                    if ended and fold.rated:
                        rated.append((*ended[0], fold))
                    write = GameWrite(summarize(fold), seq, changed, len(events))
                    write.notices, write.deadline = told, fold.next_deadline()
                    write.had_deadline, write.had_bot_turn = had
                    if fold.bot_turn() is not None:
                        write.bot_since = clocks.micros(fold.last_at)
                    writes.append(write)
            except UNREADABLE as error:  # its summary stays as it was; the others go on
                log.error("game_damaged", game_id=str(game_id), error=repr(error))
                self._folds.pop(game_id, None)
                self._told.pop(game_id, None)
        self._created.clear()
        extra = Extra()
        try:
            for position, at, fold in sorted(rated, key=lambda r: r[0]):
                for row in self.ratings.rate(fold):
                    extra.ratings.append(row)
                    history = {"game_id": str(fold.id), "seq": position, "at": at}
                    extra.history.append({**row, **history})
            extra.tournaments = [self._tournament(t, *v) for t, v in tournaments.items()]
            competition.rows(lambda s, lte: self.view.game_events(s, lte=lte), extra)
            self.view.write(writes, batch[-1][1], extra)
        except BaseException:
            self._folds.clear()  # folds advanced in place past what was committed
            self._told.clear()
            self.ratings.forget()
            raise
        now = time.time()
        for events in by_game.values():
            self.delays.extend(now - datetime.fromisoformat(e.at).timestamp() for e in events)
        for game_id, kept in pending.items():
            if kept[0].over and kept[0].rematch is not None:
                self._folds.pop(game_id, None)  # nothing more can follow
                self._told.pop(game_id, None)
            else:
                self._folds[game_id] = kept
                self._folds.move_to_end(game_id)
        while len(self._folds) > CACHE_SIZE:
            old, _ = self._folds.popitem(last=False)
            self._told.pop(old, None)

    def _advance(
        self, game_id: UUID, events: list[Recorded], positions: dict[int, int]
    ) -> tuple[Fold, int, bool, list[Notice], tuple[bool, bool]] | None:
        """The game's fold after `events`, its creation position, whether its seat rows
        change (seats taken or left, status), the notices the events cause, and whether it
        had a deadline and awaited a bot before them (rows in the indexes to remove)."""
        first = events[0]
        if first.type == GAME_CREATED:
            try:
                before = new_fold(game_id, first)
            except LookupError as error:  # a game type this process does not host
                log.warning("game_type_unknown", game_id=str(game_id), error=str(error))
                return None
            seq, status, events = self._created[game_id], None, events[1:]
            self._told[game_id] = Told()
        else:
            cached = self._folds.get(game_id)
            if cached is None or cached[0].version != first.originator_version - 1:
                cached = self._refold(game_id, first.originator_version - 1)
                if cached is None:
                    return None
            before, seq = cached
            status = before.status
        told = self._told[game_id]
        out: list[Notice] = []
        started = before.started

        def each(fold: Fold, e: Any) -> None:
            nonlocal started
            base = positions[id(e)] * PER_EVENT
            said = notices(fold, e, told, started)
            out.extend(
                Notice(id=base + i, player=p, kind=k, game=str(game_id), data=d)
                for i, (p, k, d) in enumerate(said[:PER_EVENT])
            )
            started = fold.started

        # (the indexes' rows follow from the fold alone, so the fold before says what is there)
        had = (before.next_deadline() is not None, before.bot_turn() is not None)
        fold = before.advance(events, clone=False, each=each)
        changed = fold.status != status or any(e.type in SEAT_EVENTS for e in events)
        return fold, seq, changed, out, had

    def _tournament(self, tournament_id: UUID, version: int, seq: int) -> dict[str, Any]:
        """A tournament's list row, folded from its stream up to `version`."""
        events = self.view.game_events(tournament_id, lte=version)
        seq = self.view.tournament_seq(str(tournament_id)) or seq
        return tournament_row(tournament_id, events, seq)

    def _refold(self, game_id: UUID, version: int) -> tuple[Fold, int] | None:
        """The fold at `version` from the log, and what its players were told by then."""
        events = self.view.game_events(game_id, lte=version)
        seq = self.view.seq_of(str(game_id))
        if not events or seq is None:
            return None  # its creation was skipped (unknown game type)
        told = self._told[game_id] = Told()
        started = False

        def each(fold: Fold, e: Any) -> None:
            nonlocal started
            notices(fold, e, told, started)
            started = fold.started

        return new_fold(game_id, events[0]).advance(events[1:], clone=False, each=each), seq

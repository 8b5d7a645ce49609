"""Group commit: the events of concurrent requests saved in one transaction.

The library's Postgres recorder locks its table for every insert (to keep the notification
log gap-free), so one transaction costs about the same for one event or for fifty. When
several requests save at once, the first becomes the leader and writes everything queued
behind it in a single `insert_events` call; a lone request writes at once, with no hand-off.

A batch that hits a version conflict (another process wrote one of its games first) is
retried request by request, so only the stale request sees the conflict.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from eventsourcing.persistence import RecordConflictError

from service.store import EventStoreApp

# Events per insert. The library's Postgres insert (psycopg pipeline) hangs for good on a
# few MB in one call (seen: 5,000 events of ~800 bytes), so transactions stay well below.
MAX_EVENTS = 1000


class Queued(Protocol):
    events: Sequence[Any]


_Q = TypeVar("_Q", bound=Queued)


def next_batch(queue: list[_Q]) -> tuple[list[_Q], list[_Q]]:
    """(the saves to write in one transaction, the rest): the first in line, and those
    behind it while the events stay within MAX_EVENTS."""
    taken, size = 0, 0
    while taken < len(queue) and (taken == 0 or size + len(queue[taken].events) <= MAX_EVENTS):
        size += len(queue[taken].events)
        taken += 1
    return queue[:taken], queue[taken:]


class _Pending:
    __slots__ = ("error", "events", "wake", "written")

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = events
        self.wake = threading.Event()  # set once written, or when handed the lead
        self.written = False
        self.error: BaseException | None = None


class GroupCommit:
    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._queue: list[_Pending] = []
        self._writing = False
        self.transactions = 0  # for tests and metrics: how many commits carried the saves

    def save(self, *events: Any) -> None:
        """Save `events` atomically (all or none); raises RecordConflictError when another
        writer took one of their versions first."""
        mine = _Pending(events)
        with self._lock:
            self._queue.append(mine)
            lead = not self._writing
            self._writing = True
        if not lead:
            mine.wake.wait()
            if mine.written:
                self._raise(mine)
                return
        self._lead(mine)
        self._raise(mine)

    def _lead(self, mine: _Pending) -> None:
        """Write batches until ours is written, then pass the lead to the next in line."""
        while not mine.written:
            with self._lock:
                batch, self._queue = next_batch(self._queue)
            self._write(batch)
        with self._lock:
            if self._queue:
                self._queue[0].wake.set()  # not written: it wakes up as the leader
            else:
                self._writing = False

    def _write(self, batch: list[_Pending]) -> None:
        try:
            if len(batch) == 1 and len(batch[0].events) > MAX_EVENTS:
                self._write_long(batch[0].events)
            else:
                self._store.save(*[e for pending in batch for e in pending.events])
                self.transactions += 1
        except RecordConflictError as conflict:
            if len(batch) == 1:
                batch[0].error = conflict
            else:
                for pending in batch:
                    try:
                        self._store.save(*pending.events)
                        self.transactions += 1
                    except RecordConflictError as error:
                        pending.error = error
                    except Exception as error:  # surfaced to the request that owns it
                        pending.error = error
        except Exception as error:  # the store failed: every request of the batch hears it
            for pending in batch:
                pending.error = error
        for pending in batch:
            pending.written = True
            pending.wake.set()

    def _write_long(self, events: Sequence[Any]) -> None:
        """One request's very long run of events (a game that bots play from start to end
        while it is created) in consecutive chunks. Only the first can meet a conflict: the
        later versions follow it in the same stream, which no other writer can know yet."""
        for start in range(0, len(events), MAX_EVENTS):
            self._store.save(*events[start : start + MAX_EVENTS])
            self.transactions += 1

    @staticmethod
    def _raise(pending: _Pending) -> None:
        if pending.error is not None:
            raise pending.error

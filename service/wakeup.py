"""Subscriptions to the event log that wake up when events are appended.

Postgres: the library's own subscription (LISTEN/NOTIFY), which hears every process.
SQLite has no such channel, and the library's SQLite recorder has no subscription at all:
ours wakes when this process commits (`ring`, called by the game service's commit hook)
and otherwise looks at the file once a second, for writers in other processes.

The projection runner's subscriptions gather: woken, they wait GATHER seconds before
reading, so a busy log is read (and projected) in bursts rather than one query per commit.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    ApplicationRecorder,
    ListenNotifySubscription,
    Subscription,
)
from eventsourcing.postgres import PostgresSubscription
from eventsourcing.sqlite import SQLiteApplicationRecorder

from service.pg_recorder import LockedFunctionRecorder

OTHER_PROCESSES_EVERY = 1.0  # seconds: SQLite writers in other processes are seen this late
GATHER = 0.02  # seconds a woken runner subscription waits for more commits before reading

_bells: weakref.WeakSet[threading.Event] = weakref.WeakSet()
_bells_lock = threading.Lock()


def ring() -> None:
    """Something was committed in this process: wake every subscription of this process."""
    with _bells_lock:
        bells = list(_bells)
    for bell in bells:
        bell.set()


class _Gathering(ListenNotifySubscription[Any]):
    """The library's pull loop, with a pause of GATHER after each wake-up, and a timeout on
    the wait when other processes cannot wake it (`every`)."""

    every: float | None = None

    def _loop_on_pull(self) -> None:
        try:
            self._pull()
            while not self._has_been_stopped:
                self._has_been_notified.wait(self.every)
                time.sleep(GATHER)
                self._pull()
        except BaseException as error:
            if self._thread_error is None:
                self._thread_error = error
            self.stop()


class SQLiteSubscription(_Gathering):
    every = OTHER_PROCESSES_EVERY

    def __init__(
        self, recorder: SQLiteApplicationRecorder, gt: int | None = None, topics: Sequence[str] = ()
    ) -> None:
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        with _bells_lock:
            _bells.add(self._has_been_notified)


class GatheringPostgresSubscription(_Gathering, PostgresSubscription):
    pass


class GatheringPostgresRecorder(LockedFunctionRecorder):
    """Our Postgres recorder, handing the runner a gathering subscription."""

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return GatheringPostgresSubscription(self, gt=gt, topics=topics)


class SubscribingSQLiteRecorder(SQLiteApplicationRecorder):
    """The library's SQLite application recorder, with a subscription (named by topic in the
    runner's environment, APPLICATION_RECORDER_TOPIC)."""

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return SQLiteSubscription(self, gt=gt, topics=topics)


def subscribe(recorder: Any, gt: int | None) -> Subscription[Any]:
    """A subscription to any store's log, after notification id `gt`."""
    if isinstance(recorder, SQLiteApplicationRecorder):
        return SQLiteSubscription(recorder, gt=gt)
    subscription: Subscription[Any] = recorder.subscribe(gt=gt)
    return subscription


RECORDER_TOPIC = f"{__name__}:SubscribingSQLiteRecorder"
POSTGRES_RECORDER_TOPIC = f"{__name__}:GatheringPostgresRecorder"

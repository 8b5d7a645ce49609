"""Subscriptions to the event log that wake up when events are appended.

Postgres: the library's own subscription (LISTEN/NOTIFY), which hears every process.
SQLite has no such channel, and the library's SQLite recorder has no subscription at all:
ours wakes when this process commits (`ring`, called by the game service's commit hook)
and otherwise looks at the file once a second, for writers in other processes.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    ApplicationRecorder,
    ListenNotifySubscription,
    Subscription,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

OTHER_PROCESSES_EVERY = 1.0  # seconds: SQLite writers in other processes are seen this late

_bells: weakref.WeakSet[threading.Event] = weakref.WeakSet()
_bells_lock = threading.Lock()


def ring() -> None:
    """Something was committed in this process: wake every subscription of this process."""
    with _bells_lock:
        bells = list(_bells)
    for bell in bells:
        bell.set()


class SQLiteSubscription(ListenNotifySubscription[SQLiteApplicationRecorder]):
    def __init__(
        self, recorder: SQLiteApplicationRecorder, gt: int | None = None, topics: Sequence[str] = ()
    ) -> None:
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        with _bells_lock:
            _bells.add(self._has_been_notified)

    def _loop_on_pull(self) -> None:
        # The library's loop, with a timeout on the wait (other processes do not ring).
        try:
            self._pull()
            while not self._has_been_stopped:
                self._has_been_notified.wait(OTHER_PROCESSES_EVERY)
                self._pull()
        except BaseException as error:
            if self._thread_error is None:
                self._thread_error = error
            self.stop()


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

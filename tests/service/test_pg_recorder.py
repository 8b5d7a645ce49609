"""The Postgres recorder the service saves through (one call per save, table lock kept), on
the real Postgres: atomic saves, conflicts refused, and a log that readers can tail."""

from __future__ import annotations

import threading
import uuid

import pytest
from eventsourcing.persistence import RecordConflictError

from service.pg_recorder import LockedFunctionRecorder
from service.store import EventStoreApp
from tests.support.events import bare_event


def test_a_save_is_all_or_nothing_and_a_taken_version_is_refused(store: EventStoreApp) -> None:
    assert isinstance(store.recorder, LockedFunctionRecorder)
    stream = uuid.uuid4()
    store.save(bare_event(stream, 1, {"n": 1}), bare_event(stream, 2, {"n": 2}))
    with pytest.raises(RecordConflictError):
        store.save(bare_event(stream, 3, {"n": 3}), bare_event(stream, 2, {"n": "again"}))
    stored = list(store.events.get(stream))
    assert [(e.originator_version, e.data) for e in stored] == [(1, {"n": 1}), (2, {"n": 2})]
    store.save(bare_event(stream, 3, {"n": 3}))  # the refused save left version 3 free
    assert [n.originator_version for n in store.recorder.select_notifications(1, 10)] == [1, 2, 3]


def test_a_reader_tailing_the_log_never_passes_over_an_event(store: EventStoreApp) -> None:
    """Writers in many threads; a reader that only ever asks for what follows the last id it
    saw. Were ids to commit out of order, it would step over one and never see it."""
    saves = 150  # by each writer
    stop = threading.Event()  # the writers are done: the reader stops

    def write() -> None:
        stream = uuid.uuid4()
        for version in range(1, saves + 1):
            store.save(bare_event(stream, version, {"n": version}))

    seen: list[int] = []

    def tail() -> None:
        while not stop.is_set():
            after = seen[-1] if seen else 0
            batch = store.recorder.select_notifications(after, 500, inclusive_of_start=False)
            seen.extend(n.id for n in batch)

    writers = [threading.Thread(target=write) for _ in range(8)]
    reader = threading.Thread(target=tail)
    for thread in [*writers, reader]:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    reader.join()
    tailed = len(seen)  # read while the writers raced
    while True:  # what was committed after the reader's last look
        rest = store.recorder.select_notifications(seen[-1], 500, inclusive_of_start=False)
        if not rest:
            break
        seen.extend(n.id for n in rest)
    assert tailed > 0
    assert seen == list(range(1, 8 * saves + 1))

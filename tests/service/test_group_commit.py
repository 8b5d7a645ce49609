"""Group commit on the real Postgres: concurrent saves share transactions, nothing is lost,
and a conflict is reported to its own request only."""

from __future__ import annotations

import threading
import uuid

from eventsourcing.persistence import RecordConflictError

from service.group_commit import GroupCommit, _Pending
from service.store import EventStoreApp, Recorded
from tests.support.events import bare_event, stored_versions


def _event(stream: uuid.UUID, version: int) -> Recorded:
    return bare_event(stream, version, {"n": version})


def test_concurrent_saves_share_transactions_and_all_land(store: EventStoreApp) -> None:
    writer = GroupCommit(store)
    streams = [uuid.uuid4() for _ in range(16)]
    barrier = threading.Barrier(len(streams))

    def run(stream: uuid.UUID) -> None:
        barrier.wait()
        for version in range(1, 31):
            writer.save(_event(stream, version))

    threads = [threading.Thread(target=run, args=(s,)) for s in streams]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for stream in streams:
        assert stored_versions(store, stream) == list(range(1, 31))
    assert writer.transactions < 16 * 30


def test_a_conflict_fails_only_its_own_request(store: EventStoreApp) -> None:
    writer = GroupCommit(store)
    taken, free_a, free_b = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    store.save(_event(taken, 1))
    batch = [
        _Pending([_event(free_a, 1)]),
        _Pending([_event(taken, 1)]),
        _Pending([_event(free_b, 1), _event(free_b, 2)]),
    ]
    writer._write(batch)
    assert [p.written for p in batch] == [True, True, True]
    assert batch[0].error is None and batch[2].error is None
    assert isinstance(batch[1].error, RecordConflictError)
    assert len(list(store.recorder.select_events(free_b))) == 2
    assert len(list(store.recorder.select_events(taken))) == 1


def test_long_runs_and_many_requests_stay_below_the_insert_limit(store: EventStoreApp) -> None:
    """5,000 events in one insert hang the library's Postgres insert; a bots-only game can be
    that long, and many of them can arrive at once."""
    writer = GroupCommit(store)
    long_stream = uuid.uuid4()
    writer.save(*[_event(long_stream, v) for v in range(1, 2501)])
    streams = [uuid.uuid4() for _ in range(8)]
    threads = [
        threading.Thread(target=writer.save, args=[_event(s, v) for v in range(1, 701)])
        for s in streams
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(list(store.recorder.select_events(long_stream))) == 2500
    for stream in streams:
        assert len(list(store.recorder.select_events(stream))) == 700

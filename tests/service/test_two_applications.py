"""Two applications in one Postgres schema, each with its own events table, both saving
through the service's recorder: each save lands in its own application's table (issue 19,
part 6: the save function was named by id type only, so the second application to start
took it over and the first one's saves went to the other table)."""

from __future__ import annotations

import uuid

from service.pg_recorder import LockedFunctionRecorder
from service.settings import Settings
from service.store import EventStoreApp
from tests.support.events import bare_event, stored_versions


class OtherApp(EventStoreApp):
    name = "OtherApp"  # its events table: otherapp_events


def test_two_applications_in_one_schema_save_to_their_own_tables(pg_settings: Settings) -> None:
    env = pg_settings.eventsourcing_env()
    ours = EventStoreApp(env=env)
    other = OtherApp(env=env)  # started second: it (re)creates its save function
    try:
        assert isinstance(ours.recorder, LockedFunctionRecorder)
        assert isinstance(other.recorder, LockedFunctionRecorder)
        mine, theirs = uuid.uuid4(), uuid.uuid4()
        ours.save(bare_event(mine, 1, {"n": 1}), bare_event(mine, 2, {"n": 2}))
        other.save(bare_event(theirs, 1, {"n": 1}))
        assert stored_versions(ours, mine) == [1, 2]
        assert stored_versions(other, mine) == []
        assert stored_versions(other, theirs) == [1]
        assert stored_versions(ours, theirs) == []
        # and a restart of ours (re-creating its function) leaves the other's alone
        again = EventStoreApp(env=env)
        try:
            other.save(bare_event(theirs, 2, {"n": 2}))
            assert stored_versions(other, theirs) == [1, 2]
            assert stored_versions(again, theirs) == []
        finally:
            again.close()
    finally:
        other.close()
        ours.close()

"""Keeping the read models current: the library's ProjectionRunner over our store, with
small connection pools of its own, and `rebuild`, which drops the read models and lets a
runner replay the whole log into them.

The runner hands the projection every event the subscription has already pulled in one
batch (up to MAX_BATCH), so a burst of events costs one transaction, not one each; the
tracked position still commits with the rows, so a crash replays exactly the uncommitted.
Only one runner may feed a read model at a time (two would both try to track each event).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from threading import Event
from typing import Any

import structlog
from eventsourcing.persistence import Tracking
from eventsourcing.projection import ApplicationSubscription, ProjectionRunner

from projections.games import GamesProjection
from projections.views import NAME, GamesView, PostgresGamesView, SQLiteGamesView, view_on
from service.fold import UNREADABLE
from service.settings import Settings
from service.sole import sole
from service.store import EventStoreApp, open_store
from service.wakeup import POSTGRES_RECORDER_TOPIC, RECORDER_TOPIC

log = structlog.get_logger("tabletop.projections")

# Events per read-model transaction at most (TABLETOP_PROJECTION_BATCH: the crash test
# makes it small, so that a kill lands between many commits).
MAX_BATCH = int(os.environ.get("TABLETOP_PROJECTION_BATCH", "500"))


def runner_env(settings: Settings) -> dict[str, str]:
    env = settings.eventsourcing_env()
    if settings.database_url is None:
        env["APPLICATION_RECORDER_TOPIC"] = RECORDER_TOPIC
    else:  # the runner's reads and writes are sequential: two connections each suffice
        env |= {"POSTGRES_POOL_SIZE": "2", "POSTGRES_MAX_OVERFLOW": "2"}
        env["APPLICATION_RECORDER_TOPIC"] = POSTGRES_RECORDER_TOPIC
    env[f"{NAME.upper()}_CREATE_TABLE"] = "y"  # the read model's own tables, always
    return env


class GamesRunner(ProjectionRunner[EventStoreApp, GamesView]):
    projection: GamesProjection

    def __init__(self, settings: Settings) -> None:
        view = SQLiteGamesView if settings.database_url is None else PostgresGamesView
        super().__init__(
            application_class=EventStoreApp,
            projection_class=GamesProjection,
            view_class=view,
            env=runner_env(settings),
        )
        self.__enter__()  # started: close() stops it

    @staticmethod
    def _process_events_loop(
        subscription: ApplicationSubscription[Any],
        projection: Any,
        is_stopping: Event,
        runner: weakref.ReferenceType[Any],
    ) -> None:
        """The library's loop, applying what is already pulled as one batch."""
        try:
            batch: list[tuple[Any, Tracking]] = []
            for item in _decoded(subscription):
                batch.append(item)
                if len(batch) >= MAX_BATCH or not _more_pulled(subscription):
                    projection.apply(batch)
                    batch = []
        except BaseException as error:
            owner = runner()
            if owner is not None:
                owner._thread_error = error
        finally:
            is_stopping.set()

    def caught_up(self, timeout: float) -> None:
        """Block until every event appended so far is in the read model."""
        self.wait(self.app.recorder.max_notification_id(), timeout=timeout)

    def close(self) -> None:
        self.__exit__(None, None, None)


def _decoded(subscription: ApplicationSubscription[Any]) -> Iterator[tuple[Any, Tracking]]:
    """The subscription's events with their positions, as the library's iterator gives them,
    except that a stored record which no longer decodes comes as None (logged): its position
    is still tracked, and the read models go on past it."""
    for notification in subscription.subscription:
        tracking = Tracking(subscription.name, notification.id)
        try:
            event = subscription.mapper.to_domain_event(notification)
        except UNREADABLE as error:
            log.error("record_unreadable", position=notification.id, error=repr(error))
            event = None
        yield event, tracking


def _more_pulled(subscription: ApplicationSubscription[Any]) -> bool:
    inner: Any = subscription.subscription
    return bool(
        inner._notifications_index < len(inner._notifications)
        or not inner._notifications_queue.empty()
    )


def rebuild(settings: Settings, timeout: float = 3600.0) -> int:
    """Drop every read model and rebuild it from the log; returns the position reached.
    Stop the runners first (`tabletop serve`, `tabletop projections run`)."""
    store = open_store(settings)
    try:
        view = view_for(store)
        view.create_table()
        view.reset(store.name)
    finally:
        store.close()
    runner = GamesRunner(settings)
    try:
        runner.caught_up(timeout)
        return runner.view.max_tracking_id(runner.app_name) or 0
    finally:
        runner.close()


def view_for(store: EventStoreApp) -> GamesView:
    """The read model through an open store's own connections."""
    return view_on(store.recorder.datastore)  # type: ignore[attr-defined]


def lag(store: EventStoreApp, view: GamesView) -> tuple[int, float]:
    """(events behind, seconds behind): how many notifications the read model has not
    applied yet, and the age of the oldest of them."""
    tracked = view.max_tracking_id(store.name) or 0
    latest = store.recorder.max_notification_id() or 0
    if latest <= tracked:
        return 0, 0.0
    first = store.recorder.select_notifications(tracked, 1, inclusive_of_start=False)
    if not first:
        return 0, 0.0
    appended: datetime = store.mapper.to_domain_event(first[0]).timestamp  # type: ignore[attr-defined]
    if appended.tzinfo is None:
        appended = appended.replace(tzinfo=UTC)
    return latest - tracked, max(0.0, (datetime.now(UTC) - appended).total_seconds())


def run_forever(settings: Settings) -> None:
    """`tabletop projections run` (and serve's runner process): keep the read models current
    until interrupted. On Postgres only one runner per read model works at a time: another
    waits here, a standby, until the first one's session ends."""
    with sole(settings, NAME):
        runner = GamesRunner(settings)
        try:
            while True:
                runner.run_forever(timeout=3600)
                if runner.is_interrupted.is_set():
                    break
        finally:
            runner.close()

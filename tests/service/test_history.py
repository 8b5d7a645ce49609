"""Game history from a standby (service/history.py): read there only when the standby holds
the game as far as the caller knows it to be, from the primary otherwise; here a standby
that has everything (the same database) and one that has replayed nothing of the game (an
empty schema). The streaming standby itself is in tests/faults/test_standby.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from service.audit import stored_lines
from service.history import History
from service.players import Players
from service.reader import read_events
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.support.games import GameService


@pytest.fixture
def behind(pg_url: str) -> Iterator[EventStoreApp]:
    """A store whose tables hold nothing: a standby that has replayed none of the game."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    opened = open_store(Settings(database_url=f"{pg_url}?schema={schema}"))
    try:
        yield opened
    finally:
        opened.close()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_the_standby_answers_only_as_far_as_the_game_is_known(
    store: EventStoreApp, pg_settings: Settings, behind: EventStoreApp
) -> None:
    games = GameService(store)
    players = Players(store)
    ann, bob = players.register("ann")[0], players.register("bob")[0]
    fold = games.create(ann, "secret-duel", 2, {}, {}, seat=0)
    fold = games.join(bob, fold.id, 1)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    version = games.move(ann, fold.id, fold.version, move, "k").version
    events = read_events(store, fold.id)
    lines = stored_lines(store, fold.id)

    caught_up = open_store(Settings(database_url=pg_settings.database_url, create_tables=False))
    try:
        history = History(store, caught_up)
        assert history.events(fold.id, version) == events
        assert history.events(fold.id, version, after=2, limit=3) == events[2:5]
        assert history.lines(fold.id, version) == lines
        assert (history.standby_reads, history.fallbacks) == (3, 0)
        # known to be further than the standby holds: the primary answers
        assert history.events(fold.id, version + 1) == events
        assert history.lines(fold.id, version + 1) == lines
        assert (history.standby_reads, history.fallbacks) == (3, 2)
    finally:
        caught_up.close()

    lagging = History(store, behind)
    assert lagging.events(fold.id, version) == events
    assert lagging.lines(fold.id, version) == lines
    assert (lagging.standby_reads, lagging.fallbacks) == (0, 2)

"""A save that committed but whose answer was lost (the connection dropped on the way back)
is retried and meets its own events: the request is answered as applied, once, on both of
the write driver's savers (the loop writer on Postgres, the group commit in a worker thread
on SQLite), for a new game, a join and a move."""

from __future__ import annotations

from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.support.events import stored_versions
from tests.support.games import GameService, close_over


def _lose_the_next_answer_in_a_thread(
    monkeypatch: pytest.MonkeyPatch, service: GameService
) -> list[bool]:
    """The group commit's next save commits, then hears what the library's retry of it
    would hear: its versions are taken."""
    store = service.games.writes.group._store
    real = store.save
    lost = [False]

    def save(*events: Any) -> Any:
        saved = real(*events)
        if not lost[0]:
            lost[0] = True
            raise IntegrityError("duplicate key value violates unique constraint")
        return saved

    monkeypatch.setattr(store, "save", save)
    return lost  # [True] once an answer was lost


def _lose_the_next_answer_on_the_loop(
    monkeypatch: pytest.MonkeyPatch, service: GameService
) -> list[bool]:
    """The loop writer's next insert commits, then its connection fails: the writer
    retries on a new connection and meets its own rows."""
    assert service.games.writes.loop_writer is not None
    recorder = service.games.writes.loop_writer._recorder
    real = recorder.insert_events_async
    lost = [False]

    async def insert(conn: Any, stored: Any) -> list[int]:
        ids = await real(conn, stored)
        if not lost[0]:
            lost[0] = True
            raise OperationalError("server closed the connection unexpectedly")
        return ids

    monkeypatch.setattr(recorder, "insert_events_async", insert)
    return lost  # [True] once an answer was lost


def _players(store: EventStoreApp) -> tuple[Player, Player]:
    players = Players(store)
    return players.register("ann")[0], players.register("bob")[0]


@pytest.fixture
def sqlite_store(sqlite_settings: Settings) -> Any:
    opened = open_store(sqlite_settings)
    yield opened
    close_over(opened)
    opened.close()


def test_in_a_worker_thread(sqlite_store: EventStoreApp, monkeypatch: pytest.MonkeyPatch) -> None:
    store = sqlite_store
    service = GameService(store)
    assert service.games.writes.loop_writer is None  # SQLite: every save in a worker thread
    ann, bob = _players(store)
    lost = _lose_the_next_answer_in_a_thread(monkeypatch, service)
    fold = service.create(ann, "secret-duel", 2, {}, {}, seat=0)
    assert lost == [True]
    assert stored_versions(store, fold.id) == list(range(1, fold.version + 1))
    lost = _lose_the_next_answer_in_a_thread(monkeypatch, service)
    fold = service.join(bob, fold.id, 1)
    assert lost == [True]
    assert fold.status == "active" and fold.players[1] == bob.id
    lost = _lose_the_next_answer_in_a_thread(monkeypatch, service)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    answer = service.move(ann, fold.id, fold.version, move, "k")
    assert lost == [True]
    assert answer.version == fold.version + 1
    assert stored_versions(store, fold.id) == list(range(1, answer.version + 1))
    assert service.games.writes.committed == 3


def test_on_the_loop(store: EventStoreApp, monkeypatch: pytest.MonkeyPatch) -> None:
    service = GameService(store)
    ann, bob = _players(store)
    games = service.games

    async def main() -> None:  # on the driver's loop, as the API awaits its writes
        assert games.writes.loop_writer is not None
        lost = _lose_the_next_answer_on_the_loop(monkeypatch, service)
        fold = await games.create(ann, "secret-duel", 2, {}, {}, seat=0)
        assert lost == [True]
        assert stored_versions(store, fold.id) == list(range(1, fold.version + 1))
        lost = _lose_the_next_answer_on_the_loop(monkeypatch, service)
        joined = await games.join(bob, fold.id, 1)
        assert lost == [True]
        assert joined.status == "active"
        lost = _lose_the_next_answer_on_the_loop(monkeypatch, service)
        move = {"type": "commit", "card": joined.state.hands[0][0]}
        answer = await games.move(ann, fold.id, joined.version, move, "k")
        assert lost == [True]
        assert answer.version == joined.version + 1
        assert stored_versions(store, fold.id) == list(range(1, answer.version + 1))

    games.writes.spawn(main()).result(60)
    # each answered as committed, once, and saved by the loop writer alone (no thread)
    assert games.writes.committed == 3 and games.writes.group.transactions == 0

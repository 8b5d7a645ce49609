"""A save that committed but whose answer was lost (the connection dropped on the way back)
is retried and meets its own events: the request is answered as applied, once, on both
write paths, for a new game, a join and a move (Postgres)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from tests.support.games import GameService
from service.players import Player, Players
from service.store import EventStoreApp
from tests.support.events import stored_versions


def _lose_the_next_answer_in_a_thread(
    monkeypatch: pytest.MonkeyPatch, service: GameService
) -> None:
    """The group commit's next save commits, then hears what the library's retry of it
    would hear: its versions are taken."""
    store = service.writer._store
    real = store.save
    lost = [False]

    def save(*events: Any) -> Any:
        saved = real(*events)
        if not lost[0]:
            lost[0] = True
            raise IntegrityError("duplicate key value violates unique constraint")
        return saved

    monkeypatch.setattr(store, "save", save)


def _lose_the_next_answer_on_the_loop(
    monkeypatch: pytest.MonkeyPatch, service: GameService
) -> None:
    """The loop writer's next insert commits, then its connection fails: the writer
    retries on a new connection and meets its own rows."""
    assert service.loop_writer is not None
    recorder = service.loop_writer._recorder
    real = recorder.insert_events_async
    lost = [False]

    async def insert(conn: Any, stored: Any) -> list[int]:
        ids = await real(conn, stored)
        if not lost[0]:
            lost[0] = True
            raise OperationalError("server closed the connection unexpectedly")
        return ids

    monkeypatch.setattr(recorder, "insert_events_async", insert)


def _players(store: EventStoreApp) -> tuple[Player, Player]:
    players = Players(store)
    return players.register("ann")[0], players.register("bob")[0]


def test_in_a_worker_thread(store: EventStoreApp, monkeypatch: pytest.MonkeyPatch) -> None:
    service = GameService(store)
    ann, bob = _players(store)
    _lose_the_next_answer_in_a_thread(monkeypatch, service)
    fold = service.create(ann, "secret-duel", 2, {}, {}, seat=0)
    assert stored_versions(store, fold.id) == list(range(1, fold.version + 1))
    _lose_the_next_answer_in_a_thread(monkeypatch, service)
    fold = service.join(bob, fold.id, 1)
    assert fold.status == "active" and fold.players[1] == bob.id
    _lose_the_next_answer_in_a_thread(monkeypatch, service)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    answer = service.move(ann, fold.id, fold.version, move, "k")
    assert answer.version == fold.version + 1
    assert stored_versions(store, fold.id) == list(range(1, answer.version + 1))


def test_on_the_loop(store: EventStoreApp, monkeypatch: pytest.MonkeyPatch) -> None:
    service = GameService(store)
    ann, bob = _players(store)

    async def main() -> None:
        assert service.loop_writer is not None
        _lose_the_next_answer_on_the_loop(monkeypatch, service)
        fold = await service.create_on_loop(ann, "secret-duel", 2, {}, {}, seat=0)
        assert fold is not None
        _lose_the_next_answer_on_the_loop(monkeypatch, service)
        joined = await service.join_on_loop(bob, fold.id, 1)
        assert joined is not None and joined.status == "active"
        _lose_the_next_answer_on_the_loop(monkeypatch, service)
        move = {"type": "commit", "card": joined.state.hands[0][0]}
        answer = await service.move_on_loop(ann, fold.id, joined.version, move, "k")
        assert answer is not None and answer.version == joined.version + 1
        assert stored_versions(store, fold.id) == list(range(1, answer.version + 1))
        await service.loop_writer.close()

    asyncio.run(main())

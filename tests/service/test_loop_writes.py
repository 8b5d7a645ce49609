"""Writes through the write driver (service/writes.py) and its loop writer (Postgres), against
the real server: the loop writer alone (batching, conflicts, a lost connection), then game
writes as the API makes them (coroutines on the driver's loop) and as the timekeeper or the
command line do (threads, `Writes.blocking`): one version taken once whoever races for it,
concurrent saves sharing transactions, a killed connection, a cache that trails another
process, and refusals checked again against the store."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Coroutine
from typing import Any, TypeVar

import psycopg
import pytest
from eventsourcing.persistence import RecordConflictError

from service.errors import Conflict, Forbidden
from service.fold import Fold
from service.games import MoveAnswer
from service.loop_writer import LoopWriter
from service.players import Player, Players
from service.store import EventStoreApp
from service.writes import Writes
from tests.support.events import bare_event, stored_versions
from tests.support.games import GameService

_T = TypeVar("_T")


def test_concurrent_saves_share_transactions_and_all_land(store: EventStoreApp) -> None:
    writer = LoopWriter(store)
    streams = [uuid.uuid4() for _ in range(16)]

    async def one_stream(stream: uuid.UUID) -> None:
        for version in range(1, 31):
            await writer.save([bare_event(stream, version, {"n": version})])

    async def main() -> None:
        await asyncio.gather(*(one_stream(s) for s in streams))
        await writer.close()

    asyncio.run(main())
    for stream in streams:
        assert stored_versions(store, stream) == list(range(1, 31))
    assert writer.transactions < 16 * 30  # saves queued behind one another went together


def test_a_conflict_fails_only_its_own_save(store: EventStoreApp) -> None:
    writer = LoopWriter(store)
    taken, free_a, free_b = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    store.save(bare_event(taken, 1, {}))

    async def main() -> list[Any]:
        saves = [
            writer.save([bare_event(free_a, 1, {})]),
            writer.save([bare_event(taken, 1, {"again": True})]),
            writer.save([bare_event(free_b, 1, {}), bare_event(free_b, 2, {})]),
        ]
        outcomes = await asyncio.gather(*saves, return_exceptions=True)
        await writer.close()
        return outcomes

    first, stale, last = asyncio.run(main())
    assert first is None and last is None
    assert isinstance(stale, RecordConflictError)
    assert stored_versions(store, free_a) == [1] and stored_versions(store, free_b) == [1, 2]
    assert [e.data for e in store.events.get(taken)] == [{}]


def test_a_lost_connection_is_replaced(store: EventStoreApp, pg_url: str) -> None:
    writer = LoopWriter(store)
    stream = uuid.uuid4()

    async def main() -> None:
        await writer.save([bare_event(stream, 1, {})])
        assert writer._conn is not None
        pid = writer._conn.info.backend_pid
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        await writer.save([bare_event(stream, 2, {})])
        assert writer._conn is not None and writer._conn.info.backend_pid != pid
        await writer.close()

    asyncio.run(main())
    assert stored_versions(store, stream) == [1, 2]


# ---- game writes through the driver ---------------------------------------------------------


def _on_loop(service: GameService, coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run `coroutine` on the write driver's loop (where the API awaits its writes)."""
    return service.games.writes.spawn(coroutine).result(60)


def _duel(store: EventStoreApp, service: GameService) -> tuple[Player, Player, Fold]:
    """A two-player Secret Duel (no bot), started: both seats commit a card at once."""
    players = Players(store)
    ann, _ = players.register("ann")
    bob, _ = players.register("bob")
    fold = service.create(ann, "secret-duel", 2, {}, {}, seat=0)
    joined: Fold = service.join(bob, fold.id, 1)
    assert joined.status == "active" and not joined.bots and sorted(joined.awaiting()) == [0, 1]
    return ann, bob, joined


def _commit(fold: Fold, seat: int) -> dict[str, Any]:
    return {"type": "commit", "card": fold.state.hands[seat][0]}


class _Saves:
    """How many transactions the driver's two savers have committed so far."""

    def __init__(self, writes: Writes) -> None:
        assert writes.loop_writer is not None, "Postgres: saves go through the loop writer"
        self.writes = writes
        self.loop, self.threads = writes.loop_writer.transactions, writes.group.transactions

    def since(self) -> tuple[int, int]:
        assert self.writes.loop_writer is not None
        return (
            self.writes.loop_writer.transactions - self.loop,
            self.writes.group.transactions - self.threads,
        )


def _count_fresh_reads(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the reads of a game from the store (each write's `fresh` read)."""
    reads = [0]
    real = service.current.fresh

    def fresh(game_id: uuid.UUID) -> Fold:
        reads[0] += 1
        return real(game_id)

    monkeypatch.setattr(service.current, "fresh", fresh)
    return reads


def test_coroutines_and_threads_race_for_one_version_and_exactly_one_applies(
    store: EventStoreApp,
) -> None:
    """16 coroutines on the driver's loop and 16 threads (`Writes.blocking`) submit a move at
    the same version of one game: exactly one is applied, 31 get version_conflict, the log
    has no gap, and the refused ones never reach the store (one save in all)."""
    service = GameService(store)
    ann, _, fold = _duel(store, service)
    args = (fold.id, fold.version, _commit(fold, 0))
    saves = _Saves(service.games.writes)
    outcomes: list[str] = []
    barrier = threading.Barrier(17)

    def in_thread(i: int) -> None:
        barrier.wait()
        try:
            service.move(ann, *args, f"thread-{i}")
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    async def one(i: int) -> None:
        try:
            await service.games.move(ann, *args, f"loop-{i}")
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    async def on_loop() -> None:
        await asyncio.gather(*(one(i) for i in range(16)))

    threads = [threading.Thread(target=in_thread, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    barrier.wait()
    _on_loop(service, on_loop())
    for thread in threads:
        thread.join(60)
    assert outcomes.count("applied") == 1, outcomes
    assert outcomes.count("version_conflict") == 31, outcomes
    assert stored_versions(store, fold.id) == list(range(1, fold.version + 2))
    assert saves.since() == (1, 0)


def test_coroutines_and_threads_of_two_processes_race_for_one_version(
    store: EventStoreApp,
) -> None:
    """The same race from two processes (two services, each with the game cached): the
    store's unique (game, version) lets one in; the other process's winner of its own lock
    meets the conflict and is refused after reading the store."""
    first = GameService(store)
    ann, _, fold = _duel(store, first)
    second = GameService(store)
    second.get(fold.id)
    second.current.seed(fold.id)  # both decide on their cache first
    args = (fold.id, fold.version, _commit(fold, 0))
    outcomes: list[str] = []
    barrier = threading.Barrier(16)

    def in_thread(i: int) -> None:
        service = (first, second)[i % 2]
        barrier.wait()
        try:
            if i % 4 < 2:  # a thread of its own, as the timekeeper writes
                service.move(ann, *args, f"thread-{i}")
            else:  # a coroutine on the service's loop, as the API writes
                _on_loop(service, service.games.move(ann, *args, f"loop-{i}"))
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    threads = [threading.Thread(target=in_thread, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcomes.count("applied") == 1, outcomes
    assert outcomes.count("version_conflict") == 15, outcomes
    assert stored_versions(store, fold.id) == list(range(1, fold.version + 2))


def test_concurrent_saves_of_many_games_share_the_loop_writers_transactions(
    store: EventStoreApp,
) -> None:
    """A move in each of 16 games, all at once on the loop: every one is applied, and the
    loop writer carried them in fewer transactions than saves (no worker thread)."""
    service = GameService(store)
    duels = [_duel(store, service) for _ in range(16)]
    saves = _Saves(service.games.writes)

    async def on_loop() -> list[MoveAnswer]:
        moves = [
            service.games.move(ann, fold.id, fold.version, _commit(fold, 0), "k")
            for ann, _, fold in duels
        ]
        return list(await asyncio.gather(*moves))

    answers = _on_loop(service, on_loop())
    for (_, _, fold), answer in zip(duels, answers, strict=True):
        assert answer.version == fold.version + 1 and answer.awaiting == [1]
        assert stored_versions(store, fold.id) == list(range(1, answer.version + 1))
    in_loop, in_threads = saves.since()
    assert in_threads == 0 and 1 <= in_loop < 16, (in_loop, in_threads)


def test_a_killed_loop_writer_connection_is_replaced_under_a_move(
    store: EventStoreApp, pg_url: str
) -> None:
    """The server ends the loop writer's connection between two moves: the next move is
    saved on a new connection, once, and the log has no gap."""
    service = GameService(store)
    ann, bob, fold = _duel(store, service)
    writer = service.games.writes.loop_writer
    assert writer is not None

    async def backend() -> int | None:
        conn = writer._conn
        return None if conn is None or conn.closed else conn.info.backend_pid

    pid = _on_loop(service, backend())
    assert pid is not None  # the join was saved on it
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    answer = service.move(ann, fold.id, fold.version, _commit(fold, 0), "a")
    assert answer.version == fold.version + 1
    replaced = _on_loop(service, backend())
    assert replaced is not None and replaced != pid
    again = service.move(bob, fold.id, answer.version, _commit(fold, 1), "b")
    assert again.version > answer.version
    assert stored_versions(store, fold.id) == list(range(1, again.version + 1))


def test_a_cache_that_trails_may_not_know_a_seat(
    store: EventStoreApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game created in one process and joined in another: the first process still holds
    it open, without the second seat. Its refusal (`not_seated`) on the cache is checked
    again against the store, which knows the seat: the move is applied."""
    first, second = GameService(store), GameService(store)
    players = Players(store)
    ann, bob = players.register("ann")[0], players.register("bob")[0]
    created = first.create(ann, "secret-duel", 2, {}, {}, seat=0)
    joined = second.join(bob, created.id, 1)
    trailing = first.current.cached(created.id)
    assert trailing is not None and trailing.status == "open"  # its cache trails
    assert first.current.cached_seed(created.id) is not None  # so it decides on it first
    reads = _count_fresh_reads(first, monkeypatch)
    answer = _on_loop(
        first, first.games.move(bob, created.id, joined.version, _commit(joined, 1), "b")
    )
    assert answer.version == joined.version + 1 and reads[0] == 1
    cached = first.current.cached(created.id)
    assert cached is not None and cached.version == answer.version  # caught up, then kept


def test_a_cache_that_trails_another_process_never_applies_a_stale_move(
    store: EventStoreApp,
) -> None:
    """Two services (two processes) on one store, each with the game cached. A move through
    one leaves the other's cache behind: the other still applies a move at the new version
    (its version_conflict on the cache is checked against the store) and refuses one at the
    old version (its save conflicts, and the store's game refuses it), naming the store's
    version."""
    first, second = GameService(store), GameService(store)
    ann, bob, fold = _duel(store, first)
    second.get(fold.id)
    second.current.seed(fold.id)  # both decide on their cache first

    by_ann = _on_loop(first, first.games.move(ann, fold.id, fold.version, _commit(fold, 0), "a"))
    trailing = second.current.cached(fold.id)
    assert trailing is not None and trailing.version == fold.version  # its cache trails
    by_bob = _on_loop(
        second, second.games.move(bob, fold.id, by_ann.version, _commit(fold, 1), "b")
    )
    assert by_bob.version > by_ann.version
    behind = first.current.cached(fold.id)
    assert behind is not None and behind.version == by_ann.version  # its cache trails now
    with pytest.raises(Conflict) as refused:  # bob again, at the version first knows
        _on_loop(first, first.games.move(bob, fold.id, by_ann.version, _commit(fold, 1), "c"))
    assert refused.value.code == "version_conflict"
    assert refused.value.extra["version"] == by_bob.version  # the store's, not the cache's
    versions = stored_versions(store, fold.id)
    assert versions == list(range(1, by_bob.version + 1))
    assert [e.idempotency_key for e in store.events.get(fold.id, gt=fold.version)].count("c") == 0


def test_retries_and_strangers_on_the_loop(
    store: EventStoreApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Idempotency-Key retried after its move was saved gets the first answer and applies
    nothing; a player with no seat is refused, and only after the store was asked (never
    on the cache alone); neither changes the log."""
    service = GameService(store)
    ann, _, fold = _duel(store, service)
    stranger, _ = Players(store).register("stranger")
    move = _commit(fold, 0)
    saves = _Saves(service.games.writes)

    first = _on_loop(service, service.games.move(ann, fold.id, fold.version, move, "k"))
    after = stored_versions(store, fold.id)
    again = _on_loop(service, service.games.move(ann, fold.id, fold.version, move, "k"))
    assert again == first and again.replayed and not first.replayed
    reads = _count_fresh_reads(service, monkeypatch)
    with pytest.raises(Forbidden) as refused:
        _on_loop(
            service, service.games.move(stranger, fold.id, first.version, {"type": "draw"}, "s")
        )
    assert refused.value.code == "not_seated"
    assert reads[0] == 1  # refused on the cache, then on the store's game
    assert stored_versions(store, fold.id) == after
    assert saves.since() == (1, 0)

"""Writes decided on the event loop and saved by the loop writer (Postgres), against the
real server: batching, conflicts, a lost connection, and the same guarantees as the thread
path when both race for one game, in one process or in two."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import RecordConflictError

from service.errors import Conflict, Forbidden
from service.games import MoveAnswer
from tests.support.games import GameService
from service.loop_writer import LoopWriter
from service.players import Player, Players
from service.store import EventStoreApp
from tests.support.events import bare_event, stored_versions


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


def _two_humans(store: EventStoreApp, service: GameService) -> tuple[Player, Player, Any]:
    players = Players(store)
    ann, _ = players.register("ann")
    bob, _ = players.register("bob")
    fold = service.create(ann, "secret-duel", 2, {}, {}, seat=0)
    return ann, bob, service.join(bob, fold.id, 1)


async def _move(service: GameService, player: Player, *args: Any) -> MoveAnswer:
    """What the API does: on the loop if the service can, else in a worker thread."""
    answer = await service.move_on_loop(player, *args)
    if answer is None:
        answer = await asyncio.to_thread(service.move, player, *args)
    return answer


def test_32_moves_at_one_version_on_the_loop_and_in_threads(store: EventStoreApp) -> None:
    """16 coroutines on the loop and 16 threads submit a move at the same version of one
    game: exactly one is applied, 31 get version_conflict, and the log has no gap."""
    service = GameService(store)
    ann, _, fold = _two_humans(store, service)
    assert fold.status == "active" and not fold.bots
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    args = (fold.id, fold.version, move)
    outcomes: list[str] = []
    barrier = threading.Barrier(17)

    def in_thread(i: int) -> None:
        barrier.wait()
        try:
            service.move(ann, *args, f"thread-{i}")
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    async def on_loop(i: int) -> None:
        try:
            await _move(service, ann, *args, f"loop-{i}")
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    async def main() -> None:
        threads = [threading.Thread(target=in_thread, args=(i,)) for i in range(16)]
        for thread in threads:
            thread.start()
        await asyncio.to_thread(barrier.wait)
        await asyncio.gather(*(on_loop(i) for i in range(16)))
        for thread in threads:
            await asyncio.to_thread(thread.join)
        assert service.loop_writer is not None
        await service.loop_writer.close()

    asyncio.run(main())
    assert outcomes.count("applied") == 1, outcomes
    assert outcomes.count("version_conflict") == 31, outcomes
    versions = stored_versions(store, fold.id)
    assert versions == list(range(1, fold.version + 2))


def test_32_moves_at_one_version_all_on_the_loop(store: EventStoreApp) -> None:
    """32 requests at one version, all arriving on the loop: the first is saved by the loop
    writer, the others find the game busy, go to threads and are refused there."""
    service = GameService(store)
    ann, _, fold = _two_humans(store, service)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    in_threads = service.writer.transactions

    async def one(i: int) -> str:
        try:
            await _move(service, ann, fold.id, fold.version, move, f"k{i}")
            return "applied"
        except Conflict as error:
            return error.code

    async def main() -> list[str]:
        outcomes = await asyncio.gather(*(one(i) for i in range(32)))
        assert service.loop_writer is not None
        await service.loop_writer.close()
        return outcomes

    outcomes = asyncio.run(main())
    assert sorted(outcomes) == ["applied"] + ["version_conflict"] * 31
    assert service.loop_writer is not None and service.loop_writer.transactions == 1
    assert service.writer.transactions == in_threads
    assert stored_versions(store, fold.id) == list(range(1, fold.version + 2))


def test_a_cache_that_trails_may_not_know_a_seat(store: EventStoreApp) -> None:
    """A game created in one process and joined in another: the first process still holds
    it open, without the second seat, and must not refuse that seat's move."""
    first, second = GameService(store), GameService(store)
    players = Players(store)
    ann, bob = players.register("ann")[0], players.register("bob")[0]
    created = first.create(ann, "secret-duel", 2, {}, {}, seat=0)
    joined = second.join(bob, created.id, 1)
    assert first._cached(created.id).status == "open"  # its cache trails

    async def main() -> MoveAnswer:
        move = {"type": "commit", "card": joined.state.hands[1][0]}
        answer = await _move(first, bob, created.id, joined.version, move, "b")
        assert first.loop_writer is not None
        await first.loop_writer.close()
        return answer

    assert asyncio.run(main()).version == joined.version + 1


def test_a_cache_that_trails_another_process_never_applies_a_stale_move(
    store: EventStoreApp,
) -> None:
    """Two services (two processes) on one store, each with the game cached. A move through
    one leaves the other's cache behind: the other still applies a move at the new version
    (it reads the store) and refuses one at the old version (its loop save conflicts)."""
    first, second = GameService(store), GameService(store)
    ann, bob, fold = _two_humans(store, first)
    second.get(fold.id)
    seed = first._seeds.get(fold.id)
    assert seed is not None
    second._seeds.put(fold.id, seed)
    ann_card, bob_card = fold.state.hands[0][0], fold.state.hands[1][0]
    ann_move = {"type": "commit", "card": ann_card}
    bob_move = {"type": "commit", "card": bob_card}

    async def main() -> None:
        by_ann = await first.move_on_loop(ann, fold.id, fold.version, ann_move, "a")
        assert by_ann is not None
        assert second._cached(fold.id).version == fold.version  # its cache trails
        by_bob = await _move(second, bob, fold.id, by_ann.version, bob_move, "b")
        assert by_bob.version > by_ann.version
        assert first._cached(fold.id).version == by_ann.version  # its cache trails now
        with pytest.raises(Conflict) as refused:  # bob again, at the version first knows
            await _move(first, bob, fold.id, by_ann.version, bob_move, "c")
        assert refused.value.code == "version_conflict"
        for service in (first, second):
            assert service.loop_writer is not None
            await service.loop_writer.close()

    asyncio.run(main())
    versions = stored_versions(store, fold.id)
    assert versions == list(range(1, len(versions) + 1))
    assert [e.idempotency_key for e in store.events.get(fold.id, gt=fold.version)].count("c") == 0


def test_retries_and_strangers_on_the_loop(store: EventStoreApp) -> None:
    """An Idempotency-Key retried after a loop save gets the first answer and applies
    nothing; a player with no seat is refused; neither changes the log."""
    service = GameService(store)
    ann, _, fold = _two_humans(store, service)
    stranger, _ = Players(store).register("stranger")
    move = {"type": "commit", "card": fold.state.hands[0][0]}

    async def main() -> None:
        first = await service.move_on_loop(ann, fold.id, fold.version, move, "k")
        assert first is not None  # saved on the loop
        after = stored_versions(store, fold.id)
        assert await _move(service, ann, fold.id, fold.version, move, "k") == first
        with pytest.raises(Forbidden):
            await _move(service, stranger, fold.id, first.version, {"type": "draw"}, "s")
        assert stored_versions(store, fold.id) == after
        assert service.loop_writer is not None
        await service.loop_writer.close()

    asyncio.run(main())

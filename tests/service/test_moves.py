"""Moves against the real stores: races, idempotency, conflicts (service layer)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from service.errors import Conflict, Problem, Unprocessable
from service.players import Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.support.events import stored_versions
from tests.support.games import GameService, close_over


@pytest.fixture
def stores() -> Iterator[list[EventStoreApp]]:
    """Stores opened by a test, closed after it (each holds a connection pool)."""
    opened: list[EventStoreApp] = []
    yield opened
    for store in opened:
        close_over(store)  # the game services' bot runners and loops stop first
        store.close()


def _open_duel(settings: Settings, stores: list[EventStoreApp]) -> tuple[EventStoreApp, Any, Any]:
    store = open_store(settings)
    stores.append(store)
    player, _ = Players(store).register("racer")
    service = GameService(store)
    fold = service.create(player, "secret-duel", 3, {}, {1: "random", 2: "random"})
    service.join(player, fold.id, 0)
    return store, player, service.settled(fold.id)


@pytest.mark.parametrize("shared", [True, False], ids=["one-process", "32-processes"])
def test_32_threads_same_version_exactly_one_applies(
    pg_settings: Settings, stores: list[EventStoreApp], shared: bool
) -> None:
    """32 threads submit a move at the same version: one is applied, 31 get 409, and the
    stored log has no gap and no duplicate. With `shared=False` every thread has its own
    service (its own cache), as separate processes would: the store itself must refuse."""
    store, player, fold = _open_duel(pg_settings, stores)
    services = [GameService(store) for _ in range(32)] if not shared else [GameService(store)] * 32
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    barrier = threading.Barrier(32)
    outcomes: list[str] = []

    def submit(i: int) -> None:
        barrier.wait()
        try:
            services[i].move(player, fold.id, fold.version, move, f"key-{i}")
            outcomes.append("applied")
        except Conflict as error:
            outcomes.append(error.code)

    with ThreadPoolExecutor(32) as pool:
        list(pool.map(submit, range(32)))
    assert outcomes.count("applied") == 1, outcomes
    assert outcomes.count("version_conflict") == 31, outcomes
    versions = stored_versions(store, fold.id)
    assert versions == list(range(1, len(versions) + 1))
    assert len(versions) > fold.version


def test_same_key_retried_returns_first_answer_once(
    any_settings: Settings, stores: list[EventStoreApp]
) -> None:
    store, player, fold = _open_duel(any_settings, stores)
    service = GameService(store)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    first = service.move(player, fold.id, fold.version, move, "retry-me")
    after = stored_versions(store, fold.id)
    again = service.move(player, fold.id, fold.version, move, "retry-me")
    assert again == first
    assert stored_versions(store, fold.id) == after
    # another service instance (another process) answers the same from the store
    assert GameService(store).move(player, fold.id, fold.version, move, "retry-me") == first


def test_key_reused_with_another_body_is_refused(
    any_settings: Settings, stores: list[EventStoreApp]
) -> None:
    store, player, fold = _open_duel(any_settings, stores)
    service = GameService(store)
    cards = fold.state.hands[0]
    service.move(player, fold.id, fold.version, {"type": "commit", "card": cards[0]}, "k")
    before = stored_versions(store, fold.id)
    with pytest.raises(Unprocessable) as refused:
        service.move(player, fold.id, fold.version, {"type": "commit", "card": cards[1]}, "k")
    assert refused.value.code == "idempotency_key_reused"
    with pytest.raises(Unprocessable):  # same move, other expected_version: another request
        service.move(player, fold.id, fold.version + 1, {"type": "commit", "card": cards[0]}, "k")
    assert stored_versions(store, fold.id) == before


def test_refused_moves_change_nothing(any_settings: Settings, stores: list[EventStoreApp]) -> None:
    store, player, fold = _open_duel(any_settings, stores)
    service = GameService(store)
    before = stored_versions(store, fold.id)
    not_held = next(c for c in range(1, 100) if c not in fold.state.hands[0])
    bad: list[tuple[int, Any]] = [
        (fold.version, {"type": "commit", "card": not_held}),
        (fold.version, {"type": "draw"}),
        (fold.version, {"type": "fly"}),
        (fold.version, {"card": 1}),
        (fold.version, "commit"),
        (fold.version - 1, {"type": "commit", "card": fold.state.hands[0][0]}),
    ]
    for version, move in bad:
        with pytest.raises(Problem) as refused:
            service.move(player, fold.id, version, move, uuid.uuid4().hex)
        assert refused.value.status in (409, 422)
    assert stored_versions(store, fold.id) == before
    stranger, _ = Players(store).register("stranger")
    with pytest.raises(Problem) as refused:
        service.move(stranger, fold.id, fold.version, {"type": "draw"}, "x")
    assert refused.value.status == 403
    assert stored_versions(store, fold.id) == before

"""Fixtures of the service tests: a store of their own on the real Postgres, a fake server
clock, game services of this process and of others, and the projection runner."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from projections.runner import GamesRunner
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.support.clock import FakeClock
from tests.support.games import GameService, close_over


@pytest.fixture
def store(pg_settings: Settings) -> Iterator[EventStoreApp]:
    opened = open_store(pg_settings)
    yield opened
    close_over(opened)  # the game services' bot runners and loops stop first
    opened.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(store: EventStoreApp, clock: FakeClock) -> GameService:
    """The game service of this test's process, on the fake clock."""
    return GameService(store, now=clock)


@pytest.fixture
def ada(store: EventStoreApp) -> Player:
    return Players(store).register("ada")[0]


@pytest.fixture
def elsewhere(pg_settings: Settings) -> Iterator[Callable[[FakeClock], GameService]]:
    """Game services of other processes (stores of their own), closed after the test."""
    opened: list[EventStoreApp] = []

    def service(clock: FakeClock) -> GameService:
        opened.append(open_store(pg_settings))
        return GameService(opened[-1], now=clock)

    yield service
    for store in opened:
        close_over(store)  # its bot runner and loop stop first
        store.close()


@pytest.fixture
def runner(pg_settings: Settings) -> Iterator[GamesRunner]:
    running = GamesRunner(pg_settings)
    yield running
    running.close()

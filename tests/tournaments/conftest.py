"""The tournament tests' world on the real Postgres: a store in a schema of its own, the game
service on a fake clock (time moves only when a test says), the tournament service over it,
and an organiser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from service.tournaments import TournamentService
from service.wakeup import ring
from tests.support.clock import FakeClock
from tests.support.games import GameService, close_over


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(pg_settings: Settings) -> Iterator[EventStoreApp]:
    opened = open_store(pg_settings)
    yield opened
    close_over(opened)  # the adapters' bot runners stop before the store closes
    opened.close()


@pytest.fixture
def games(store: EventStoreApp, clock: FakeClock) -> GameService:
    service = GameService(store, now=clock)
    service.games.writes.listen(lambda *_: ring())  # what the app does: wake the runner
    return service


@pytest.fixture
def tournaments(store: EventStoreApp, games: GameService) -> TournamentService:
    return TournamentService(store, games.games)


@pytest.fixture
def organiser(store: EventStoreApp) -> Player:
    return Players(store).register("org")[0]

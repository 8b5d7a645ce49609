"""Fixtures of the service tests: a store of their own on the real Postgres."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.support.games import close_over


@pytest.fixture
def store(pg_settings: Settings) -> Iterator[EventStoreApp]:
    opened = open_store(pg_settings)
    yield opened
    close_over(opened)  # the game services' bot runners and loops stop first
    opened.close()

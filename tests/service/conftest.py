"""Fixtures of the service tests: a store of their own on the real Postgres."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.settings import Settings
from service.store import EventStoreApp, open_store


@pytest.fixture
def store(pg_settings: Settings) -> Iterator[EventStoreApp]:
    opened = open_store(pg_settings)
    yield opened
    opened.close()

from __future__ import annotations

from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Settings
from tests.support.api import Api


@pytest.fixture
def api(any_settings: Settings) -> Iterator[Api]:
    """The API in-process, on Postgres and on SQLite."""
    with TestClient(build(any_settings)) as client:
        yield Api(client)


@pytest.fixture
def pg_api(pg_settings: Settings) -> Iterator[Api]:
    with TestClient(build(pg_settings)) as client:
        yield Api(client)

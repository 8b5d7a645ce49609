"""Shared fixtures: a real Postgres for everything that claims persistence (each test in its
own schema), SQLite beside it where both stores are covered, and the tests-only game.

Postgres: TABLETOP_TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/test.
If nothing answers there, a throwaway server is started with pytest-postgresql (when pg_ctl
is installed and we are not root, which initdb refuses); otherwise the run stops with a
clear message. Database tests are never skipped.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient

from api.main import build
from domain.registry import GAMES, register
from service.settings import Settings
from tests import secret_duel
from tests.support import games as games_support
from tests.support.api import Api

register(secret_duel.GAME)
os.environ["TABLETOP_PLUGINS"] = "tests.secret_duel"  # for the CLI run in subprocesses

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


def _answers(url: str) -> str | None:
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except psycopg.Error as error:
        return str(error).strip()


def _throwaway() -> tuple[str, Any]:
    pg_ctl = shutil.which("pg_ctl") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)), None
    )
    if pg_ctl is None or os.geteuid() == 0:
        raise RuntimeError("pg_ctl not found" if pg_ctl is None else "initdb refuses root")
    from pytest_postgresql.executors.proc import PostgreSQLExecutor

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = Path(tempfile.mkdtemp(prefix="tabletop-pg-"))
    executor = PostgreSQLExecutor(
        executable=pg_ctl,
        host="127.0.0.1",
        port=port,
        datadir=str(base / "data"),
        unixsocketdir=str(base),
        logfile=str(base / "log"),
        startparams="-w",
        dbname="test",
    )
    executor.start()
    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
    ) as conn:
        conn.execute("CREATE DATABASE test")
    return f"postgresql://postgres@127.0.0.1:{port}/test", executor


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    url = os.environ.get("TABLETOP_TEST_DATABASE_URL", DEFAULT_URL)
    failure = _answers(url)
    if failure is None:
        yield url
        return
    try:
        url, executor = _throwaway()
    except Exception as error:
        pytest.exit(
            f"Postgres does not answer at {url} ({failure}) and no throwaway server could be "
            f"started ({error}). Start one (e.g. pg_ctlcluster 15 main start) or set "
            "TABLETOP_TEST_DATABASE_URL.",
            returncode=3,
        )
    try:
        yield url
    finally:
        executor.stop()


@pytest.fixture
def pg_settings(pg_url: str) -> Iterator[Settings]:
    """Settings for a store in a fresh schema of its own, dropped afterwards."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Settings(database_url=f"{pg_url}?schema={schema}&pool_size=6&max_overflow=18")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    return Settings(sqlite_path=str(tmp_path / "tabletop.sqlite"))


@pytest.fixture(params=["postgres", "sqlite"])
def any_settings(request: pytest.FixtureRequest) -> Settings:
    """Both stores: the test runs once on Postgres and once on SQLite."""
    name = "pg_settings" if request.param == "postgres" else "sqlite_settings"
    settings: Settings = request.getfixturevalue(name)
    return settings


@pytest.fixture
def api(any_settings: Settings) -> Iterator[Api]:
    """The API in-process (with its projection runner), on Postgres and on SQLite."""
    with TestClient(build(any_settings)) as client:
        yield Api(client)


@pytest.fixture
def pg_api(pg_settings: Settings) -> Iterator[Api]:
    with TestClient(build(pg_settings)) as client:
        yield Api(client)


@pytest.fixture
def sqlite_api(sqlite_settings: Settings) -> Iterator[Api]:
    """The API in-process on SQLite alone (for what does not depend on the store)."""
    with TestClient(build(sqlite_settings)) as client:
        yield Api(client)


def all_games() -> list[str]:
    """Every registered game: the core suites run over each of them."""
    return sorted(GAMES)


class LiveServer:
    """The API served by uvicorn in a thread, for tests that need real HTTP."""

    def __init__(self, settings: Settings) -> None:
        import uvicorn

        from api.main import build

        self.app = build(settings)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(autouse=True)
def _close_game_services() -> Iterator[None]:
    """Every test's game services stop their bot runners and loops after it."""
    yield
    while games_support.OPEN:
        games_support.OPEN.pop().close()

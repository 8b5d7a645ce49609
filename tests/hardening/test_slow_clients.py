"""Slow and many clients, and a full worker pool (issue 15, items 2 and 6): a request that
arrives by halves is timed out (408) and its connection closed; connections beyond the
process's bound are closed at once; requests that would wait behind a full worker pool are
shed with 503 `overloaded` while /health still answers; and hundreds of spectators of one
game each get every event, from one shared read per move."""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio.to_thread
import httpx
import pytest
from litestar.testing import TestClient

from api import live
from api.main import build
from service.settings import Limits, Settings
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.serve import serve
from tests.support.waits import wait_until


@pytest.fixture
def served(pg_settings: Settings) -> Iterator[str]:
    env = {
        **os.environ,
        "DATABASE_URL": pg_settings.database_url or "",
        "TABLETOP_READ_TIMEOUT": "1",
        "TABLETOP_MAX_CONNECTIONS": "40",
    }
    server, url = serve(env, timeout=120)
    try:
        yield url
    finally:
        server.terminate()
        server.wait(20)


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def _closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing the connection, or None if it stayed open."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


def test_half_sent_requests_are_timed_out_and_connections_bounded(served: str) -> None:
    half = _connect(served)
    half.sendall(b'POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"na')
    silent = _connect(served)
    answered = _closed_within(half, 15)
    assert answered is not None and answered.startswith(b"HTTP/1.1 408"), answered
    assert _closed_within(silent, 15) is not None  # a connection that never sent a byte
    # the process holds at most 40 connections: those beyond are closed at once
    held = [_connect(served) for _ in range(60)]
    refused: set[int] = set()
    deadline = time.monotonic() + 20  # the server accepts them as its loop gets to them
    while len(refused) < 20 and time.monotonic() < deadline:
        for i, sock in enumerate(held):
            if i not in refused and _closed_within(sock, 0.02) is not None:
                refused.add(i)
    assert len(refused) >= 20
    for sock in held:
        sock.close()
    assert httpx.get(f"{served}/health", timeout=30).status_code == 200


def test_a_full_worker_pool_is_shed_and_health_still_answers(pg_settings: Settings) -> None:
    settings = Settings(database_url=pg_settings.database_url, limits=Limits(queued=0))
    with TestClient(build(settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        portal = client.blocking_portal
        release = threading.Event()

        async def hold_every_thread() -> None:
            limiter = anyio.to_thread.current_default_thread_limiter()
            limiter.total_tokens = 1
            await anyio.to_thread.run_sync(release.wait)

        holding = portal.start_task_soon(hold_every_thread)
        try:
            limiter = portal.call(anyio.to_thread.current_default_thread_limiter)
            wait_until(lambda: limiter.borrowed_tokens == 1, 10, "the one thread taken")
            shed = client.post("/v1/players", json={"name": "bob"})
            assert shed.status_code == 503, shed.text
            assert shed.json()["code"] == "overloaded"
            assert shed.headers["retry-after"] == "1"
            assert client.get("/health").status_code == 200  # on the loop, no thread needed
            assert client.get("/v1/game-types", headers=Api.auth(ada)).status_code == 503
        finally:
            release.set()
            holding.result(10)
            portal.call(_restore_threads)
        assert client.post("/v1/players", json={"name": "bob"}).status_code == 201


async def _restore_threads() -> None:
    anyio.to_thread.current_default_thread_limiter().total_tokens = 40


def test_hundreds_of_spectators_each_get_every_event(
    pg_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """300 spectators of one game (SSE): each gets every event of the game, in order, and
    between them the streams read the store about once per move, not once each."""
    reads = [0]

    def counted(*args: Any) -> Any:
        reads[0] += 1
        return read(*args)

    read = live._read
    monkeypatch.setattr(live, "_read", counted)
    spectators = 300
    with LiveServer(Settings(database_url=pg_settings.database_url)) as server:
        with httpx.Client(base_url=server.url, timeout=120) as c:
            api = Api(c)
            ada, bob = api.player("ada"), api.player("bob")
            game = api.create(ada, "secret-duel", 2, seat=0, options={"rounds": 3})["id"]
            assert c.post(f"/v1/games/{game}/join", headers=Api.auth(bob)).is_success
        seen: list[list[int]] = [[] for _ in range(spectators)]
        ready = threading.Barrier(spectators + 1)

        def spectate(i: int) -> None:
            headers = {"Accept": "text/event-stream"}
            with (
                httpx.Client(base_url=server.url, timeout=120) as c,
                c.stream("GET", f"/v1/games/{game}/stream", headers=headers) as s,
            ):
                ready.wait()
                for line in s.iter_lines():
                    if line.startswith("id: "):
                        seen[i].append(int(line[4:]))

        threads = [threading.Thread(target=spectate, args=(i,)) for i in range(spectators)]
        for thread in threads:
            thread.start()
        ready.wait(120)
        opened = reads[0]
        with httpx.Client(base_url=server.url, timeout=120) as c:
            final = Api(c).play_out(game, {0: ada, 1: bob}, random.Random(1))
        for thread in threads:
            thread.join(600)  # a loaded machine delivers slowly; none may miss an event
        moves_reads = reads[0] - opened
        print(f"\n{spectators} spectators, {final['version']} events: {moves_reads} reads")
        assert all(versions == list(range(1, final["version"] + 1)) for versions in seen)
        assert moves_reads < 10 * final["version"]  # one each would be 300 per move

"""The live fan-out (api/fanout.py, api/handoff.py): game streams served by uvicorn are handed
over to a process of their own on Postgres (a thread with its own loop on SQLite), which
reads and renders each event once per seat view and writes it to every socket of the view.

Spectators each get every event in order, a seat's stream its own view, a stream resumes
from Last-Event-ID; a spectator that does not read holds up neither the others nor the
players; a fan-out process that dies is replaced, and its clients resume where they were.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api import fanout
from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.waits import wait_until

SSE = {"Accept": "text/event-stream"}


class Reader(threading.Thread):
    """One SSE stream over a bare socket, read to its end: the ids of its events in the
    order they came, and when each came."""

    def __init__(
        self, server: LiveServer, game: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(daemon=True)
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.request = (
            f"GET /v1/games/{game}/stream HTTP/1.1\r\nHost: x\r\n"
            f"Accept: text/event-stream\r\n{extra}\r\n"
        ).encode()
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        self.ids: list[int] = []
        self.events: list[dict[str, Any]] = []
        self.arrived: dict[int, float] = {}
        self.head = b""
        self.ended = threading.Event()  # the chunked body's end, then the connection's
        self.broken = threading.Event()  # the connection ended before the body did
        self.paused = threading.Event()
        self.paused.set()

    def run(self) -> None:
        self.sock.sendall(self.request)
        buffer = b""
        try:
            while True:
                self.paused.wait()
                data = self.sock.recv(1 << 16)
                if not data:
                    break
                buffer += data
                if not self.head and b"\r\n\r\n" in buffer:
                    self.head, buffer = buffer.split(b"\r\n\r\n", 1)
                buffer = self._body(buffer) if self.head else buffer
        except OSError:
            pass
        (self.ended if self._done else self.broken).set()

    _done = False

    def _body(self, buffer: bytes) -> bytes:
        """Takes the whole chunks off the buffer; returns what is left."""
        while b"\r\n" in buffer:
            size_text, rest = buffer.split(b"\r\n", 1)
            size = int(size_text, 16)
            if size == 0:
                self._done = rest.startswith(b"\r\n")
                return buffer
            if len(rest) < size + 2:
                return buffer
            self._message(rest[:size])
            buffer = rest[size + 2 :]
        return buffer

    def _message(self, payload: bytes) -> None:
        for block in payload.split(b"\r\n\r\n"):
            fields = dict(line.split(b": ", 1) for line in block.split(b"\r\n") if b": " in line)
            if b"id" in fields:
                version = int(fields[b"id"])
                event = json.loads(fields[b"data"])
                assert fields[b"event"] == b"game_event" and event["version"] == version
                self.ids.append(version)
                self.events.append(event)
                self.arrived[version] = time.monotonic()


def _handed_over(server: LiveServer, streams: int) -> None:
    """Wait until the fan-out runs and has been handed `streams` streams in all."""
    handoff = server.app.state.tabletop.live.handoff
    wait_until(lambda: handoff.ready, 60, "the fan-out ready")
    wait_until(lambda: handoff.given >= streams, 20, "the streams handed over")


def _one_stream_handed_over(
    server: LiveServer, api: Api
) -> tuple[dict[str, str], str, Reader, int]:
    """ann's game against a bot, and a spectator's stream of it held by the fan-out and
    sent the game so far: (ann, the game, the stream, the version sent)."""
    ann = api.player("ann")
    game = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    first = Reader(server, game)
    first.start()
    _handed_over(server, 1)
    version = api.settled(game, ann)["version"]
    wait_until(lambda: version in first.ids, 10, "the backlog sent")
    return ann, game, first, version


@pytest.fixture
def pg_server(pg_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(pg_settings) as server:
        yield server


@pytest.fixture
def sqlite_server(sqlite_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(sqlite_settings) as server:
        yield server


@pytest.mark.parametrize("store", ["postgres", "sqlite"])
def test_spectators_and_a_seat_each_get_every_event_in_order_from_the_fanout(
    store: str, request: pytest.FixtureRequest
) -> None:
    server: LiveServer = request.getfixturevalue(
        "pg_server" if store == "postgres" else "sqlite_server"
    )
    with httpx.Client(base_url=server.url, timeout=30) as client:
        api = Api(client)
        ann = api.player("ann")
        game = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)["id"]
        spectators = [Reader(server, game) for _ in range(40)]
        seat = Reader(server, game, Api.auth(ann))
        for reader in [*spectators, seat]:
            reader.start()
        _handed_over(server, len(spectators) + 1)
        if store == "postgres":  # a process of its own holds the connections
            pid = server.app.state.tabletop.live.handoff.pid
            assert pid is not None and pid != os.getpid()
        moved: dict[int, float] = {}
        final = api.play_out(
            game,
            {0: ann},
            random.Random(2),
            on_step=lambda _, answer: moved.__setitem__(answer["version"], time.monotonic()),
        )
        full = client.get(f"/v1/games/{game}/events").json()["events"]
    every = list(range(1, final["version"] + 1))
    for reader in [*spectators, seat]:
        assert reader.ended.wait(20), "the stream did not end with the game"
        assert reader.ids == every, "missing or out of order"
        assert b"connection: close" in reader.head.lower()
        assert max(reader.arrived[v] - t for v, t in moved.items()) < 2.0, "pushed, not polled"
    # The seat's own view is not the spectators' (its hand shows) while the game runs;
    # the spectators' views are one rendering, the same bytes for all.
    assert seat.events != spectators[0].events
    # (A stream that reads an event only once the game is over is shown it as the game's
    # record shows it then, hidden information revealed, as `full` is: seen on a loaded
    # machine. Any other difference between two spectators is a fault.)
    for i, shown in enumerate(zip(*(r.events for r in spectators), strict=True)):
        kinds = {json.dumps(e, sort_keys=True) for e in shown}
        kinds.discard(json.dumps(full[i], sort_keys=True))
        assert len(kinds) <= 1, f"spectators shown different events: {sorted(kinds)[:2]}"
    assert [e["type"] for e in seat.events] == [e["type"] for e in full]
    late = Reader(server, game)  # after the end: the record as the events route shows it
    late.start()
    assert late.ended.wait(20) and late.events == full


def test_a_stream_resumes_from_last_event_id_in_the_fanout(pg_server: LiveServer) -> None:
    with httpx.Client(base_url=pg_server.url, timeout=30) as client:
        api = Api(client)
        ann, game, _, version = _one_stream_handed_over(pg_server, api)
        resumed = Reader(pg_server, game, {"Last-Event-ID": str(version - 2)})
        resumed.start()
        wait_until(lambda: version in resumed.ids, 10, "the resumed stream's first events")
        _handed_over(pg_server, 2)
        final = api.play_out(game, {0: ann}, random.Random(4))
    assert resumed.ended.wait(20)
    assert resumed.ids == list(range(version - 1, final["version"] + 1))


def test_a_spectator_that_does_not_read_stalls_neither_the_others_nor_the_players(
    sqlite_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The fan-out in a thread here, whose high-water mark the test lowers: a socket that
    stops reading is skipped at once, then caught up from the store when it reads again.)"""
    monkeypatch.setattr(fanout, "HIGH_WATER", 2048)
    with httpx.Client(base_url=sqlite_server.url, timeout=30) as client:
        api = Api(client)
        ada = api.player("ada")
        game = api.create(ada, "puerto-rico", 2, {1: "random"}, seat=0)["id"]
        slow = Reader(sqlite_server, game)
        slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        others = [Reader(sqlite_server, game) for _ in range(10)]
        for reader in [slow, *others]:
            reader.start()
        _handed_over(sqlite_server, len(others) + 1)
        version = api.settled(game, ada)["version"]
        wait_until(lambda: version in slow.ids, 10, "the slow one's first events")
        slow.paused.clear()  # it reads no more
        moves: list[float] = []
        while len(moves) < 30:
            state = api.settled(game)
            if state["status"] != "active":
                break
            legal = api.legal(game, ada)
            began = time.monotonic()
            move = random.Random(len(moves)).choice(legal["moves"])
            r = api.move(game, ada, legal["version"], move)
            assert r.status_code == 200, r.text
            moves.append(time.monotonic() - began)
            version = r.json()["version"]
            wait_until(lambda: all(version in o.ids for o in others), 5, "the others keep up")  # noqa: B023
        assert len(moves) > 20, "the game ended early"
        assert max(slow.ids) < version, "the slow one was not behind: nothing was tested"
        assert sorted(moves)[len(moves) // 2] < 0.5
        slow.paused.set()  # it reads again: it is caught up, in order, missing nothing
        wait_until(lambda: version in slow.ids, 20, "the slow one caught up")
        assert slow.ids[:version] == list(range(1, version + 1))
        assert all(o.ids[:version] == slow.ids[:version] for o in others)


def test_a_fanout_process_that_dies_is_replaced_and_its_clients_resume(
    pg_server: LiveServer,
) -> None:
    hub = pg_server.app.state.tabletop.live
    with httpx.Client(base_url=pg_server.url, timeout=30) as client:
        api = Api(client)
        ann, game, first, _ = _one_stream_handed_over(pg_server, api)
        dead = hub.handoff.pid
        assert dead is not None
        os.kill(dead, signal.SIGKILL)  # (the process this test's server started)
        assert first.broken.wait(10), "a stream of a dead fan-out must break, not end"
        # The client reconnects with the last id it saw; the next stream starts another
        # fan-out, served here until it is ready, then handed over.
        again = Reader(pg_server, game, {"Last-Event-ID": str(first.ids[-1])})
        again.start()
        _handed_over(pg_server, 2)
        assert hub.handoff.pid not in (None, dead)
        final = api.play_out(game, {0: ann}, random.Random(6))
    assert again.ended.wait(20)
    assert first.ids + again.ids == list(range(1, final["version"] + 1))

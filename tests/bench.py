"""`make bench`: speed figures measured side by side in one run (never timed unit tests).

1. The `eventsourcing` library's raw rate: one event per save, from 1, 8 and 64 threads,
   each on its own aggregate, on the same Postgres; with the library's own recorder (the
   ratio's base) and with the one the service saves through (service/pg_recorder.py).
2. API moves: `tabletop serve` on Postgres in a subprocess; 1, 8 and 64 games played at
   once by HTTP clients (two human seats per game, no bots, Secret Duel); latency p50/p99
   of POST .../moves and moves/s, and the ratio to the raw rate at the same concurrency.
   Each move is a GET of the legal moves and then a POST of one of them, as a client plays;
   moves/s counts the time spent creating and joining games too. The raw rates are measured
   once the server's projection runner has caught up, on an otherwise quiet machine.
3. Rules speed of every registered game: random games per second on one core (selfplay in
   this process) and replay (evolve only) events per second.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import psycopg

from domain.contract import random_bot
from domain.registry import GAMES, register
from domain.simulate import play
from service.pg_recorder import TOPIC as RECORDER_TOPIC
from service.settings import Settings
from service.store import EventStoreApp
from tests import secret_duel
from tests.support.events import bare_event
from tests.support.serve import serve

PG = os.environ.get("TABLETOP_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
LEVELS = (1, 8, 64)
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
WORKERS = os.environ.get("BENCH_WORKERS", "1")  # API processes


def _schema() -> str:
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    return name


def _drop(name: str) -> None:
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{name}" CASCADE')


def _url(schema: str) -> str:
    return f"{PG}?schema={schema}&pool_size=70&max_overflow=10"


def _run_threads(n: int, work: Callable[[int, threading.Event], list[float]]) -> list[float]:
    stop = threading.Event()
    results: list[list[float]] = [[] for _ in range(n)]

    def run(i: int) -> None:
        results[i] = work(i, stop)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join()
    return [x for r in results for x in r]


def raw_rate(schema: str, threads: int, recorder: str = "") -> float:
    """One event per save, each thread on its own aggregate, through the library: with its
    own Postgres recorder as it comes (`recorder` empty), or with the one the service uses."""
    env = Settings(database_url=_url(schema)).eventsourcing_env()
    env["APPLICATION_RECORDER_TOPIC"] = recorder
    store = EventStoreApp(env=env)
    data = {"seat": 0, "card": 7}

    def work(i: int, stop: threading.Event) -> list[float]:
        stream, version, stamps = uuid.uuid4(), 0, []
        while not stop.is_set():
            version += 1
            store.save(bare_event(stream, version, data))
            stamps.append(time.perf_counter())
        return stamps

    started = time.perf_counter()
    stamps = _run_threads(threads, work)
    elapsed = max(stamps, default=started + SECONDS) - started
    store.close()
    return len(stamps) / elapsed


def _serve(schema: str) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "DATABASE_URL": _url(schema), "TABLETOP_PLUGINS": "tests.secret_duel"}
    return serve(env)


class Http:
    """A keep-alive HTTP/1.1 client on a bare socket: a load generator should cost far less
    than the server it measures (http.client parses every response's headers with the email
    package; httpx costs more still). It speaks just what the bench needs: JSON bodies with
    a Content-Length."""

    def __init__(self, url: str) -> None:
        parsed = urllib.parse.urlparse(url)
        self.host = f"{parsed.hostname}:{parsed.port}"
        self.sock = socket.create_connection((parsed.hostname, parsed.port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.key = ""

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bool = False,
    ) -> tuple[int, Any]:
        payload = msgspec.json.encode(body) if body is not None else b""
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Authorization: Bearer {self.key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n{extra}\r\n"
        )
        self.sock.sendall(head.encode() + payload)
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head_bytes, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head_bytes.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = next(
            int(line.split(":", 1)[1])
            for line in lines
            if line.lower().startswith("content-length:")
        )
        while len(self.buffer) < length:
            self._receive()
        content, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, content.decode() if raw else msgspec.json.decode(content)

    def _receive(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk


def settled(url: str, timeout: float = 30) -> None:
    """Wait until the server's projection runner has caught up with the log, so that the
    raw save rates that follow are measured on a quiet machine, as the library's would be."""
    client = Http(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, text = client.call("GET", "/metrics", raw=True)
        behind = next(
            (
                float(line.split()[-1])
                for line in text.splitlines()
                if line.startswith("tabletop_projection_lag_events")
            ),
            0.0,
        )
        if behind == 0:
            return
        time.sleep(0.2)


def api_moves(url: str, games: int) -> tuple[list[float], float]:
    """`games` games at once, one client thread each (it plays both seats: GET legal-moves,
    then POST a move); returns the POST latencies and moves/s."""

    def work(i: int, stop: threading.Event) -> list[float]:
        latencies: list[float] = []
        seats = [Http(url), Http(url)]
        for seat in seats:
            seat.key = seat.call("POST", "/v1/players", {"name": f"bench{i}"})[1]["api_key"]
        while not stop.is_set():
            body = {
                "game": "secret-duel",
                "seats": 2,
                "seat": 0,
                "options": {"rounds": 10, "hand_size": 5},
            }
            game = seats[0].call("POST", "/v1/games", body)[1]["id"]
            joined = seats[1].call("POST", f"/v1/games/{game}/join", {"seat": 1})[1]
            version, awaiting = joined["version"], joined["awaiting"]
            while awaiting and not stop.is_set():
                client = seats[awaiting[0]]
                legal = client.call("GET", f"/v1/games/{game}/legal-moves")[1]["moves"]
                began = time.perf_counter()
                status, answer = client.call(
                    "POST",
                    f"/v1/games/{game}/moves",
                    {"expected_version": version, "move": legal[-1]},
                    {"Idempotency-Key": uuid.uuid4().hex},
                )
                latencies.append(time.perf_counter() - began)
                assert status == 200, answer
                version, awaiting = answer["version"], answer["awaiting"]
        return latencies

    started = time.perf_counter()
    latencies = _run_threads(games, work)
    return latencies, len(latencies) / (time.perf_counter() - started)


def rules_speed(name: str, games: int = 20) -> tuple[float, float]:
    game = GAMES[name]
    seats = min(4, game.max_players)
    played = []
    started = time.perf_counter()
    for i in range(games):
        played.append(
            play(game, game.options_type(), [random_bot] * seats, uuid.UUID(int=i).bytes * 2)
        )
    per_game = (time.perf_counter() - started) / games
    events = [
        msgspec.convert(msgspec.to_builtins(e), game.event_type) for p in played for e in p.events
    ]
    started = time.perf_counter()
    state: Any = None
    for p in played:
        state = game.initial(game.options_type(), seats)
        for event in p.events[: len(p.events)]:
            state = game.evolve(state, event)
    replay = len(events) / (time.perf_counter() - started)
    return 1 / per_game, replay


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    register(secret_duel.GAME)
    print(f"bench: {SECONDS:.0f} s per measurement, Postgres at {PG}\n")
    schema = _schema()
    server, url = _serve(schema)
    try:
        print(
            "| games at once | API p50 ms | API p99 ms | API moves/s | library one-event saves/s"
            " (same threads) | ratio | same saves through the service's recorder |"
        )
        print("|---|---|---|---|---|---|---|")
        for level in LEVELS:
            latencies, rate = api_moves(url, level)
            settled(url)
            raw = raw_rate(schema, level)
            ours = raw_rate(schema, level, recorder=RECORDER_TOPIC)
            print(
                f"| {level} | {_pct(latencies, 0.5):.2f} | {_pct(latencies, 0.99):.2f} | "
                f"{rate:.0f} | {raw:.0f} | {rate / raw:.2f} | {ours:.0f} |",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(10)
        _drop(schema)
    print("\n| game | random games/s (one core, selfplay) | replay events/s (evolve only) |")
    print("|---|---|---|")
    for name in sorted(GAMES):
        per_second, replay = rules_speed(name)
        print(f"| {name} | {per_second:.1f} | {replay:,.0f} |", flush=True)


if __name__ == "__main__":
    main()

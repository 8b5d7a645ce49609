"""`make bench`: speed figures measured side by side in one run (never timed unit tests).

1. Folding stored games: whole 4-player Puerto Rico games (played by bots through the game
   service) read back from the store and folded, on Postgres and on SQLite: the full fold
   of the log (no snapshot), the fold helped by snapshots (service/snapshots.py), and the
   path the service took before (the library's mapper, then msgspec's tagged-union convert);
   beside the `eventsourcing` library's own aggregate rebuild (`repository.get`) of an
   aggregate holding the same events in the same kind of store, and the ratios.
2. `/replay` from a cold cache (a server that never loaded the game), on Postgres, at the
   first, middle and last version of finished Puerto Rico games: before any snapshot of the
   game was kept (its first load ever), and after (a restarted server).
3. API moves: `tabletop serve` on Postgres in a subprocess, with `--workers 1` and then
   `--workers 2`; 1, 8 and 64 games played at once by HTTP clients, every seat a person (no
   bots): the tests' Secret Duel (2 seats) and 4-player Puerto Rico. Each move is a GET of
   the legal moves and then a POST of one of them, as a client plays; latency p50/p99 of the
   POST and moves/s (counting the time spent creating and joining games too). Beside them,
   measured in the same run once the server is stopped: the library's one-event saves from
   as many threads (its own Postgres recorder: the ratio's base; and the one the service
   saves through) and raw psycopg single-row autocommitted INSERTs from 4 clients.
4. Storage: bytes per stored event on Postgres, table and indexes, and the payload.
5. Memory: bytes per cached game (the deep size the game cache weighs it by), and the
   resident memory of a `tabletop serve` process holding 10,000 active games.
6. Live fan-out: the POST latency of moves with no spectators beside the same with 300 SSE
   spectators of the game, in alternating rounds on one server, with the load average and
   whether the target holds (p99 at most twice; tests/bench_spectators.py).
7. Rules speed of every registered game: random games per second on one core (selfplay in
   this process) and evolve-only events per second over an already decoded list; then
   random games per CPU-second per player count beside another commit's `domain/`
   (tests/bench_engine.py; `BENCH_ENGINE_BASE`, by default the commit before the engine work).

BENCH_SECTIONS picks sections by name (fold, replay, api, memory, fanout, rules; all when
unset). The servers run with the rate limits off: the bench is its own flood.

The machine is shared: figures that stand side by side in one table were measured within
a minute of each other, so their ratios mean more than any single figure.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import psutil
import psycopg
import psycopg.errors
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate

from domain.contract import random_bot
from domain.registry import GAMES, register
from domain.simulate import play
from service import snapshots
from service.fold import SERVICE_EVENTS, Fold, new_fold
from service.fold_cache import deep_size
from service.pg_recorder import TOPIC as RECORDER_TOPIC
from service.players import Players
from service.reader import read_events
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests import secret_duel
from tests.bench_engine import checked_out, engine_table
from tests.support.events import bare_event
from tests.support.games import GameService
from tests.support.serve import serve

PG = os.environ.get("TABLETOP_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
LEVELS = (1, 8, 64)
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
WORKERS = tuple(int(w) for w in os.environ.get("BENCH_WORKERS", "1,2").split(","))
FOLD_GAMES = int(os.environ.get("BENCH_FOLD_GAMES", "8"))
REPLAY_GAMES = int(os.environ.get("BENCH_REPLAY_GAMES", "12"))
ACTIVE_GAMES = int(os.environ.get("BENCH_ACTIVE_GAMES", "10000"))
SPECTATORS = int(os.environ.get("BENCH_SPECTATORS", "300"))
# A commit whose server is measured beside this one's in the API section (make bench sets it
# to the commit before the write-path work); empty: none.
API_BASE = os.environ.get("BENCH_API_BASE", "")
SECTIONS = set(filter(None, os.environ.get("BENCH_SECTIONS", "").split(",")))
UNLIMITED = {
    "TABLETOP_LIMIT_REGISTER": "off",
    "TABLETOP_LIMIT_KEY": "off",
    "TABLETOP_LIMIT_BAD_KEYS": "off",
    "TABLETOP_LIMIT_BOT_GAMES": "off",
    "TABLETOP_LIMIT_OPEN_GAMES": "0",
}


@contextlib.contextmanager
def _scratch() -> Iterator[str]:
    """A schema of its own for one measurement, dropped after it."""
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield name
    finally:
        for attempt in range(10):  # a stopped server's projection process may hold a lock
            try:
                with psycopg.connect(PG, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA "{name}" CASCADE')
                break
            except psycopg.errors.DeadlockDetected:
                time.sleep(1 + attempt)


def _url(schema: str, processes: int = 1) -> str:
    """Connections enough for 64 clients, shared by the processes (Postgres allows 100)."""
    return f"{PG}?schema={schema}&pool_size={70 // processes}&max_overflow={10 // processes}"


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


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


# ---- 1. folding stored games ---------------------------------------------------------------


class Played(Aggregate):
    """The library's baseline: an aggregate whose events hold what a stored game event holds."""

    last: Any = None

    class Happened(Aggregate.Event):
        type: str
        seat: Any
        at: str
        command: Any
        idempotency_key: Any
        data: Any
        prev_hash: str
        hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.last = self.data


class Baseline(Application[uuid.UUID]):
    name = "Baseline"


def _bot_games(store: EventStoreApp, count: int) -> list[uuid.UUID]:
    service = GameService(store)
    player, _ = Players(store).register("bench")
    bots = {s: "random" for s in range(4)}
    games = [service.create(player, "puerto-rico", 4, {}, bots).id for _ in range(count)]
    for game in games:  # the bot runner plays them out
        service.settled(game, timeout=600)
    service.close()
    return games


def _baseline_copy(store: EventStoreApp, app: Baseline, game: uuid.UUID) -> uuid.UUID:
    played = Played()
    for e in read_events(store, game)[1:]:
        played.trigger_event(
            Played.Happened,
            type=e.type,
            seat=e.seat,
            at=e.at,
            command=e.command,
            idempotency_key=e.idempotency_key,
            data=e.data,
            prev_hash=e.prev_hash,
            hash=e.hash,
        )
    app.save(played)
    return played.id


def _full_fold(store: EventStoreApp, game: uuid.UUID) -> Fold:
    events = read_events(store, game)
    return new_fold(game, events[0]).advance(events[1:], clone=False)


def _old_path(store: EventStoreApp, game: uuid.UUID) -> Fold:
    """How the service folded before issue 19: the library's mapper, then the union."""
    events = list(store.events.get(game))
    fold = new_fold(game, events[0])
    union = fold.game.event_type
    for e in events[1:]:
        decided = None
        if e.type not in SERVICE_EVENTS:
            decided = msgspec.convert({"type": e.type, **e.data}, union)
        fold.apply(e, decided)
    return fold


def _rate(games: list[Any], load: Callable[[Any], Any], events: int, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for g in games:
            load(g)
        times.append(time.perf_counter() - started)
    return events / _median(times)


def fold_rates(kind: str, settings: Settings, baseline_env: dict[str, str]) -> list[str]:
    store = open_store(settings)
    library = Baseline(env=baseline_env)
    try:
        games = _bot_games(store, FOLD_GAMES)
        events = sum(len(read_events(store, g)) for g in games)
        copies = [_baseline_copy(store, library, g) for g in games]
        copied = sum(library.repository.get(c).version for c in copies)
        # snapshots taken by a first load, then every later load is helped by them
        for g in games:
            assert snapshots.same(snapshots.load(store, g), _full_fold(store, g))  # type: ignore[arg-type]
        full = _rate(games, lambda g: _full_fold(store, g), events)
        helped = _rate(games, lambda g: snapshots.load(store, g), events)
        old = _rate(games, lambda g: _old_path(store, g), events, rounds=2)
        lib = _rate(copies, library.repository.get, copied)
        return [
            f"| {kind} | {events} | {full:,.0f} | {helped:,.0f} | {old:,.0f} | {lib:,.0f} "
            f"| {full / lib:.2f} | {helped / lib:.2f} | {full / old:.1f} |"
        ]
    finally:
        library.close()
        store.close()


def fold_section() -> None:
    print(
        f"\n## Folding stored games ({FOLD_GAMES} finished 4-player Puerto Rico games each)\n\n"
        "| store | events | full fold from the store, events/s | with snapshots, events/s "
        "| before (library mapper + union convert), events/s | library aggregate rebuild, "
        "events/s | full / library | snapshots / library | full / before |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with _scratch() as schema:
        settings = Settings(database_url=_url(schema))
        env = settings.eventsourcing_env()
        env.pop("APPLICATION_RECORDER_TOPIC")
        for line in fold_rates("Postgres", settings, env):
            print(line, flush=True)
        print(storage(schema, "after the fold games alone (bots)"), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(sqlite_path=f"{tmp}/bench.sqlite")
        env = Settings(sqlite_path=f"{tmp}/baseline.sqlite").eventsourcing_env()
        for line in fold_rates("SQLite", settings, env):
            print(line, flush=True)


# ---- 2. /replay from a cold cache ----------------------------------------------------------


def replay_section() -> None:
    with _scratch() as schema:
        store = open_store(Settings(database_url=_url(schema)))
        which = ("1", "middle", "last")
        sets = {w: _bot_games(store, REPLAY_GAMES) for w in which}
        (warm,) = _bot_games(store, 1)
        lasts = {g: GameService(store).get(g).version for w in which for g in sets[w]}
        store.close()
        print(
            f"\n## /replay on Postgres from a cold cache ({REPLAY_GAMES} finished Puerto Rico "
            f"games per version, {min(lasts.values())}-{max(lasts.values())} events; each "
            "request the first of its game in its server)\n\n"
            "| snapshots | version | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|"
        )
        for when in ("none yet (the game's first load ever)", "kept by the first loads"):
            with _serving(schema) as (_, url):
                # a warm process and an open connection, as a client keeps: cold is the game
                client = Http(url)
                client.call("GET", f"/v1/games/{warm}/replay?version=1")
                for w in which:
                    took = []
                    for game in sets[w]:
                        last = lasts[game]
                        version = {"1": 1, "middle": last // 2, "last": last}[w]
                        began = time.perf_counter()
                        status, _ = client.call("GET", f"/v1/games/{game}/replay?version={version}")
                        took.append(time.perf_counter() - began)
                        assert status == 200
                    print(
                        f"| {when} | {w} | {_pct(took, 0.5):.2f} | {_pct(took, 0.99):.2f} "
                        f"| {max(took) * 1000:.2f} |",
                        flush=True,
                    )


# ---- 3. API moves --------------------------------------------------------------------------


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


def psycopg_rate(schema: str, clients: int = 4) -> float:
    """Raw psycopg: one autocommitted single-row INSERT per round trip, `clients` threads
    each on its own connection, into a table shaped like the event log."""
    table = f'"{schema}".raw_rows'
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table} (id uuid, version bigint, topic text, state bytea, "
            "n bigserial, PRIMARY KEY (id, version))"
        )
    state = os.urandom(200)

    def work(i: int, stop: threading.Event) -> list[float]:
        stamps: list[float] = []
        stream, version = uuid.uuid4(), 0
        with psycopg.connect(PG, autocommit=True) as conn:
            while not stop.is_set():
                version += 1
                conn.execute(
                    f"INSERT INTO {table} (id, version, topic, state) VALUES (%s, %s, %s, %s)",
                    (stream, version, "t", state),
                    prepare=True,
                )
                stamps.append(time.perf_counter())
        return stamps

    started = time.perf_counter()
    stamps = _run_threads(clients, work)
    return len(stamps) / (max(stamps, default=started + SECONDS) - started)


@contextlib.contextmanager
def _serving(
    schema: str, workers: int = 1, tree: Path | None = None, sharing: int = 1
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`tabletop serve` on `schema` (limits off, the tests' game registered), stopped after;
    the code of `tree` (another commit's checkout) instead of this one's when given;
    `sharing` servers up at once share Postgres's connections."""
    env = {
        **os.environ,
        **UNLIMITED,
        "DATABASE_URL": _url(schema, workers * sharing),
        "TABLETOP_PLUGINS": "tests.secret_duel",
    }
    if tree is not None:  # its modules first, and never the working directory's
        env |= {"PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}
    server, url = serve(env, workers=workers, timeout=120)
    try:
        yield server, url
    finally:
        server.terminate()
        server.wait(20)


class Http:
    """A keep-alive HTTP/1.1 client on a bare socket: a load generator should cost far less
    than the server it measures (http.client parses every response's headers with the email
    package; httpx costs more still). It speaks just what the bench needs: JSON bodies with
    a Content-Length."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.key = ""
        self.connect()

    def connect(self) -> None:
        """A new connection (the server closes one idle for its keep-alive time)."""
        parsed = urllib.parse.urlparse(self.url)
        self.host = f"{parsed.hostname}:{parsed.port}"
        self.sock = socket.create_connection((parsed.hostname, parsed.port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

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
        auth = f"Authorization: Bearer {self.key}\r\n" if self.key else ""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"{auth}Content-Type: application/json\r\n"
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


def settled(url: str, timeout: float = 60) -> None:
    """Wait until the server's projection runner has caught up with the log, so that what
    follows is measured on a quiet machine."""
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


GAME_BODIES = {
    "secret-duel": (2, {"rounds": 10, "hand_size": 5}),
    "puerto-rico": (4, {}),
}


def api_moves(url: str, name: str, games: int) -> tuple[list[float], float]:
    """`games` games at once, one client thread each (it plays every seat, each with its own
    player and connection: GET legal-moves, then POST a move, with no GET when the move's
    answer carried the seat's next legal moves); returns the POST latencies and moves/s."""
    seats_n, options = GAME_BODIES[name]
    stale, refused, statuses = [0], [0], set()

    def work(i: int, stop: threading.Event) -> list[float]:
        latencies: list[float] = []
        rng = random.Random(i)
        seats = [Http(url) for _ in range(seats_n)]
        for seat in seats:
            seat.key = seat.call("POST", "/v1/players", {"name": f"bench{i}"})[1]["api_key"]
        while not stop.is_set():
            body = {"game": name, "seats": seats_n, "seat": 0, "options": options}
            game = seats[0].call("POST", "/v1/games", body)[1]["id"]
            for s in range(1, seats_n):
                joined = seats[s].call("POST", f"/v1/games/{game}/join", {"seat": s})[1]
            version, awaiting = joined["version"], joined["awaiting"]
            legal = None  # the seat's next legal moves, when a move's answer carried them
            while awaiting and not stop.is_set():
                client = seats[awaiting[0]]
                if legal is None:
                    legal = client.call("GET", f"/v1/games/{game}/legal-moves?limit=50")[1]
                if not legal.get("moves"):
                    # This worker's copy of the game is behind the write another worker just
                    # answered (each caches its own, and a cached game is not re-read for a
                    # GET): ask again on a new connection, which may reach the other worker.
                    stale[0] += 1
                    key = client.key
                    client.sock.close()
                    client = seats[awaiting[0]] = Http(url)
                    client.key = key
                    legal = None
                    continue
                move = rng.choice(legal["moves"])
                began = time.perf_counter()
                status, answer = client.call(
                    "POST",
                    f"/v1/games/{game}/moves",
                    {"expected_version": version, "move": move},
                    {"Idempotency-Key": uuid.uuid4().hex},
                )
                if status != 200:  # a move from a copy that was behind: refused, played again
                    refused[0] += 1
                    statuses.add(status)
                    legal = None
                    continue
                latencies.append(time.perf_counter() - began)
                mover = awaiting[0]
                version, awaiting = answer["version"], answer["awaiting"]
                # A server since the write path's rework answers a move with the mover's
                # next legal moves when it is awaited again: one request per move then.
                legal = answer.get("legal") if awaiting and awaiting[0] == mover else None
        return latencies

    started = time.perf_counter()
    latencies = _run_threads(games, work)
    rate = len(latencies) / (time.perf_counter() - started)
    if stale[0] or refused[0]:
        print(
            f"  ({name}, {games} games: {stale[0]} legal-move lists from a worker behind, "
            f"{refused[0]} moves refused ({sorted(statuses)}) and played again)",
            flush=True,
        )
    return latencies, rate


class CpuSplit:
    """CPU seconds spent while a load ran, by whom: this process (the load's clients), the
    server's processes, Postgres's, and everything else on the machine; beside what the
    machine's cores could give in that time. The profile that says where a latency goes on a
    machine whose cores are all busy."""

    def __init__(self, server: subprocess.Popen[bytes]) -> None:
        self.server = psutil.Process(server.pid)

    def _used(self) -> tuple[float, float, float, float, float]:
        def cpu(p: psutil.Process) -> float:
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                return float(t.user + t.system)
            return 0.0

        ours = cpu(psutil.Process())
        served = sum(cpu(p) for p in [self.server, *self.server.children(recursive=True)])
        postgres = sum(
            cpu(p) for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"
        )
        machine = psutil.cpu_times()
        busy = machine.user + machine.system + machine.nice + getattr(machine, "irq", 0.0)
        busy += getattr(machine, "softirq", 0.0)
        return ours, served, postgres, busy, time.monotonic()

    def __enter__(self) -> CpuSplit:
        self.before = self._used()
        return self

    def __exit__(self, *_: object) -> None:
        after = self._used()
        spent = (a - b for a, b in zip(after, self.before, strict=True))
        clients, server, postgres, busy, wall = spent
        self.server_s, self.postgres_s = server, postgres
        self.cells = (
            f"{clients:.1f} | {server:.1f} | {postgres:.1f} "
            f"| {max(0.0, busy - clients - server - postgres):.1f} "
            f"| {wall * (psutil.cpu_count() or 1):.1f}"
        )


def api_section() -> None:
    with _scratch() as schema:
        rows: list[tuple[int, str, int, list[float], float, str]] = []
        for workers in WORKERS:
            with _serving(schema, workers) as (server, url):
                for name in GAME_BODIES:
                    for level in LEVELS:
                        with CpuSplit(server) as cpu:
                            latencies, rate = api_moves(url, name, level)
                        rows.append((workers, name, level, latencies, rate, cpu.cells))
                        settled(url)
        # the bases, on the same Postgres, the server stopped
        library = {level: raw_rate(schema, level) for level in LEVELS}
        ours = {level: raw_rate(schema, level, recorder=RECORDER_TOPIC) for level in LEVELS}
        raw = psycopg_rate(schema)
        print(
            "\n## API moves on Postgres (every seat a person: GET legal moves, then POST)\n\n"
            "| workers | game | games at once | POST p50 ms | POST p99 ms | moves/s "
            "| library one-event saves/s (same threads) | moves / library "
            "| psycopg single-row commits/s (4 clients) | moves / psycopg |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for workers, name, level, latencies, rate, _ in rows:
            print(
                f"| {workers} | {name} | {level} | {_pct(latencies, 0.5):.2f} "
                f"| {_pct(latencies, 0.99):.2f} | {rate:.0f} | {library[level]:.0f} "
                f"| {rate / library[level]:.2f} | {raw:.0f} | {rate / raw:.2f} |"
            )
        print(
            "\nWhere the time went in those runs, in CPU seconds (the clients are this "
            "process):\n\n| workers | game | games at once | clients | server | Postgres "
            "| rest of the machine | the cores' seconds |\n|---|---|---|---|---|---|---|---|"
        )
        for workers, name, level, _, _, cells in rows:
            print(f"| {workers} | {name} | {level} | {cells} |")
        print(
            "\n| threads | library saves/s (its own recorder) | through the service's "
            "recorder |\n|---|---|---|"
        )
        for level in LEVELS:
            print(f"| {level} | {library[level]:.0f} | {ours[level]:.0f} |")
        print(storage(schema, "after the API runs (people's moves and bots' none)"), flush=True)
    if API_BASE:
        api_beside_base(API_BASE)


def api_beside_base(base: str) -> None:
    """The same API load on another commit's server and on this one's, one worker each,
    both up for the whole run and taking turns: each row is measured base, this, this,
    base (and the next row this, base, base, this), so that a drift of the machine's
    speed over the run weighs on both alike. Moves/s and the server's CPU per move are
    the means of each side's two turns."""
    rows: dict[tuple[str, int], dict[str, list[tuple[float, float, float]]]] = {}
    with (
        checked_out(base) as (commit, other),
        _scratch() as before_schema,
        _scratch() as now_schema,
        _serving(before_schema, 1, other, sharing=2) as before,
        _serving(now_schema, 1, sharing=2) as now,
    ):
        servers = {commit: before, "this tree": now}
        for row, (name, level) in enumerate((n, lv) for n in GAME_BODIES for lv in LEVELS):
            first, second = (commit, "this tree") if row % 2 == 0 else ("this tree", commit)
            for label in (first, second, second, first):
                server, url = servers[label]
                with CpuSplit(server) as cpu:
                    latencies, rate = api_moves(url, name, level)
                per_move = 1000 * cpu.server_s / max(1, len(latencies))
                turns = rows.setdefault((name, level), {}).setdefault(label, [])
                turns.append((rate, per_move, _pct(latencies, 0.99)))
                settled(url)
    print(
        f"\n## API moves beside {commit} (one worker each, the same load, taking turns: "
        "ABBA, means of two turns)\n\n| game | games at once | moves/s before | moves/s now "
        "| now / before | server CPU ms per move before | now | POST p99 ms before | now |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    for (name, level), by in rows.items():
        (r0, c0, p0), (r1, c1, p1) = (
            tuple(statistics.fmean(turn[i] for turn in by[label]) for i in range(3))
            for label in (commit, "this tree")
        )
        print(
            f"| {name} | {level} | {r0:.0f} | {r1:.0f} | {r1 / r0:.2f} | {c0:.2f} | {c1:.2f} "
            f"| {p0:.1f} | {p1:.1f} |",
            flush=True,
        )


# ---- 4. storage ----------------------------------------------------------------------------


def storage(schema: str, when: str) -> str:
    table = f'"{schema}".tabletop_events'
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f"VACUUM ANALYZE {table}")
        count, payload, heap, total = conn.execute(
            f"SELECT count(*), avg(octet_length(state)), pg_table_size('{table}'), "
            f"pg_total_relation_size('{table}') FROM {table}"
        ).fetchone()  # type: ignore[misc]
    return (
        f"\nStorage on Postgres {when}: {count} events, {total / count:.0f} bytes per event "
        f"with indexes ({total / 1e6:.2f} MB), {heap / count:.0f} in the table, "
        f"payload {float(payload):.0f} bytes on average."
    )


# ---- 5. memory -----------------------------------------------------------------------------


def memory_section() -> None:
    with _scratch() as schema:
        store = open_store(Settings(database_url=_url(schema)))
        service = GameService(store)
        players = Players(store)
        ada, _ = players.register("ada")
        bob, _ = players.register("bob")
        rows = []
        duel = service.create(ada, "secret-duel", 2, {"rounds": 10, "hand_size": 5}, {}, seat=0)
        active = service.join(bob, duel.id, None)
        rows.append(("secret-duel, 2 people, just started", active))
        for name, seats in (("secret-duel", 2), ("puerto-rico", 4), ("caylus", 2)):
            if name not in GAMES:
                continue
            bots = dict.fromkeys(range(seats), "random")
            over = service.settled(service.create(ada, name, seats, {}, bots).id)
            rows.append((f"{name}, {seats} bots, finished", over))
        service.close()
        store.close()
        print("\n## Memory\n\n| cached game | events | deep size, KiB |\n|---|---|---|")
        for what, fold in rows:
            print(f"| {what} | {fold.version} | {deep_size(fold, (fold.game,)) / 1024:.1f} |")
        with _serving(schema) as (server, url):
            process = psutil.Process(server.pid)
            before = process.memory_info().rss
            took = _active_games(url, ACTIVE_GAMES)
            settled(url)
            after = process.memory_info().rss
            print(
                f"\n`tabletop serve` (one worker) resident memory: {before / 2**20:.0f} MiB "
                f"started, {after / 2**20:.0f} MiB holding {ACTIVE_GAMES:,} active secret-duel "
                f"games ({(after - before) / ACTIVE_GAMES / 1024:.1f} KiB per game; made in "
                f"{took:.0f} s; the cache's bound: TABLETOP_CACHE_MB, 256 by default).",
                flush=True,
            )


def _active_games(url: str, count: int, clients: int = 8) -> float:
    """`count` started two-seat games, made by `clients` threads (create, then join)."""
    body = {"game": "secret-duel", "seats": 2, "seat": 0, "options": {"rounds": 10}}
    started = time.perf_counter()

    def work(i: int) -> None:
        ada, bob = Http(url), Http(url)
        for seat in (ada, bob):
            seat.key = seat.call("POST", "/v1/players", {"name": f"m{i}"})[1]["api_key"]
        for _ in range(i, count, clients):
            game = ada.call("POST", "/v1/games", body)[1]["id"]
            status, _ = bob.call("POST", f"/v1/games/{game}/join", {"seat": 1})
            assert status == 200

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


# ---- 6. live fan-out ------------------------------------------------------------------------


def fanout_section() -> None:
    from tests.bench_spectators import fanout_section as spectated

    spectated(SPECTATORS)


def _timed_moves(seats: list[Http], game: str, state: dict[str, Any], moves: int) -> list[float]:
    latencies = []
    rng = random.Random(7)
    while state["awaiting"] and len(latencies) < moves:
        client = seats[state["awaiting"][0]]
        legal = client.call("GET", f"/v1/games/{game}/legal-moves?limit=50")[1]
        began = time.perf_counter()
        status, answer = client.call(
            "POST",
            f"/v1/games/{game}/moves",
            {"expected_version": legal["version"], "move": rng.choice(legal["moves"])},
            {"Idempotency-Key": uuid.uuid4().hex},
        )
        assert status == 200, answer
        latencies.append(time.perf_counter() - began)
        state["version"], state["awaiting"] = answer["version"], answer["awaiting"]
    return latencies


# ---- 7. rules speed ------------------------------------------------------------------------


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
    events = sum(len(p.events) for p in played)
    started = time.perf_counter()
    state: Any = None
    for p in played:
        state = game.initial(game.options_type(), seats)
        for event in p.events:
            state = game.evolve(state, event)
    replay = events / (time.perf_counter() - started)
    return 1 / per_game, replay


def _chosen(name: str) -> bool:
    return not SECTIONS or name in SECTIONS


def main() -> None:
    register(secret_duel.GAME)
    print(f"bench: {SECONDS:.0f} s per load measurement, Postgres at {PG}")
    for name, section in (
        ("fold", fold_section),
        ("replay", replay_section),
        ("api", api_section),
        ("memory", memory_section),
        ("fanout", fanout_section),
    ):
        if _chosen(name):
            section()
    if not _chosen("rules"):
        return
    print(
        "\n## Rules\n\n| game | random games/s (one core, selfplay) "
        "| evolve only, decoded list, events/s |\n|---|---|---|"
    )
    for name in sorted(GAMES):
        per_second, replay = rules_speed(name)
        print(f"| {name} | {per_second:.1f} | {replay:,.0f} |", flush=True)
    print("\n" + engine_table(), flush=True)  # the engine beside an earlier commit's


if __name__ == "__main__":
    main()

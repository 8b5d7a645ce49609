"""Failover across hosts: the primary lost, its synchronous standby promoted, and the API
hosts finding the new primary by themselves, while clients play through HAProxy.

The cluster is built on this machine in network namespaces (tests/faults/netns.py), each a
host with an address of its own on one bridge:

- pg1, the primary; pg2, a hot standby streaming from it, synchronous
  (synchronous_standby_names = '*', synchronous_commit = on: a commit is acknowledged once
  the standby has it on disk, so every acknowledged move survives the primary's loss);
- api1-api3, each a `tabletop serve` whose DATABASE_URL names both servers, with
  target_session_attrs=read-write (and load_balance_hosts=random): every connection (the
  store's pool, its own connections, LISTEN, the role locks, the projection runner)
  settles on whichever accepts writes;
- lb, where HAProxy's connections to the hosts start (it listens on loopback for the test),
  checking each host's /health.

Clients (tests/faults/clients.py) play Secret Duel through HAProxy. While they play: kill -9
of one API host; kill -9 of every process of the primary (its postmaster and its children),
which is then fenced (were it started again it would be a standby), and the standby promoted
(`pg_ctl promote`); in a second run the primary's host is also taken off the network (a
host lost answers nothing, where killed processes leave it refusing). Nothing is done to
the API hosts: they reconnect by themselves. Then every acknowledged move is in the new
primary at the versions its answer gave, exactly once, no game is lost, every game's audit
verifies, and the read models are fed again; a new standby is made of the new primary, as
docs/operations.md's runbook says. The figures (time from the primary's kill to the first
move acknowledged after the promotion, moves acknowledged during the failover) are printed
and kept in test-artifacts/failover.txt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.clients import Table, Target, acknowledged, wait_for_acks
from tests.faults.conftest import SCALE, server_env
from tests.faults.netns import HAPROXY_BIN, Net, Node, Proxy, clean_leftovers, unusable
from tests.support.cluster import binaries
from tests.support.serve import free_port
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]

API_PORT = 8000
# seconds from the clients' start to the end of the checks (the cluster's start, slow on a
# loaded machine, has bounds of its own)
BOUND = 90 * SCALE
WARM = 30 * SCALE  # moves acknowledged before each fault, and after the failover
TABLES = 4
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"  # (ignored by git)


class Timed(Table):
    """A client playing games until told to stop (it finishes the game it is in), keeping
    the time each move was acknowledged."""

    def __init__(self, target: Target, seed: int, stop: threading.Event) -> None:
        super().__init__(target, games=0, seed=seed, rounds=3, patience=60.0)
        self.stop = stop
        self.stamps: list[float] = []  # monotonic, one per ack

    def run(self) -> None:
        try:
            for name in range(self.seats):
                created = self.send("POST", "/v1/players", body={"name": f"p{name}"})
                self.players.append(self.expect(created, 201))
            while not self.stop.is_set():
                self.play(self.new_game())
        except BaseException as error:
            self.error = error

    def answered(self, game: str, answer: dict[str, Any]) -> None:
        self.stamps.append(time.monotonic())


class Hosts:
    """The cluster, and its teardown: whatever was started is stopped, even on failure."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.net = Net()
        self.nodes: list[Node] = []
        self.servers: dict[str, Any] = {}  # name: Popen
        self.proxy: Proxy | None = None

    def serve(self, name: str, database_url: str) -> None:
        address = self.net.hosts[name]
        env = server_env(
            database_url,
            TABLETOP_LIMIT_REGISTER="off",
            TABLETOP_LIMIT_KEY="off",
            TABLETOP_LIMIT_OPEN_GAMES="0",
            TABLETOP_LOG_JSON="1",
        )
        command = [sys.executable, "-m", "api.cli", "serve", "--host", address,
                   "--port", str(API_PORT), "--forwarded-allow-ips", "*"]  # fmt: skip
        with (self.base / f"{name}.log").open("ab") as log:
            self.servers[name] = subprocess.Popen(
                [*self.net.on(name), *command], env=env, stdout=log, stderr=log
            )

    def teardown(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for process in self.servers.values():
            if process.poll() is None:
                process.kill()
        self.net.remove()  # kills what still runs on every host: servers, Postgres
        for process in self.servers.values():
            process.wait(10)
        for node in self.nodes:
            node.remove()


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[Hosts]:
    reason = unusable()
    if reason is not None:
        pytest.skip(reason)
    if binaries() is None:
        pytest.skip("the failover test needs PostgreSQL's server binaries (initdb, pg_ctl)")
    if not os.path.exists(HAPROXY_BIN):
        pytest.skip("the failover test needs haproxy (make haproxy installs Debian's)")
    clean_leftovers()
    made = Hosts(tmp_path)
    try:
        yield made
    finally:
        made.teardown()


def _stored(node: Node, database: str, games: list[str]) -> dict[str, set[int]]:
    """Each game's stored versions, read straight from the store's table on `node`."""
    ids = ", ".join(f"'{uuid.UUID(g)}'" for g in games)
    rows = node.sql(
        f"SELECT originator_id, originator_version FROM tabletop_events "
        f"WHERE originator_id IN ({ids})",
        database,
    )
    stored: dict[str, set[int]] = {g: set() for g in games}
    for game, version in rows:
        stored[str(game)].add(int(str(version)))
    return stored


@pytest.mark.parametrize("loss", ["processes", "host"])
def test_failover_to_the_synchronous_standby_loses_no_acknowledged_move(
    hosts: Hosts, loss: str
) -> None:
    """`loss`: the primary's processes killed (its host refuses connections), or its host
    gone too (taken off the network: connections to it go unanswered)."""
    started = time.monotonic()
    bin_dir = binaries()
    assert bin_dir is not None
    net = hosts.net
    net.add("pg1", 11)
    net.add("pg2", 12)
    primary = Node.primary(bin_dir, net, "pg1")
    hosts.nodes.append(primary)
    primary.start()
    standby = primary.standby_on("pg2")
    hosts.nodes.append(standby)
    _synchronous(primary)
    primary.sql('CREATE DATABASE "tabletop"')

    # Both servers: the one that takes writes is kept (target_session_attrs), tried in a
    # random order (load_balance_hosts), so that a server gone dark, which never refuses,
    # delays only the connections that try it first, by its connect_timeout, not all.
    url = (f"postgresql://postgres@{primary.address_of()},{standby.address_of()}/tabletop"
           "?target_session_attrs=read-write&load_balance_hosts=random")  # fmt: skip
    api = {f"api{i}": 20 + i for i in (1, 2, 3)}
    for name, last in api.items():
        net.add(name, last)
    net.add("lb", 2)
    servers = {name: f"{net.hosts[name]}:{API_PORT}" for name in api}
    proxy = hosts.proxy = Proxy(net, "lb", servers, free_port(), hosts.base)
    # The first host creates the tables; the others start once it has (hosts creating them
    # at once on an empty database collide: CREATE TABLE IF NOT EXISTS is not atomic).
    hosts.serve("api1", url)
    wait_until(lambda: _all_up(proxy, {"api1"}), 120, "api1 up behind HAProxy")
    hosts.serve("api2", url)
    hosts.serve("api3", url)
    wait_until(lambda: _all_up(proxy, set(api)), 120, "the three API hosts up behind HAProxy")
    ready = time.monotonic()

    stop = threading.Event()
    target = Target(proxy.url)
    tables = [Timed(target, seed=i, stop=stop) for i in range(TABLES)]
    for table in tables:
        table.start()
    try:
        wait_for_acks(tables, WARM, 60 * SCALE)

        # An API host lost: HAProxy passes it by, play goes on.
        hosts.servers["api1"].kill()
        net.kill("api1")
        wait_until(lambda: proxy.states().get("api1") == "DOWN", 10, "api1 seen down")
        wait_for_acks(tables, WARM, 60 * SCALE)

        # The primary lost: every process of it killed, then fenced; the standby promoted.
        before = acknowledged(tables)
        killed = time.monotonic()
        net.kill("pg1")
        if loss == "host":
            net.cut("pg1")
        primary.fence()
        standby.promote()
        promoted = time.monotonic()
        assert standby.sql("SELECT pg_is_in_recovery()") == [(False,)]

        # Every client has moves acknowledged again: the hosts found the new primary.
        def all_moving() -> bool:
            for t in tables:
                if t.error is not None:
                    raise t.error
            return all(any(s > promoted for s in t.stamps) for t in tables)

        wait_until(all_moving, 60, "every client playing again after the promotion")
        recovered = time.monotonic()
        wait_for_acks(tables, WARM, 60 * SCALE)
        wait_until(lambda: _all_up(proxy, {"api2", "api3"}), 30, "api2 and api3 up again")
        # both hosts left are connected to the new primary
        clients = standby.sql("SELECT DISTINCT client_addr::text FROM pg_stat_activity")
        addresses = {str(row[0]).split("/")[0] for row in clients}
        assert {net.hosts["api2"], net.hosts["api3"]} <= addresses, addresses
    finally:
        stop.set()
    for table in tables:
        table.finish(60 * SCALE)
    played = time.monotonic()

    stamps = sorted(s for t in tables for s in t.stamps)
    first_after = min(s for s in stamps if s > promoted)
    during = sum(killed <= s <= recovered for s in stamps)
    games = [g for t in tables for g in t.games]
    stored = _stored(standby, "tabletop", games)
    lost = [(a.game, v) for t in tables for a in t.acks for v in a.versions
            if v not in stored[a.game]]  # fmt: skip
    assert not lost, f"acknowledged moves missing from the new primary: {lost[:10]}"
    assert all(stored[g] for g in games), "a game lost"
    reader = Table(target, games=0)
    assert _exactly_once(reader, tables) == acknowledged(tables) > before
    for game in games:  # asked as a client asks: a 503 is sent again after its Retry-After
        audit = reader.expect(reader.send("GET", f"/v1/games/{game}/audit"), 200)
        assert audit["verified"], audit
    # the projection runner found the new primary too: the finished games are listed
    finished = ", ".join(f"'{g}'" for g in games)  # (a client ends with its game's end)
    wait_until(
        lambda: (
            not standby.sql(
                f"SELECT 1 FROM rm_games WHERE game_id::text IN ({finished}) "
                "AND status <> 'finished'",
                "tabletop",
            )
        ),
        30,
        "the read model current on the new primary",
    )

    # A new standby, of the new primary, made synchronous: a game played then is on both.
    net.add("pg3", 13)
    again = standby.standby_on("pg3")
    hosts.nodes.append(again)
    _synchronous(standby)
    late = Table(target, games=1, seed=TABLES)
    late.run()
    assert late.error is None, late.error
    final = {a.versions[-1] for a in late.acks}
    _wait_replayed(again, late.games[0], max(final))
    took = time.monotonic() - started
    figures = (
        f"failover ({loss} lost): primary killed -> promoted {promoted - killed:.2f} s, "
        f"-> first move acknowledged after it {first_after - killed:.2f} s, "
        f"-> every client moving {recovered - killed:.2f} s; "
        f"{during} moves acknowledged in that window, 0 lost; "
        f"{acknowledged(tables)} moves in {len(games)} games checked "
        f"({sum(t.seen.resent for t in tables)} requests sent again, "
        f"exports and audits answered {reader.seen.answers}); "
        f"cluster ready in {ready - started:.1f} s, played {played - ready:.1f} s, "
        f"test {took:.1f} s; load {Path('/proc/loadavg').read_text().strip()}"
    )
    print(f"\n{figures}")  # (pytest -s), and kept: make soak's figures
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "failover.txt").open("a") as kept:
        kept.write(f"scale {SCALE}: {figures}\n")
    assert time.monotonic() - ready < BOUND, f"played and checked in more than {BOUND} s"


def _exactly_once(reader: Table, tables: list[Timed]) -> int:
    """Every acknowledged move in its game's export exactly once, at the versions its answer
    gave, with the command sent, and no move nobody was answered for: clients.py's
    check_exactly_once, with the exports asked as a client asks them (`reader`: again after
    a 503) and without the audits (asked so by the test). Returns how many were checked."""
    checked = 0
    for table in tables:
        for game in table.games:
            answer = reader.send("GET", f"/v1/games/{game}/export")
            assert answer.status_code == 200, answer.text
            lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
            events = [line for line in lines if "version" in line]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            keyed: dict[str, list[dict[str, Any]]] = {}
            for e in events:
                if e["idempotency_key"] is not None:
                    keyed.setdefault(e["idempotency_key"], []).append(e)
            acks = [a for a in table.acks if a.game == game]
            assert set(keyed) == {a.key for a in acks}, "a stored move nobody was answered for"
            for ack in acks:
                stored = keyed[ack.key]
                assert tuple(e["version"] for e in stored) == ack.versions, ack
                assert (stored[0]["seat"], stored[0]["command"]) == (ack.seat, ack.move), ack
                checked += 1
    return checked


def _synchronous(primary: Node) -> None:
    """Make `primary`'s one standby synchronous, once it streams (set before, a commit would
    wait for a standby not there yet)."""
    streaming = [("streaming",)]
    wait_until(lambda: primary.sql("SELECT state FROM pg_stat_replication") == streaming,
               30, "the standby streaming")  # fmt: skip
    primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    primary.sql("ALTER SYSTEM SET synchronous_commit = 'on'")
    primary.sql("SELECT pg_reload_conf()")
    wait_until(lambda: primary.sql("SELECT sync_state FROM pg_stat_replication") == [("sync",)],
               30, "the standby synchronous")  # fmt: skip


def _wait_replayed(standby: Node, game: str, version: int) -> None:
    """Until the standby shows the game's `version` (synchronous_commit = on waits for the
    standby's disk, not for its replay: reads there may trail a little)."""
    wait_until(lambda: version in _stored(standby, "tabletop", [game])[game], 10, "replayed")


def _all_up(proxy: Proxy, names: set[str]) -> bool:
    try:
        states = proxy.states()
    except OSError:  # HAProxy not listening on its stats socket yet
        return False
    return all(states.get(name) == "UP" for name in names)


def test_every_connection_follows_a_multi_host_url(pg_url: str) -> None:
    """The URL's hosts and target_session_attrs reach every kind of connection Tabletop
    opens; with a first host that refuses, each of them settles on the second."""
    import asyncio

    from eventsourcing.persistence import InfrastructureFactory

    from projections.runner import runner_env
    from service.loop_writer import OwnConnection, own_connection
    from service.settings import Settings
    from service.sole import sole
    from service.store import open_store

    base, _, query = pg_url.partition("?")
    head, _, database = base.rpartition("/")
    scheme, _, authority = head.partition("//")
    userinfo, _, hostport = authority.rpartition("@")
    dead = f"127.0.0.1:{free_port()}"  # nothing listens: refused
    url = f"{scheme}//{userinfo}@{dead},{hostport}/{database}?target_session_attrs=read-write"
    settings = Settings(database_url=url + (f"&{query}" if query else ""))
    expected = {"target_session_attrs": "read-write"}
    store = open_store(settings)
    try:
        pooled = store.recorder.datastore.pool.kwargs  # type: ignore[attr-defined]
        assert pooled["host"].count(",") == 1 and expected.items() <= pooled.items()
        store.recorder.max_notification_id()  # the pool connects, past the dead host
        own = own_connection(store.recorder)  # type: ignore[arg-type]
        assert own["host"] == pooled["host"] and expected.items() <= own.items()

        async def own_query() -> list[Any]:
            conn = OwnConnection(own)
            try:
                return await conn.rows("SELECT 1")
            finally:
                await conn.close()

        assert asyncio.run(own_query()) == [{"?column?": 1}]  # (the pool's dict rows)
    finally:
        store.close()
    runner = InfrastructureFactory.construct(env=runner_env(settings))  # the runner's, views'
    kwargs = runner.datastore.pool.kwargs  # type: ignore[attr-defined]
    assert expected.items() <= kwargs.items() and kwargs["host"] == pooled["host"]
    with sole(settings, f"probe-{uuid.uuid4().hex}"):  # the role locks
        pass
    reads = Settings(database_url=url, read_database_url=pg_url).standby()
    assert reads is not None and reads.connect_args()["target_session_attrs"] == "any"

"""Hosts on this one machine for the failover test: each a network namespace of its own
(`ip netns`), all on one bridge, which lives in a namespace of its own too; nothing is added
to the machine's own network. Addresses are private (10.213.0.0/24), seen only inside these
namespaces: the test reaches the hosts through HAProxy (its `namespace` keyword makes its
sockets to the servers in a namespace of ours) and Postgres through its Unix sockets, which a
network namespace does not separate.

Names carry the test process's id (ttfo<pid>x<random>-<host>): a run that died without
tearing down leaves namespaces named for a process that is gone, and the next run removes
them (and kills what still runs in them); a run going on beside is left alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import psycopg

from tests.support.cluster import Cluster, _owned_dir

PREFIX = "ttfo"
SUBNET = "10.213.0"
PG_PORT = 5432
HAPROXY_BIN = shutil.which("haproxy") or "/usr/sbin/haproxy"  # (sbin: off a user's PATH)


def _ip(*args: str, check: bool = True) -> str:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def unusable() -> str | None:
    """Why namespaces cannot be made here, or None when they can."""
    if shutil.which("ip") is None:
        return "the failover test needs iproute2's `ip` (apt-get install iproute2)"
    if os.geteuid() != 0:
        return "the failover test makes network namespaces (`ip netns add`), which needs root"
    probe = f"{PREFIX}{os.getpid()}xprobe"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if done.returncode != 0:
        return f"`ip netns add` is refused here: {done.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return None


def _pids(ns: str) -> list[int]:
    return [int(p) for p in _ip("netns", "pids", ns, check=False).split()]


def _kill_all(ns: str, seconds: float = 10) -> None:
    """SIGKILL every process in `ns` until none is left (Postgres' children may fork on)."""
    deadline = time.monotonic() + seconds
    while pids := _pids(ns):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes outlive SIGKILL in {ns}: {pids}")
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_leftovers() -> list[str]:
    """Remove the namespaces of runs whose process is gone; their names."""
    removed = []
    for line in _ip("netns", "list", check=False).splitlines():
        name = line.split()[0] if line.split() else ""
        found = re.match(rf"{PREFIX}(\d+)x", name)
        if found and not _alive(int(found.group(1))):
            _kill_all(name)
            _ip("netns", "del", name, check=False)
            removed.append(name)
    return removed


class Net:
    """A bridge and the hosts on it: `add` a host, run a command on it (`on`), kill all
    that runs on it (`kill`), and `remove` everything."""

    def __init__(self) -> None:
        self.tag = f"{PREFIX}{os.getpid()}x{secrets.token_hex(3)}"
        self.hub = f"{self.tag}-hub"
        self.hosts: dict[str, str] = {}  # name: address
        _ip("netns", "add", self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.hub, "link", "set", "br0", "up")

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def add(self, host: str, last: int) -> str:
        """A host named `host` at 10.213.0.`last`; its address."""
        ns, address, port = self.ns(host), f"{SUBNET}.{last}", f"p{last}"
        _ip("netns", "add", ns)
        self.hosts[host] = address
        # the veth pair is made in the hub, one end moved to the host: no interface is ever
        # made in the machine's own namespace
        _ip("-n", self.hub, "link", "add", port, "type", "veth", "peer", "name", "eth0",
            "netns", ns)  # fmt: skip
        _ip("-n", self.hub, "link", "set", port, "master", "br0", "up")
        _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        return address

    def on(self, host: str) -> list[str]:
        """The prefix of a command run on `host` (ip netns exec replaces itself with it: the
        process started is the command's)."""
        return ["ip", "netns", "exec", self.ns(host)]

    def kill(self, host: str) -> None:
        """kill -9 everything running on `host`, as its loss would end it."""
        _kill_all(self.ns(host))

    def cut(self, host: str) -> None:
        """Take `host` off the network: what is sent to it is lost, unanswered (no refusal),
        as with a host powered off."""
        _ip("-n", self.ns(host), "link", "set", "eth0", "down")

    def remove(self) -> None:
        for host in self.hosts:
            with contextlib.suppress(RuntimeError):
                _kill_all(self.ns(host))
            _ip("netns", "del", self.ns(host), check=False)
        _ip("netns", "del", self.hub, check=False)


class Node(Cluster):
    """A Postgres server on a host of `net`, listening on its address (port 5432) and on a
    Unix socket in its directory (how the test itself reaches it). Its binaries run on the
    host, as the `postgres` user when we are root."""

    def __init__(self, bin_dir: Path, base: Path, net: Net, host: str) -> None:
        super().__init__(bin_dir, base, PG_PORT)
        self.net = net
        self.host = host
        self.address = net.hosts[host]

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        command = [*self.net.on(self.host), *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")

    def url(self, database: str = "postgres") -> str:
        """Through the Unix socket: for the test, not the hosts."""
        return f"postgresql://postgres@/{database}?host={self.base}&port={PG_PORT}"

    def address_of(self) -> str:
        return f"{self.address}:{PG_PORT}"

    def _allow_subnet(self) -> None:
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {SUBNET}.0/24 trust\n")
            hba.write(f"host replication all {SUBNET}.0/24 trust\n")

    @classmethod
    def primary(cls, bin_dir: Path, net: Net, host: str) -> Node:
        node = cls(bin_dir, _owned_dir("tabletop-failover-"), net, host)
        node._run("initdb", "-D", str(node.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-sync")  # fmt: skip
        node._configure(listen_addresses=f"'{node.address}'")
        node._allow_subnet()
        return node

    def standby_on(self, host: str) -> Node:
        """A hot standby of this server on `host`, streaming from it over the bridge (made
        on that host with pg_basebackup -R), started. Its `cluster_name` names it to the
        primary's synchronous_standby_names; it lists no standby of its own, so that once
        promoted it commits alone until a new standby is made."""
        standby = Node(self.bin, _owned_dir("tabletop-failover-"), self.net, host)
        standby._run("pg_basebackup", "-h", self.address, "-p", str(PG_PORT), "-U", "postgres",
                     "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast")  # fmt: skip
        (standby.data / "postmaster.pid").unlink(missing_ok=True)
        standby._configure(listen_addresses=f"'{standby.address}'", cluster_name=f"'{host}'",
                           synchronous_standby_names="''")  # fmt: skip
        standby.start()
        return standby

    def promote(self) -> None:
        self._run("pg_ctl", "promote", "-w", "-t", "60", "-D", str(self.data))

    def fence(self) -> None:
        """Make sure a server killed here comes back, if ever started again by mistake, as a
        standby (read-only: the hosts' read-write connections pass it by), never as a second
        primary."""
        (self.data / "standby.signal").touch()

    def sql(self, query: str, database: str = "postgres") -> list[tuple[object, ...]]:
        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(query.encode())  # (a test's own text, no parameters)
            return cursor.fetchall() if cursor.description else []


class Proxy:
    """HAProxy in front of API hosts of `net`: it listens on loopback (for the test's
    clients) and reaches the hosts from a host of its own (`namespace`), checking each one's
    /health; a host whose check fails gets no requests until it passes again. Its stats
    socket (a Unix socket) tells which hosts it sees up."""

    def __init__(self, net: Net, host: str, servers: dict[str, str], port: int, base: Path):
        self.base = base
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.stats = base / "haproxy.sock"
        ns = net.ns(host)
        lines = [
            f"    server {name} {address} check namespace {ns}" for name, address in servers.items()
        ]
        config = base / "haproxy.cfg"
        config.write_text(HAPROXY.format(port=port, stats=self.stats) + "\n".join(lines) + "\n")
        self.log = base / "haproxy.log"
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [HAPROXY_BIN, "-db", "-f", str(config)], stdout=log, stderr=log
            )

    def states(self) -> dict[str, str]:
        """Each server's status as HAProxy sees it (UP, DOWN, ...)."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(5)
            sock.connect(str(self.stats))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        rows = data.decode().splitlines()
        header = rows[0].lstrip("# ").split(",")
        found = {}
        for row in rows[1:]:
            fields = dict(zip(header, row.split(","), strict=False))
            if fields.get("pxname") == "hosts" and fields.get("svname") not in ("BACKEND", None):
                found[fields["svname"]] = fields["status"]
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


# Health checks every 300 ms, a host out after two failures and back after one success: a
# lost host is passed by within a second. A request the host refused or dropped unanswered
# (killed) is sent again to another (`retry-on`, `redispatch`): a move carries its
# Idempotency-Key, so sending it twice applies it once.
HAPROXY = """global
    maxconn 1000
    stats socket {stats} mode 600 level admin
defaults
    mode http
    option forwardfor
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout check 2s
    retries 3
    option redispatch
    retry-on conn-failure empty-response
frontend api
    bind 127.0.0.1:{port}
    default_backend hosts
backend hosts
    balance roundrobin
    option httpchk GET /health
    http-check expect status 200
    default-server inter 300ms fall 2 rise 1
"""

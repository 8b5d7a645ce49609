"""A private Postgres server for the fault tests: `initdb` once per test session in a
directory of its own, on a free loopback port, started and stopped with `pg_ctl` (so a test
may stop it as a crash would), a database per test; and a hot standby of it, made with
`pg_basebackup`, for the replication test.

initdb refuses to run as root: as root the binaries run as the `postgres` user, in a
directory that user owns. Where the binaries are missing the fault tests are skipped, saying
so (`cluster_or_skip`); the suite's other database tests use the shared server instead
(tests/conftest.py) and never skip.

`fsync` is off: the faults these tests make (a process killed, the server stopped
immediately) leave the operating system running, whose page cache keeps every write a
commit made, so nothing they check depends on it; only a machine crash would.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.support.serve import free_port

SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "full_page_writes": "off",
    "max_connections": "200",
    "shared_buffers": "32MB",
    "wal_level": "replica",
    "max_wal_senders": "4",
    "hot_standby": "on",
    "log_min_messages": "warning",
}


def binaries() -> Path | None:
    """The directory holding initdb, pg_ctl and pg_basebackup together (PATH first, then the
    newest of /usr/lib/postgresql/*/bin), if any."""
    on_path = shutil.which("initdb")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    installed = [Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")]
    major = {d: int(d.parent.name) if d.parent.name.isdigit() else 0 for d in installed}
    candidates += sorted(installed, key=major.__getitem__, reverse=True)
    for directory in candidates:
        if all((directory / b).exists() for b in ("initdb", "pg_ctl", "pg_basebackup")):
            return directory
    return None


class Cluster:
    """One Postgres server: a data directory, a port, and pg_ctl to start and stop it."""

    def __init__(self, bin_dir: Path, base: Path, port: int) -> None:
        self.bin = bin_dir
        self.base = base
        self.data = base / "data"
        self.port = port

    # ---- running the binaries as a user initdb accepts ------------------------------------

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")

    @classmethod
    def initdb(cls, bin_dir: Path) -> Cluster:
        cluster = cls(bin_dir, _owned_dir("tabletop-cluster-"), free_port())
        cluster._run("initdb", "-D", str(cluster.data), "-A", "trust", "-U", "postgres",
                     "-E", "UTF8", "--no-sync")  # fmt: skip
        cluster._configure()
        return cluster

    def _configure(self, **more: str) -> None:
        lines = [f"{k} = {v}" for k, v in {**SETTINGS, "port": str(self.port), **more}.items()]
        lines.append(f"unix_socket_directories = '{self.base}'")
        with (self.data / "postgresql.auto.conf").open("a") as conf:
            conf.write("\n".join(lines) + "\n")

    # ---- the server's life -----------------------------------------------------------------

    def start(self) -> None:
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data),
                  "-l", str(self.base / "log"))  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`immediate` is a crash as Postgres sees it: no checkpoint, clients cut off."""
        self._run("pg_ctl", "stop", "-w", "-m", mode, "-D", str(self.data))

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new empty database; its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def standby(self) -> Cluster:
        """A hot standby of this server, streaming from it (pg_basebackup -R writes the
        connection and standby.signal), started and accepting reads."""
        standby = Cluster(self.bin, _owned_dir("tabletop-standby-"), free_port())
        self._run("pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                  "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast")  # fmt: skip
        (standby.data / "postmaster.pid").unlink(missing_ok=True)
        standby._configure()
        standby.start()
        return standby

    def remove(self) -> None:
        if self.running():
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)


def _owned_dir(prefix: str) -> Path:
    """A new directory the binaries' user owns (postgres, when we are root)."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(base, user.pw_uid, user.pw_gid)
    return base


def cluster_or_skip() -> Iterator[Cluster]:
    """The body of a session fixture: a started cluster, removed at the end; the test is
    skipped with the reason where no cluster can be made here."""
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip(
            "fault tests need PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup), "
            "found neither on PATH nor in /usr/lib/postgresql/*/bin: install postgresql"
        )
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("fault tests run as root need a `postgres` user for initdb")
    cluster = Cluster.initdb(bin_dir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()

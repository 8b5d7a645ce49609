"""A private Postgres cluster that a test may stop, start and freeze: initdb and pg_ctl on a
free loopback port, in a directory of its own (as the `postgres` user when run as root,
since initdb refuses root). Skipped, saying why, where the binaries are missing."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return shutil.which(name) or next(iter(found), None)


class Cluster:
    def __init__(self, base: Path, port: int, as_user: list[str]) -> None:
        self.base = base
        self.data = base / "data"
        self.port = port
        self._as = as_user
        self.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        pg_ctl = _bin("pg_ctl")
        assert pg_ctl is not None
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.base / "log"), "-o", options,
                  "-w", "start")  # fmt: skip

    def processes(self) -> list[int]:
        """The cluster's postmaster and its children (this cluster's only)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(
            ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
        ).stdout.split()
        return [postmaster, *map(int, children)]

    def signal(self, pids: list[int], signum: int) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def stop(self, mode: str = "immediate") -> None:
        pg_ctl = _bin("pg_ctl")
        assert pg_ctl is not None
        self._run(pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    initdb = _bin("initdb")
    if initdb is None or _bin("pg_ctl") is None:
        pytest.skip("initdb/pg_ctl not found: the outage tests need a Postgres of their own")
    as_user: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="tabletop-outage-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running as root without runuser: initdb refuses root")
        as_user = [runuser, "-u", "postgres", "--"]
        postgres = pwd.getpwnam("postgres")
        os.chown(base, postgres.pw_uid, postgres.pw_gid)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cluster = Cluster(base, port, as_user)
    subprocess.run(
        [*as_user, initdb, "-D", str(cluster.data), "-U", "postgres", "-A", "trust"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    cluster.start()
    try:
        yield cluster
    finally:
        subprocess.run([*as_user, _bin("pg_ctl") or "pg_ctl", "-D", str(cluster.data), "-m",
                        "immediate", "stop"], capture_output=True, timeout=60)  # fmt: skip
        shutil.rmtree(base, ignore_errors=True)

"""Fixtures of the fault tests: a private Postgres cluster for the session (initdb once,
tests/support/cluster.py), a database of its own per test, and `tabletop serve` run against
it as a subprocess that a test may kill and start again.

TABLETOP_FAULT_SCALE (default 1) scales the load, the number of faults and the outages:
`make test` runs them at 1, in seconds; `make soak` runs them at 10.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cluster import Cluster, cluster_or_skip
from tests.support.serve import serve

SCALE = max(1, int(os.environ.get("TABLETOP_FAULT_SCALE", "1")))


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    yield from cluster_or_skip()


@pytest.fixture
def database(cluster: Cluster) -> str:
    """The URL of a new empty database on the private cluster (which runs)."""
    if not cluster.running():  # a test that stopped it failed before starting it again
        cluster.start()
    return cluster.database()


class Server:
    """`tabletop serve` on `database_url` in a subprocess: started, killed, started again
    (each time on a new port: `url` follows). Its stderr goes to `log`."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 1) -> None:
        self.env = env
        self.log = log
        self.workers = workers
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        # a loaded machine (the suite runs beside) may take long to import and start it
        self.process, self.url = serve(self.env, 120, self.workers, self.log)
        return self.url

    def kill(self) -> None:
        """SIGKILL, as a crash: no shutdown, no draining, open transactions cut off."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def server_env(database_url: str, **more: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url, "TABLETOP_PLUGINS": "tests.secret_duel"}
    inherited_roles = ("TABLETOP_PROJECTIONS", "TABLETOP_TIMEKEEPER", "TABLETOP_BOTS",
                       "TABLETOP_CREATE_TABLES")  # fmt: skip
    for inherited in inherited_roles:  # every role in the server, as `serve` runs by default
        env.pop(inherited, None)
    return {**env, **more}


@pytest.fixture
def server(database: str, tmp_path: Path) -> Iterator[Server]:
    """A started server on the test's database (one worker)."""
    served = Server(server_env(database), tmp_path / "serve.log")
    served.start()
    try:
        yield served
    finally:
        served.stop()

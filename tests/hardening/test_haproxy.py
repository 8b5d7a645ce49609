"""The HAProxy configuration of docs/operations.md ("In front of several hosts: HAProxy"),
run as written (its `bind` and `server` addresses replaced by loopback ones) with Debian's
haproxy in front of two `tabletop serve` on one Postgres (a cluster of the test's own,
tests/support/cluster.py, as the fault tests run theirs): both hosts are checked on
/health, each sees the client's own address (from X-Forwarded-For), and a client holding
3,000 idle sockets from 127.0.0.2 leaves 127.0.0.3 its /health and its games, p99 under 1 s.
Skipped, saying why, without haproxy (`make haproxy` installs it), root (the configuration
drops to the haproxy user) or Postgres's server binaries."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.cluster import Cluster, cluster_or_skip
from tests.support.flood import OTHER, served_beside_a_flood
from tests.support.serve import free_port, serve
from tests.support.waits import wait_until

ROOT = Path(__file__).resolve().parents[2]
HEADING = "## In front of several hosts: HAProxy"
# what the test replaces in the documented text, each found exactly once
BIND, HOSTS = "bind :80\n", ("10.0.0.11:8000", "10.0.0.12:8000")


def documented_configuration() -> str:
    """The fenced haproxy block under HEADING in docs/operations.md, as written."""
    text = (ROOT / "docs" / "operations.md").read_text()
    assert f"\n{HEADING}\n" in text, f"docs/operations.md has no {HEADING!r}"
    section = text.split(f"\n{HEADING}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```haproxy\n(.*?)^```$", section, re.M | re.S)
    assert found is not None, f"no ```haproxy block under {HEADING!r}"
    return found.group(1)


def on_loopback(configuration: str, bind: str, hosts: list[str]) -> str:
    """The documented configuration with only its listening and host addresses replaced."""
    for old, new in [(BIND, f"bind {bind}\n"), *zip(HOSTS, hosts, strict=True)]:
        assert configuration.count(old) == 1, f"the documented configuration changed: {old!r}"
        configuration = configuration.replace(old, new)
    return configuration


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    yield from cluster_or_skip()


def _haproxy() -> str:
    found = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.access(found, os.X_OK):
        pytest.skip("haproxy is not installed (`make haproxy` installs Debian's)")
    if os.geteuid() != 0:
        pytest.skip("the documented configuration drops to the haproxy user: needs root")
    try:
        pwd.getpwnam("haproxy")
    except KeyError:
        pytest.skip("no haproxy user (Debian's package makes it)")
    return found


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def _answered(url: str, routes: str = "/health") -> int:
    """Requests answered on the routes matching `routes` (a regular expression) by the host
    at `url` (its /metrics, asked directly)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    counts = re.findall(rf'^tabletop_http_requests_total{{[^}}]*route="{routes}"[^}}]*}} (\S+)$',
                        text, re.M)  # fmt: skip
    return int(sum(float(count) for count in counts))


def _registered(url: str, source: str) -> int:
    with httpx.Client(
        base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=30
    ) as c:
        return c.post("/v1/players", json={"name": "p"}).status_code


def test_the_documented_haproxy_keeps_a_flood_to_its_share(
    cluster: Cluster, tmp_path: Path
) -> None:
    haproxy = _haproxy()
    # registrations are limited per client address: 4 per host here, to show whose it is
    env = {**os.environ, "DATABASE_URL": cluster.database(), "TABLETOP_LIMIT_REGISTER": "4/600"}
    with contextlib.ExitStack() as stack:
        hosts = []
        for i in range(2):  # one after the other: the first creates the tables
            process, url = serve(env, timeout=120, log=tmp_path / f"api{i}.log")
            stack.callback(_stop, process)
            hosts.append(url)
        proxy = f"127.0.0.1:{free_port()}"
        configuration = tmp_path / "haproxy.cfg"
        configuration.write_text(on_loopback(
            documented_configuration(), proxy, [h.removeprefix("http://") for h in hosts]
        ))  # fmt: skip
        checked = subprocess.run([haproxy, "-c", "-f", str(configuration)],
                                 capture_output=True, text=True, timeout=30)  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        log = tmp_path / "haproxy.log"
        with open(log, "wb") as out:
            running = subprocess.Popen([haproxy, "-db", "-f", str(configuration)],
                                       stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
        stack.callback(_stop, running)
        url = f"http://{proxy}"

        def up() -> bool:
            assert running.poll() is None, log.read_text()
            try:
                return httpx.get(f"{url}/health", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(up, 20, "haproxy answering /health")
        wait_until(lambda: all(_answered(h) >= 2 for h in hosts), 20, "both hosts checked")

        # X-Forwarded-For: once 127.0.0.4 has spent its 4 registrations on each host,
        # 127.0.0.3 still registers (the proxy's own address would be spent too)
        statuses: list[int] = []
        while statuses[-4:] != [429] * 4 and len(statuses) < 30:
            statuses.append(_registered(url, "127.0.0.4"))
        assert statuses.count(201) == 8 and statuses[-4:] == [429] * 4, statuses
        assert _registered(url, OTHER) == 201

        served_beside_a_flood(url, "through haproxy beside the flood")
        played = [_answered(h, '/v1/games[^"]*') for h in hosts]
        assert all(played), f"game requests answered by each host: {played}"

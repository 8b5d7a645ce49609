"""A connection flood, as the audit's client made it, and a client playing beside it.

The flood: from one source address, hold `count` idle sockets open to a server (never a
byte sent) and open again, every `every` seconds, those the server closed. It runs in a
process of its own, so that its thousands of sockets cost the measuring client nothing (the
GIL, the descriptors):

    python -m tests.support.flood SOURCE HOST PORT COUNT SECONDS [EVERY]

It prints one JSON line per round ({"t", "open", "opened", "closed"}: the seconds since it
began, the sockets it holds now, and in total those it opened and those the server closed or
refused), the first once it has asked for all COUNT, and exits after SECONDS (or when
killed).

`play_beside_a_flood` runs it from 127.0.0.2 against a server while a client on 127.0.0.3
asks /health and plays games, and says how long each of that client's requests took.
"""

from __future__ import annotations

import errno
import json
import random
import resource
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.api import Api
from tests.support.waits import wait_until

FLOOD, OTHER = "127.0.0.2", "127.0.0.3"  # all of 127.0.0.0/8 is this host's
ROOT = Path(__file__).resolve().parents[2]

# bind() to an address with port 0 would take an ephemeral port for every destination:
# this lets connect() pick it per destination, as a client with many sockets should
_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)


def enough_files(count: int) -> None:
    """Raise the soft limit on open files to `count` and some, within the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def _open(source: str, host: str, port: int) -> socket.socket | None:
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_IP, _BIND_ADDRESS_NO_PORT, 1)
    sock.bind((source, 0))
    sock.setblocking(False)
    code = sock.connect_ex((host, port))
    if code not in (0, errno.EINPROGRESS):
        sock.close()
        return None
    return sock


def flood(source: str, host: str, port: int, count: int, seconds: float, every: float) -> None:
    enough_files(count)
    held: dict[int, socket.socket] = {}
    poller = select.poll()
    opened = closed = 0
    start = time.monotonic()
    end = start + seconds
    while True:
        # POLLIN on a socket never written to: the server closed it (or reset it)
        for fd, _ in poller.poll(0):
            poller.unregister(fd)
            held.pop(fd).close()
            closed += 1
        while len(held) < count:
            sock = _open(source, host, port)
            if sock is None:
                break
            held[sock.fileno()] = sock
            poller.register(sock, select.POLLIN)
            opened += 1
        report = {"t": round(time.monotonic() - start, 2), "open": len(held), "opened": opened,
                  "closed": closed}  # fmt: skip
        print(json.dumps(report), flush=True)
        if time.monotonic() >= end:
            return
        time.sleep(every)  # the flood's pace, not a wait on a condition


class Flood:
    """The flood in a process of its own, its report lines read as they come."""

    def __init__(self, url: str, count: int, seconds: float) -> None:
        host, port = url.removeprefix("http://").split(":")
        command = [sys.executable, "-m", "tests.support.flood", FLOOD, host, port, str(count),
                   str(seconds)]  # fmt: skip
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        self.rounds: list[dict[str, float]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.rounds.append(json.loads(line))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        self.reader.join(10)

    def kept_to(self, kept: int, header_timeout: float = 5.0) -> bool:
        """Whether the server closed all but `kept` of the flood's sockets before its header
        timeout could close any: it refused them, at once."""
        early = [r["closed"] for r in self.rounds if r["t"] < header_timeout - 0.5]
        return bool(early) and max(early) >= self.rounds[0]["opened"] - kept


class TimedTransport(httpx.HTTPTransport):
    """Records how long each request took, from connecting to the last byte of the answer."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seconds: list[float] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = super().handle_request(request)
        response.read()
        self.seconds.append(time.perf_counter() - started)
        return response


def p99(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def play_beside_a_flood(url: str, measured_s: float = 8.0) -> tuple[list[float], Flood]:
    """While 127.0.0.2 holds 3,000 sockets to `url`, 127.0.0.3 asks /health there and plays
    games (each request on a connection of its own, so that each must be accepted anew) for
    `measured_s` seconds: how long each request took, and the flood."""
    flood = Flood(url, 3000, measured_s + 30)
    try:
        wait_until(lambda: flood.rounds, 30, "the flood's 3,000 sockets asked for")
        timed = TimedTransport(local_address=OTHER)
        headers = {"Connection": "close"}
        with httpx.Client(base_url=url, transport=timed, headers=headers, timeout=30) as c:
            api = Api(c)

            def health(*_: object) -> None:
                assert c.get("/health").status_code == 200

            health()
            ada, bob = api.player("ada"), api.player("bob")
            rng = random.Random(27)
            end = time.monotonic() + measured_s
            games = 0
            while time.monotonic() < end or games == 0:
                health()
                game = api.create(ada, "secret-duel", 2, seat=0, options={"rounds": 3})["id"]
                assert c.post(f"/v1/games/{game}/join", headers=Api.auth(bob)).is_success
                final = api.play_out(game, {0: ada, 1: bob}, rng, on_step=health)
                assert final["status"] == "finished", final
                games += 1
        assert flood.process.poll() is None, "the flood ended before the measure"
        return timed.seconds, flood
    finally:
        flood.stop()


if __name__ == "__main__":
    source, host, port, count, seconds = sys.argv[1:6]
    every = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
    flood(source, host, int(port), int(count), float(seconds), every)


def served_beside_a_flood(url: str, what: str) -> None:
    """`play_beside_a_flood`, printed with the load average, and held to its marks: the
    flood kept to its 64 connections, and 127.0.0.3's p99 under a second."""
    seconds, flood = play_beside_a_flood(url)
    slowest = p99(seconds)
    load = Path("/proc/loadavg").read_text().strip()
    print(f"\n{len(seconds)} requests {what}: p99 {slowest * 1000:.0f} ms, max "
          f"{max(seconds) * 1000:.0f} ms; flood {flood.rounds[:3]} ... {flood.rounds[-1]}; "
          f"load average {load}")  # fmt: skip
    assert flood.kept_to(64), f"the flood kept more than 64: {flood.rounds}"
    assert slowest < 1.0, f"p99 {slowest:.3f} s over {len(seconds)} requests"

"""The bench's live fan-out section (tests/bench.py, `BENCH_SECTIONS=fanout`): the latency of
moves with no spectators beside the same with `BENCH_SPECTATORS` (300) SSE spectators of the
game, measured in alternating rounds (ABAB...) on one server, with the load average at the
time. The target (issue 27): p99 with spectators at most twice the p99 without.

The spectators are another process (`python -m tests.bench_spectators URL GAME COUNT`), so
their reading shares no interpreter with the timed client: it opens the streams, says
`ready` once each has its first event, drains them, and when given a version on stdin,
says how many streams reached it.

Each round plays a fresh Puerto Rico game (every seat a person, as in the API section):
spectators watching a game that has moves left, and rounds alike but for the spectators.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import psutil

ROUNDS = int(os.environ.get("BENCH_FANOUT_ROUNDS", "4"))  # of each condition, alternated
MOVES = int(os.environ.get("BENCH_FANOUT_MOVES", "100"))  # timed moves per round
READY = 60.0  # seconds the spectators may take to open and to reach the fan-out
_ID = re.compile(rb"id: (\d+)\r\n")


def fanout_section(spectators: int, tree: Path | None = None) -> None:
    """(`tree`: another commit's checkout to serve instead of this one)"""
    from tests import bench

    with bench._scratch() as schema, bench._serving(schema, tree=tree) as (server, url):
        seats = [bench.Http(url) for _ in range(4)]
        for seat in seats:
            seat.key = seat.call("POST", "/v1/players", {"name": "fan"})[1]["api_key"]
        times: dict[int, list[float]] = {0: [], spectators: []}
        loads: dict[int, list[float]] = {0: [], spectators: []}
        cpu: dict[int, list[float]] = {0: [0.0, 0.0], spectators: [0.0, 0.0]}
        reached: list[str] = []
        for index in range(2 * ROUNDS):
            watched = spectators if index % 2 else 0
            game, state = _new_game(seats)
            watchers = Spectators(url, game, watched, server.pid) if watched else None
            for seat in seats:  # (the server closes connections idle for its keep-alive)
                seat.connect()
            loads[watched].append(os.getloadavg()[0])
            before = _cpu(server.pid)
            times[watched] += bench._timed_moves(seats, game, state, MOVES)
            spent = zip(cpu[watched], before, _cpu(server.pid), strict=True)
            cpu[watched] = [so_far + now - then for so_far, then, now in spent]
            loads[watched].append(os.getloadavg()[0])
            if watchers is not None:
                reached.append(watchers.finish(state["version"]))
        alone, watched_p99 = bench._pct(times[0], 0.99), bench._pct(times[spectators], 0.99)
        holds = watched_p99 <= 2 * alone
        rows = "".join(
            f"| {n} | {len(times[n])} | {bench._pct(times[n], 0.5):.2f} "
            f"| {bench._pct(times[n], 0.99):.2f} | {1000 * max(times[n]):.2f} "
            f"| {sum(loads[n]) / len(loads[n]):.2f} |\n"
            for n in (0, spectators)
        )
        print(
            f"\n## Live fan-out (Puerto Rico, {spectators} SSE spectators of the game played; "
            f"{ROUNDS} rounds of each, alternated, {MOVES} moves a round)\n\n"
            "| spectators | moves | POST p50 ms | POST p99 ms | max ms | load (1 min) |\n"
            f"|---|---|---|---|---|---|\n{rows}\n"
            f"target, p99 with spectators at most twice p99 without: "
            f"{watched_p99:.2f} <= 2 x {alone:.2f}: {'holds' if holds else 'MISSED'} "
            f"(load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
            f"{os.cpu_count()} cores)\nspectators' streams: {'; '.join(reached)}\n"
            "CPU seconds during the timed moves, API process / fan-out process: "
            + ", ".join(f"{n} spectators {cpu[n][0]:.2f} / {cpu[n][1]:.2f}" for n in cpu),
            flush=True,
        )


def _cpu(server: int) -> tuple[float, float]:
    """CPU seconds so far of the API process, and of its fan-out process."""
    api = psutil.Process(server)
    fanout = 0.0
    for child in api.children(recursive=True):
        try:
            if "api.fanout" in " ".join(child.cmdline()):
                fanout += sum(child.cpu_times()[:2])
        except psutil.Error:
            continue
    return sum(api.cpu_times()[:2]), fanout


def _new_game(seats: list[Any]) -> tuple[str, dict[str, Any]]:
    body = {"game": "puerto-rico", "seats": 4, "seat": 0}
    game = seats[0].call("POST", "/v1/games", body)[1]["id"]
    for s in range(1, 4):
        joined = seats[s].call("POST", f"/v1/games/{game}/join", {"seat": s})[1]
    return game, {"version": joined["version"], "awaiting": joined["awaiting"]}


class Spectators:
    """`count` SSE spectators of `game` in a process of their own, open and each past its
    first event, and (when the server hands streams to a fan-out process) served by it."""

    def __init__(self, url: str, game: str, count: int, server: int) -> None:
        command = [sys.executable, "-m", "tests.bench_spectators", url, game, str(count)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.strip() == "ready", f"the spectators did not start: {line!r}"
        _served_apart(server, urllib.parse.urlparse(url).port or 80, count)

    def finish(self, version: int) -> str:
        """Once each stream has version `version` (or some time has passed): how many did."""
        out, _ = self.process.communicate(f"{version}\n", timeout=120)
        done = json.loads(out.strip().splitlines()[-1])
        return f"{done['reached']}/{done['streams']} got every event to {version}"


def _served_apart(server: int, port: int, count: int) -> None:
    """Wait until a child of the server holds `count` connections of its port (the fan-out
    took the streams over); a server with none after a while (another commit's) serves
    them itself."""
    began = time.monotonic()
    held, fanout = 0, False
    while time.monotonic() < began + READY:
        for child in psutil.Process(server).children(recursive=True):
            try:
                if "api.fanout" in " ".join(child.cmdline()):
                    fanout = True
                    held = sum(
                        c.status == "ESTABLISHED" and c.laddr.port == port
                        for c in child.net_connections("tcp")
                    )
            except psutil.Error:
                continue
        if held >= count or (not fanout and time.monotonic() > began + 10):
            break
        time.sleep(0.2)
    if held < count:
        print(f"  ({count - held} of the {count} streams served by the API process itself)")


def spectate(url: str, game: str, count: int) -> None:
    """The spectators' process: open, say ready, drain; given a version, report. A stream
    answered otherwise than 200 (503 while the server's threads are all busy opening the
    others) is opened again a moment later, as a client would."""
    parsed = urllib.parse.urlparse(url)
    request = (
        f"GET /v1/games/{game}/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    selector = selectors.DefaultSelector()
    last: dict[socket.socket, int] = {}
    tails: dict[socket.socket, bytes] = {}
    heads: dict[socket.socket, bool] = {}
    again: list[float] = []  # when each refused stream is opened again

    def open_one() -> None:
        sock = socket.create_connection((parsed.hostname, parsed.port))
        sock.sendall(request)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        last[sock], tails[sock], heads[sock] = 0, b"", False

    for _ in range(count):
        open_one()
    target: list[int] = []

    def told() -> None:  # the version to reach; the bench gone (stdin closed): stop
        line = sys.stdin.readline()
        target.append(int(line) if line.strip() else -1)

    threading.Thread(target=told, daemon=True).start()
    said_ready = False
    deadline = None
    while True:
        for key, _ in selector.select(0.2):
            sock = key.fileobj  # type: ignore[assignment]
            try:
                data = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not heads[sock] and not data.startswith(b"HTTP/1.1 200"):
                selector.unregister(sock)
                sock.close()
                del last[sock], tails[sock], heads[sock]
                again.append(time.monotonic() + 0.5)
                continue
            heads[sock] = True
            if not data:  # the stream ended (its game did): what it was sent stays counted
                selector.unregister(sock)
                continue
            seen = tails[sock] + data
            found = _ID.findall(seen)
            if found:
                last[sock] = int(found[-1])
            tails[sock] = seen[-40:]
        while again and again[0] <= time.monotonic():
            again.pop(0)
            open_one()
        if not said_ready and len(last) == count and all(v > 0 for v in last.values()):
            print("ready", flush=True)
            said_ready = True
        if target and target[0] < 0:
            return
        if target:
            deadline = deadline or time.monotonic() + 20
            reached = sum(v >= target[0] for v in last.values())
            if reached == count or time.monotonic() > deadline:
                print(json.dumps({"streams": count, "reached": reached}), flush=True)
                return


if __name__ == "__main__":
    spectate(sys.argv[1], sys.argv[2], int(sys.argv[3]))

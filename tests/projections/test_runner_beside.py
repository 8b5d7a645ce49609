"""`tabletop serve` on Postgres runs the projection runner in a process of its own: the lobby
follows the games, a killed runner is replaced, and the runner does not outlive `serve`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import httpx
import psutil
import pytest

from service.settings import Settings


def _wait(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)


@pytest.fixture
def served(pg_settings: Settings) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "DATABASE_URL": pg_settings.database_url or ""}
    env.pop("TABLETOP_PROJECTIONS", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{url}/health").status_code == 200
        except httpx.TransportError:
            return False

    try:
        _wait(up)
        yield server, url
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(20)


def _runner(server: subprocess.Popen[bytes]) -> psutil.Process:
    children = [
        p
        for p in psutil.Process(server.pid).children()
        if "multiprocessing" in " ".join(p.cmdline())
        and "resource_tracker" not in " ".join(p.cmdline())
    ]
    assert len(children) == 1, [c.cmdline() for c in children]
    return children[0]


def _listed(url: str, key: str, game: str) -> Callable[[], bool]:
    def check() -> bool:
        listed = httpx.get(f"{url}/v1/games", headers={"Authorization": f"Bearer {key}"})
        return game in [g["id"] for g in listed.json()["games"]]

    return check


def _new_game(url: str, key: str) -> str:
    body = {"game": "caylus", "seats": 2, "seat": 0, "options": {}}
    answer = httpx.post(f"{url}/v1/games", json=body, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def test_the_runner_runs_beside_serve_and_is_replaced_when_killed(
    served: tuple[subprocess.Popen[bytes], str],
) -> None:
    server, url = served
    key = httpx.post(f"{url}/v1/players", json={"name": "ada"}).json()["api_key"]
    first = _new_game(url, key)
    _wait(_listed(url, key, first))
    runner = _runner(server)
    runner.send_signal(signal.SIGKILL)
    runner.wait(10)
    second = _new_game(url, key)
    _wait(_listed(url, key, second))
    assert _runner(server).pid != runner.pid


def test_the_runner_does_not_outlive_serve(served: tuple[subprocess.Popen[bytes], str]) -> None:
    server, _ = served
    runner = _runner(server)
    server.send_signal(signal.SIGKILL)  # no chance to stop its runner
    server.wait(10)
    runner.wait(10)  # psutil: raises TimeoutExpired if it lives on
    assert not runner.is_running()

"""/health answers within 1 s whatever the read load, and a busy server never reports its
store down: 600 concurrent readers of one finished game (a process of their own, a
keep-alive connection each, from 127.0.0.2) while another client (127.0.0.3) asks /health on
a new connection every 0.2 s. Every /health answers 200 within 1 s; the reads are answered
200, or 503 `overloaded` when the server sheds load, never `unavailable`; the server never
logs `store_down`. Postgres is healthy throughout: nothing here may say otherwise."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from service.settings import Settings
from tests.faults.conftest import Server, server_env
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("health_load")]

READERS = 600
SECONDS = 8.0


def _finished_game(url: str) -> str:
    ada = httpx.post(f"{url}/v1/players", json={"name": "ada"}, timeout=30).json()
    body = {
        "game": "puerto-rico",
        "seats": 3,
        "bots": {"0": "random", "1": "random", "2": "random"},
    }
    made = httpx.post(
        f"{url}/v1/games", json=body, headers={"Authorization": f"Bearer {ada['api_key']}"}
    )
    assert made.status_code == 201, made.text
    game = made.json()["id"]
    wait_until(
        lambda: httpx.get(f"{url}/v1/games/{game}", timeout=30).json()["status"] == "finished",
        120,
        "the bots finish their game",
    )
    return str(game)


def _health(port: int) -> tuple[float, str]:
    """/health on a new connection from 127.0.0.3: (seconds to the answer, its status)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), 10, ("127.0.0.3", 0)) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nhost: tabletop\r\nconnection: close\r\n\r\n")
        head = conn.recv(4096)
    return time.monotonic() - started, head[9:12].decode()


def test_health_answers_within_a_second_beside_600_readers(
    pg_settings: Settings, tmp_path: Path
) -> None:
    assert pg_settings.database_url is not None
    log = tmp_path / "serve.log"
    env = server_env(pg_settings.database_url, TABLETOP_MAX_PER_ADDRESS=str(READERS + 100))
    server = Server(env, log)
    server.start()
    try:
        url = server.url
        port = int(url.rsplit(":", 1)[1])
        game = _finished_game(url)
        flood = subprocess.Popen(
            [sys.executable, "-m", "tests.support.read_load", "127.0.0.1", str(port),
             f"/v1/games/{game}", str(READERS), str(SECONDS)],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
        )  # fmt: skip
        assert flood.stdout is not None
        assert flood.stdout.readline().strip() == "open", "the readers could not connect"
        answers = []
        while flood.poll() is None:
            answers.append(_health(port))
            time.sleep(0.2)  # a load balancer's probe interval, not a wait for a condition
        seen = json.loads(flood.stdout.read())
        slowest = max(s for s, _ in answers)
        print(f"\n/health beside {READERS} readers: {len(answers)} answers, slowest "
              f"{slowest:.3f} s; reads {seen}; load {os.getloadavg()}")  # fmt: skip
        assert len(answers) >= 10
        assert {status for _, status in answers} == {"200"}, answers
        assert slowest < 1.0, answers
        assert seen.get("200", 0) > READERS, seen  # the readers were served meanwhile
        shed = {k for k in seen if k.startswith("503:")}
        assert shed <= {"503:overloaded"}, seen
        assert "store_down" not in log.read_text()
    finally:
        server.stop()

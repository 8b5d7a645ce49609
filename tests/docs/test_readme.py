"""The README's examples, run as written: its "Trying it" block pasted into a fresh shell
against the server it starts (and refusing a port another server answers on), and its
twenty-line bot playing Santa Maria to the end."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import threading
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from litestar.testing import TestClient
from tabletop_client import Client, game_of

from api.main import build
from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.waits import wait_until

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")


def block(heading: str, language: str) -> str:
    """The first fenced `language` block after `heading`."""
    after = README[README.index(heading) :]
    found = re.search(rf"```{language}\n(.*?)```", after, re.S)
    assert found is not None, heading
    return found[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


MADE = ("legal.json", "game.ndjson")  # the files the block writes (in a directory of its own)


def _paste(port: int, tmp_path: Path) -> tuple[int, str]:
    """The "Trying it" block run at the top of the repository as a user pastes it into
    `bash -e`, in a shell with no key, game or version known beforehand and the store in a
    file of its own: its exit status and output. Its `mktemp -d` is made under
    tmp_path/"tmp", which its trap removes again; it must write nothing in the repository."""
    if any((ROOT / name).exists() for name in MADE):
        pytest.fail(f"move {MADE} away from {ROOT} first: the block must not write them there")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "TABLETOP"))}
    env |= {
        "PORT": str(port),
        "TABLETOP_SQLITE": str(tmp_path / "tabletop.sqlite"),
        "TMPDIR": str(scratch),
    }
    log = tmp_path / "out.txt"
    with log.open("w") as output:  # a file, not a pipe: the server it starts keeps its output
        shell = subprocess.Popen(
            ["bash", "-e", "-c", block("## Trying it", "sh")],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the block's `make run &` too: ended with its group
        )
        try:
            shell.wait(timeout=300)
            # its trap stops the server (and waits for it): nothing of its group is left
            wait_until(lambda: not _alive(shell.pid), 30, "the server stopped by the block")
        finally:
            with suppress(ProcessLookupError):  # the server, should it still run
                os.killpg(shell.pid, signal.SIGTERM)
            written = [name for name in MADE if (ROOT / name).exists()]
            for name in written:
                (ROOT / name).unlink()
    out = log.read_text()
    assert not written, f"{written} written in the repository"
    assert list(scratch.iterdir()) == [], "the block's directory is left behind"
    return shell.returncode, out


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_trying_it_works_pasted_into_a_fresh_shell(tmp_path: Path) -> None:
    """Every command must succeed (`bash -e`), the last one verifies the export of the game
    the block played, and the block stops the server it started when it ends."""
    port = _free_port()
    status, out = _paste(port, tmp_path)
    assert status == 0, out[-3000:]
    assert f"listening on http://127.0.0.1:{port}" in out
    assert '"verified": true' in out, out[-2000:]
    events = re.search(r'"events": (\d+)', out)
    assert events is not None and int(events[1]) > 100, out[-2000:]
    with socket.socket() as sock:  # the port is free again
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))


def test_health_says_the_run_token_it_was_started_with(
    monkeypatch: pytest.MonkeyPatch, sqlite_settings: Settings
) -> None:
    """What the block waits for: /health's 200 says TABLETOP_RUN_TOKEN back when it is set
    (and only then: its answer is otherwise unchanged)."""
    monkeypatch.delenv("TABLETOP_RUN_TOKEN", raising=False)
    with TestClient(build(sqlite_settings)) as client:
        plain = client.get("/health")
        monkeypatch.setenv("TABLETOP_RUN_TOKEN", "0123abcd")
        run = client.get("/health")
    assert (plain.status_code, plain.json()) == (200, {"status": "ok"})
    assert (run.status_code, run.json()) == (200, {"status": "ok", "run": "0123abcd"})


class _Foreign(BaseHTTPRequestHandler):
    """Another server on the block's port: 200 `{"status": "ok"}` to anything asked."""

    asked: ClassVar[list[str]] = []

    def _answer(self) -> None:
        self.asked.append(f"{self.command} {self.path}")
        body = b'{"status": "ok"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_trying_it_refuses_a_port_another_server_answers_on(tmp_path: Path) -> None:
    """With the port already served by another server whose /health says 200 `ok`, the block
    stops at once, saying why (the port is taken), and asks that server nothing but /health:
    it waits for its own server's token, which the other one never says."""
    foreign = ThreadingHTTPServer(("127.0.0.1", 0), _Foreign)
    _Foreign.asked = []
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    try:
        port = foreign.server_address[1]
        status, out = _paste(port, tmp_path)
    finally:
        foreign.shutdown()
        foreign.server_close()
    assert status != 0, out[-3000:]
    assert f"Error: port {port} is taken" in out, out[-3000:]
    assert f"make run has stopped (is port {port} taken? see above)" in out, out[-3000:]
    assert "listening on" not in out  # `tabletop serve` never started
    assert set(_Foreign.asked) <= {"GET /health"}, _Foreign.asked


@pytest.fixture
def server(pg_settings: Settings) -> Any:
    with LiveServer(pg_settings) as live:
        yield live.url


def test_the_twenty_line_bot_plays_santa_maria_to_the_end(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = block("### A bot in twenty lines", "python")
    assert len(code.strip().splitlines()) <= 20
    with Client(server) as api:
        api.register("readme")
        monkeypatch.setenv("KEY", api.key or "")
        monkeypatch.setenv("TABLETOP_URL", server)
        scope: dict[str, Any] = {}
        exec(compile(code, "README.md", "exec"), scope)
        game = api.game(scope["game"].id)
    assert game.status == "finished" and game_of(game) == "santa-maria"
    assert game.result is not None and sorted(game.result.ranks)[0] == 1

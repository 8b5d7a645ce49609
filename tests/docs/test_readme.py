"""The README's examples, run as written: its "Trying it" block pasted into a fresh shell
against the server it starts, and its twenty-line bot playing Santa Maria to the end."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tabletop.client import Client
from tests.conftest import LiveServer

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


def test_trying_it_works_pasted_into_a_fresh_shell(tmp_path: Path) -> None:
    """The block runs at the top of the repository, in a shell with no key, game or version
    known beforehand and the store in a file of its own; every command must succeed
    (`bash -e`), and the last one verifies the export of the game the block played."""
    made = [ROOT / "legal.json", ROOT / "game.ndjson"]  # the files the block writes
    if any(path.exists() for path in made):
        pytest.fail(f"move {made} away first: the block writes them")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "TABLETOP"))}
    env |= {"PORT": str(port), "TABLETOP_SQLITE": str(tmp_path / "tabletop.sqlite")}
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
            exported = made[1].read_text() if made[1].exists() else ""
        finally:
            with suppress(ProcessLookupError):  # the server, should it still run
                os.killpg(shell.pid, signal.SIGTERM)
            for path in made:
                path.unlink(missing_ok=True)
    out = log.read_text()
    assert shell.returncode == 0, out[-3000:]
    assert f"listening on http://127.0.0.1:{port}" in out
    assert '"verified": true' in out, out[-2000:]
    assert exported.count("\n") > 100


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
    assert game.status == "finished" and game.game == "santa-maria"
    assert game.result is not None and sorted(game.result["ranks"])[0] == 1

"""What the tamper tests share: the service served on a port (its sentinel sweeping fast),
games played to their end and logged, and the `tabletop` commands that check them, run
in-process."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import structlog
import typer
from typer.testing import CliRunner

from api import cli_checks as checks
from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.waits import wait_until

# The commands under test (api/cli.py names the same functions).
CLI = typer.Typer()
CLI.command("verify")(checks.verify_cmd)
CLI.command("monitor")(checks.monitor)
CLI.add_typer(checks.sentinel_cli, name="sentinel")

FAST = {"TABLETOP_SENTINEL_PERIOD_S": "0.2", "TABLETOP_LOG_RECHECK_S": "0.2"}


@contextmanager
def served(settings: Settings, **env: str) -> Iterator[tuple[httpx.Client, Api, str]]:
    """The service on a port, with `env` (plus FAST) in its environment while it runs."""
    wanted = {**FAST, **env}
    before = {k: os.environ.get(k) for k in wanted}
    os.environ.update(wanted)
    try:
        with LiveServer(settings) as server, httpx.Client(base_url=server.url, timeout=30) as http:
            yield http, Api(http), server.url
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def finished_game(http: httpx.Client, api: Api, seed: int = 1) -> str:
    """A game of ada against a bot, played to its end and logged."""
    ada = api.player("ada")
    game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0, client_seed="ada")
    api.play_out(game["id"], {0: ada}, random.Random(seed))
    assert api.settled(game["id"])["status"] == "finished"
    wait_until(
        lambda: http.get(f"/v1/transparency/inclusion/{game['id']}").status_code == 200,
        20,
        "the game logged",
    )
    return str(game["id"])


def export(http: httpx.Client, game_id: str, file: Path) -> Path:
    answer = http.get(f"/v1/games/{game_id}/export")
    assert answer.status_code == 200, answer.text
    file.write_text(answer.text)
    return file


def events(file: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in file.read_text().splitlines() if "version" in json.loads(x)]


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    """A `tabletop` command run in-process: its exit code, its JSON answer, its log."""
    logging = structlog.get_config()
    result = CliRunner().invoke(CLI, list(args), env=env)
    structlog.configure(**logging)  # the command set the log to its own stderr, gone now
    assert result.stdout.strip(), (result.exit_code, result.stderr, result.exception)
    return result.exit_code, json.loads(result.stdout.splitlines()[-1]), result.stderr


def sentinel_once(settings: Settings) -> tuple[int, dict[str, Any], str]:
    """`tabletop sentinel run --once` on the store of `settings`."""
    return cli("sentinel", "run", "--once", env={"DATABASE_URL": settings.database_url or ""})


def health(http: httpx.Client) -> dict[str, Any]:
    answer = http.get("/health")
    assert answer.status_code == 200, answer.text  # a bad game never takes the service down
    found: dict[str, Any] = answer.json()
    return found


def tampered_gauge(http: httpx.Client) -> float | None:
    for line in http.get("/metrics").text.splitlines():
        if line.startswith("tabletop_tampered_games "):
            return float(line.split()[1])
    return None

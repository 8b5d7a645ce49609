"""`tabletop serve` on Postgres runs the projection runner in a process of its own: the lobby
follows the games, a killed runner is replaced, and the runner does not outlive `serve`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import httpx
import msgspec
import psutil
import psycopg
import pytest

from projections.runner import view_for
from service.players import Players
from service.settings import Settings
from service.store import open_store
from tests.support.games import GameService, close_over
from tests.support.serve import serve
from tests.support.waits import wait_until


@pytest.fixture
def served(pg_settings: Settings) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    env = {**os.environ, "DATABASE_URL": pg_settings.database_url or ""}
    env.pop("TABLETOP_PROJECTIONS", None)
    server, url = serve(env)
    try:
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
    wait_until(_listed(url, key, first), 30, "the first game listed")
    runner = _runner(server)
    runner.send_signal(signal.SIGKILL)
    runner.wait(10)
    second = _new_game(url, key)
    wait_until(_listed(url, key, second), 30, "the second game listed")
    assert _runner(server).pid != runner.pid


def test_the_runner_does_not_outlive_serve(served: tuple[subprocess.Popen[bytes], str]) -> None:
    server, _ = served
    runner = _runner(server)
    server.send_signal(signal.SIGKILL)  # no chance to stop its runner
    server.wait(10)
    runner.wait(10)  # psutil: raises TimeoutExpired if it lives on
    assert not runner.is_running()


def test_a_second_runner_waits_until_the_first_is_gone(
    served: tuple[subprocess.Popen[bytes], str], pg_settings: Settings, pg_url: str
) -> None:
    """`serve`'s runner is active; `tabletop projections run` beside it stands by, and takes
    over once the serve's runner is gone for good."""
    server, url = served
    key = httpx.post(f"{url}/v1/players", json={"name": "ada"}).json()["api_key"]
    first = _new_game(url, key)
    # serve's runner is at work, holding the lock
    wait_until(_listed(url, key, first), 30, "listed")
    env = {**os.environ, "DATABASE_URL": pg_settings.database_url or ""}
    standby = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "projections", "run"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until(lambda: _advisory_waiters(pg_url) > 0, 30, "the standby waiting on the lock")
        assert standby.poll() is None
        server.send_signal(signal.SIGSTOP)  # serve cannot restart its runner...
        _runner(server).send_signal(signal.SIGKILL)  # ...which dies: the standby takes over
        second = _new_game_elsewhere(pg_settings)
        wait_until(lambda: _in_read_model(pg_settings, second), 30, "in the read model")
    finally:
        server.send_signal(signal.SIGCONT)
        standby.terminate()
        standby.wait(20)
    assert b"standby" in (standby.stderr.read() if standby.stderr else b"")


def _new_game_elsewhere(settings: Settings) -> str:
    """A game created by another process's service (the API process is stopped)."""
    store = open_store(_no_ddl(settings))
    try:
        player, _ = Players(store).register("bob")
        return str(GameService(store).create(player, "caylus", 2, {}, {1: "random"}).id)
    finally:
        close_over(store)
        store.close()


def _in_read_model(settings: Settings, game: str) -> bool:
    store = open_store(_no_ddl(settings))
    try:
        return any(
            game.encode() in summary
            for _, summary in view_for(store).list_games(None, None, None, None, 100)
        )
    finally:
        store.close()


def _no_ddl(settings: Settings) -> Settings:
    # the tables exist; creating them again races the standby's start ("tuple concurrently
    # updated")
    return msgspec.structs.replace(settings, create_tables=False)


def _advisory_waiters(pg_url: str) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ).fetchone()
    return int(row[0]) if row else 0


def test_serve_keeps_time_on_postgres(served: tuple[subprocess.Popen[bytes], str]) -> None:
    """The timekeeper beside `serve` applies a timeout when a (one-second) clock runs out:
    the seat that never answers forfeits and the bots finish the game."""
    _, url = served
    key = httpx.post(f"{url}/v1/players", json={"name": "ada"}).json()["api_key"]
    body = {
        "game": "caylus",
        "seats": 2,
        "seat": 0,
        "bots": {"1": "random"},
        "clock": {"kind": "fischer", "initial_s": 1},
        "on_timeout": "forfeit",
    }
    created = httpx.post(f"{url}/v1/games", json=body, headers={"Authorization": f"Bearer {key}"})
    assert created.status_code == 201, created.text
    game = f"{url}/v1/games/{created.json()['id']}"
    wait_until(lambda: httpx.get(game).json()["status"] == "finished", 20, "finished")
    finished = httpx.get(game).json()
    assert finished["forfeited"] == {"0": "timed_out"} and finished["result"]["ranks"] == [2, 1]
    assert httpx.get(f"{game}/audit").json()["verified"]

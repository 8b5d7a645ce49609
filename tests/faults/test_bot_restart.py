"""`kill -9` of `tabletop serve` while a bot is thinking: the bot's decision is never made
inside a player's request, so a person's move is answered and saved while the bot runner,
after that commit, lets an `mcts` bot with a time budget think in a worker thread. The
server dies mid-thought; nothing of the bot's is stored. A restarted server knows nothing
of the game in memory: its bot runner's sweep of the read model's games awaiting a bot
(rm_bot_turns; those waiting GRACE_US or longer, service/bot_runner.py) finds it, the bot
thinks again and moves, once, and the game goes on: the person is awaited and plays, the
bot answers, and the finished game verifies."""

from __future__ import annotations

import time
from typing import Any

import httpx
import psutil
import pytest

from service.bot_runner import GRACE_US
from service.clocks import micros
from tests.faults.clients import stored_version
from tests.faults.conftest import Server
from tests.support.api import Api
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]

THINK_MS = 4000  # the bot's time budget per decision: the kill lands well inside it
BOT = f"mcts:ms={THINK_MS}"
HUMAN, BOT_SEAT = 0, 1


def _events(http: httpx.Client, game: str, after: int) -> list[dict[str, Any]]:
    answer = http.get(f"/v1/games/{game}/events", params={"after": after})
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()["events"]
    return events


def _cpu_seconds(pid: int) -> float:
    """The CPU the process has used (user and system): the bot thinks in a thread of it."""
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def _move(api: Api, game: str, player: dict[str, str]) -> dict[str, Any]:
    legal = api.legal(game, player)
    answer = api.move(game, player, legal["version"], legal["moves"][0])
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _until_the_bot_is_awaited(api: Api, game: str, player: dict[str, str]) -> dict[str, Any]:
    """The person moves (once the bot has moved, if it is to move) until one of its moves
    leaves the bot awaited; that move's answer."""
    for _ in range(50):
        state = api.settled(game, timeout=60)
        assert state["status"] == "active" and state["awaiting"] == [HUMAN], state
        answer = _move(api, game, player)
        if BOT_SEAT in answer["awaiting"]:
            assert answer["status"] == "active"
            return answer
    raise AssertionError("none of the person's moves left the bot awaited")


def test_a_bot_thinking_when_serve_is_killed_moves_after_the_restart(
    server: Server, database: str
) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as http:
        api = Api(http)
        ada = api.player("ada")
        game = api.create(ada, "caylus", 2, {BOT_SEAT: BOT}, seat=HUMAN)["id"]
        moved = _until_the_bot_is_awaited(api, game, ada)["version"]  # its runner thinks now

    assert server.process is not None
    pid = server.process.pid
    before = _cpu_seconds(pid)
    wait_until(lambda: _cpu_seconds(pid) - before >= 0.3, 10, "the bot thinking")
    killed_us = time.time_ns() // 1000
    server.kill()
    assert stored_version(database, game) == moved, "the bot had moved before the kill"

    url = server.start()  # in memory it knows nothing of the game: the sweep finds it
    with httpx.Client(base_url=url, timeout=60) as http:
        api = Api(http)
        state = api.settled(game, timeout=60)  # the bot's move, then ada is awaited
        assert state["status"] == "active" and state["awaiting"] == [HUMAN], state
        ada_last, *after = _events(http, game, moved - 1)
        assert after and after[0]["seat"] == BOT_SEAT, after  # the bot decided next...
        at = micros(after[0]["at"])
        assert at > killed_us, "...after the kill: the restarted server's runner decided"
        # ...once the game had waited GRACE_US for its bot since ada's move (the sweep's
        # grace): found by the sweep, not by any memory of the killed server
        assert at - micros(ada_last["at"]) >= GRACE_US, (ada_last, after[0])
        # the game goes on: ada plays again and the bot answers; then ada resigns, and the
        # finished game's audit verifies it all (the bot's decisions re-executed too)
        again = _until_the_bot_is_awaited(api, game, ada)
        assert api.settled(game, timeout=60)["version"] > again["version"]
        resigned = http.post(f"/v1/games/{game}/resign", headers=Api.auth(ada))
        assert resigned.status_code == 200, resigned.text
        audit = http.get(f"/v1/games/{game}/audit")
        assert audit.status_code == 200 and audit.json()["verified"], audit.text

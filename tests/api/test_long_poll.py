"""Waiting for the other seats: bots decide after the request that leaves the game to them,
on their own (the bot runner), and a client waits for any other seat with the long poll
(`GET /v1/games/{id}?wait_for_version=N&timeout_s=S`). A move's answer comes once its own
events are saved, and carries the mover's next legal moves when the game awaits it again."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


@pytest.fixture
def live(pg_settings: Settings) -> Iterator[str]:
    """The API over real HTTP: a long poll in one thread while another client moves."""
    with LiveServer(pg_settings) as server:
        yield server.url


def _two_humans(api: Api, game: str) -> tuple[dict[str, Any], dict[int, dict[str, str]]]:
    ada, bob = api.player("ada"), api.player("bob")
    created = api.create(ada, game, 2, seat=0)
    joined = api.client.post(f"/v1/games/{created['id']}/join", headers=api.auth(bob))
    assert joined.status_code == 200, joined.text
    state: dict[str, Any] = joined.json()
    assert state["status"] == "active"
    return state, {0: ada, 1: bob}


class Poll:
    """A long poll run in a thread of its own, with a client of its own."""

    def __init__(self, url: str, game_id: str, version: int, timeout_s: float) -> None:
        self.answer: dict[str, Any] | None = None
        self.took = 0.0
        self.error: BaseException | None = None
        args = (url, game_id, version, timeout_s)
        self.thread = threading.Thread(target=self._run, args=args, daemon=True)
        self.thread.start()

    def _run(self, url: str, game_id: str, version: int, timeout_s: float) -> None:
        try:
            with httpx.Client(base_url=url, timeout=timeout_s + 30) as client:
                started = time.monotonic()
                self.answer = Api(client).wait(game_id, version, timeout=timeout_s)
                self.took = time.monotonic() - started
        except BaseException as error:  # shown by `result`
            self.error = error

    def result(self, within: float) -> dict[str, Any]:
        self.thread.join(within)
        assert not self.thread.is_alive(), f"the long poll did not answer in {within} s"
        assert self.error is None, repr(self.error)
        assert self.answer is not None
        return self.answer


def test_the_long_poll_answers_once_the_game_moves_past_the_version(live: str) -> None:
    with httpx.Client(base_url=live, timeout=60) as client:
        api = Api(client)
        state, seated = _two_humans(api, "caylus")
        gid, version = state["id"], state["version"]
        poll = Poll(live, gid, version, timeout_s=30)
        seat = state["awaiting"][0]
        legal = api.legal(gid, seated[seat])
        assert legal["version"] == version and poll.thread.is_alive()  # still waiting
        moved = api.move(gid, seated[seat], version, legal["moves"][0])
        assert moved.status_code == 200, moved.text
        answer = poll.result(within=20)
        # woken by the commit, not by its timeout: with the move's version at once
        assert answer["version"] == moved.json()["version"] > version
        assert poll.took < 20
        # a version the game is past already answers at once
        started = time.monotonic()
        assert api.wait(gid, version, timeout=30)["version"] == answer["version"]
        assert time.monotonic() - started < 20


def test_the_long_poll_answers_at_its_timeout_when_nothing_moves(live: str) -> None:
    with httpx.Client(base_url=live, timeout=60) as client:
        api = Api(client)
        state, _ = _two_humans(api, "caylus")
        poll = Poll(live, state["id"], state["version"], timeout_s=0.5)
        answer = poll.result(within=20)
        assert answer["version"] == state["version"]  # nobody moved: the game as it is
        assert 0.5 <= poll.took < 20


def test_a_finished_game_answers_the_long_poll_at_once(api: Api) -> None:
    ada = api.player("ada")
    created = api.create(ada, "secret-duel", 2, {0: "random", 1: "random"})
    final = api.settled(created["id"])  # a game of bots: the bot runner plays it out
    assert final["status"] == "finished"
    started = time.monotonic()
    assert api.wait(created["id"], final["version"], timeout=30)["version"] == final["version"]
    assert time.monotonic() - started < 20


def test_a_moves_answer_carries_the_legal_moves_when_the_mover_is_awaited_again(
    api: Api,
) -> None:
    """Two people, so nothing moves between a move's answer and the reads after it: the
    answer's `legal` is exactly GET .../legal-moves whenever the mover is awaited again,
    and absent when it is not."""
    rng = random.Random(f"{base_seed()}/legal-in-answer")
    state, seated = _two_humans(api, "santa-maria")
    gid = state["id"]
    again = not_again = 0
    while state["status"] == "active" and (again < 3 or not_again < 3) and again < 200:
        seat = state["awaiting"][0]
        legal = api.legal(gid, seated[seat])
        r = api.move(gid, seated[seat], legal["version"], rng.choice(legal["moves"]))
        assert r.status_code == 200, r.text
        answer = r.json()
        if seat in answer["awaiting"]:
            again += 1
            assert answer["legal"] == api.legal(gid, seated[seat]), answer
            assert answer["legal"]["version"] == answer["version"]
        else:
            not_again += 1
            assert answer["legal"] is None, answer
            other = api.legal(gid, seated[1 - seat])
            assert other["version"] == answer["version"] and other["moves"]
        state = api.game(gid)
        assert state["version"] == answer["version"]
    assert again >= 3 and not_again >= 3, (again, not_again)


def test_a_move_is_answered_without_waiting_for_the_bot_that_thinks_next(pg_api: Api) -> None:
    """A bot with a time budget of 2 s (mcts:ms=2000): the request that leaves the game to
    it answers in well under that, and the bot's decision follows on its own (the long
    poll is woken by it)."""
    api, rng = pg_api, random.Random(f"{base_seed()}/bot-after-request")
    ada = api.player("ada")
    created = api.create(ada, "caylus", 2, {1: "mcts:ms=2000"}, seat=0)
    gid = created["id"]
    for _ in range(50):  # ada plays until a move of hers leaves the game to the bot
        state = api.settled(gid, ada, timeout=120)
        assert state["status"] == "active", state
        legal = api.legal(gid, ada)
        started = time.monotonic()
        r = api.move(gid, ada, legal["version"], rng.choice(legal["moves"]))
        took = time.monotonic() - started
        assert r.status_code == 200, r.text
        assert took < 1.0, f"a move's request took {took:.2f} s"
        answer = r.json()
        assert all(e["seat"] != 1 for e in answer["events"])  # none of the bot's
        if 1 in answer["awaiting"]:
            break
    else:
        pytest.fail("the bot was never awaited after a move of ada's")
    # The bot decides now, on its own: the long poll answers with its decision.
    moved = api.wait(gid, answer["version"], ada, timeout=30)
    assert moved["version"] > answer["version"]
    after = api.client.get(f"/v1/games/{gid}/events", params={"after": answer["version"]})
    first = after.json()["events"][0]
    assert first["seat"] == 1, first  # the bot's decision, right after ada's move
    assert first["at"] >= answer["events"][-1]["at"]  # stamped when it was made

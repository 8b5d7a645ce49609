"""Streams a browser can use: `retry:` in every Server-Sent Events stream, 204 once a
finished game has nothing more (an EventSource then stops reconnecting), and stream tokens
(`?token=`) for an EventSource, which cannot send an Authorization header."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api import stream_tokens
from api.live import RETRY_MS
from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api

SSE = {"Accept": "text/event-stream"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A served app (uvicorn: streams stay open) with a running and a finished game."""
    path = tmp_path_factory.mktemp("streams") / "tabletop.sqlite"
    with (
        LiveServer(Settings(sqlite_path=str(path))) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        api = Api(client)
        ada = api.player("ada")
        running = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
        finished = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
        last = api.play_out(finished, {0: ada}, random.Random(5))["version"]
        yield {"server": server, "api": api, "ada": ada, "running": running,
               "finished": finished, "last": last}  # fmt: skip


def _first_lines(client: httpx.Client, url: str, count: int, **kw: Any) -> list[str]:
    """The first `count` non-empty lines of an open stream (then it is closed)."""
    lines: list[str] = []
    with client.stream("GET", url, **kw) as answer:
        assert answer.status_code == 200, answer.read()
        for line in answer.iter_lines():
            if line:
                lines.append(line)
            if len(lines) == count:
                break
    return lines


def test_a_finished_game_stream_ends_then_answers_204(served: dict[str, Any]) -> None:
    c, game, last = served["api"].client, served["finished"], served["last"]
    rest = c.get(f"/v1/games/{game}/stream?after={last - 1}", headers=SSE)
    assert rest.status_code == 200
    assert f"retry: {RETRY_MS}" in rest.text.splitlines()
    assert f"id: {last}" in rest.text  # its last event, then the stream ended
    for ask in ({"Last-Event-ID": str(last)}, {"Last-Event-ID": str(last + 3)}):
        done = c.get(f"/v1/games/{game}/stream", headers={**SSE, **ask})
        assert done.status_code == 204 and done.content == b""


def test_a_running_game_stream_says_retry_first(served: dict[str, Any]) -> None:
    c, game = served["api"].client, served["running"]
    lines = _first_lines(c, f"/v1/games/{game}/stream", 2, headers=SSE)
    assert lines[0] == f"retry: {RETRY_MS}" and lines[1].startswith("id: ")


def test_an_eventsource_signs_in_with_a_stream_token(served: dict[str, Any]) -> None:
    api, ada, game = served["api"], served["ada"], served["running"]
    c = api.client
    assert c.post("/v1/stream-tokens").status_code == 401  # a key is needed for one
    issued = c.post("/v1/stream-tokens", headers=Api.auth(ada))
    assert issued.status_code == 200, issued.text
    token = issued.json()["token"]
    assert issued.json()["expires_in"] == 300 and issued.json()["expires_at"].endswith("Z")
    assert ada["api_key"] not in token and ada["api_key"].split("_")[2] not in token
    # The player stream, with the token alone, as the player.
    lines = _first_lines(c, f"/v1/players/me/stream?token={token}", 3, headers=SSE)
    assert lines[0] == f"retry: {RETRY_MS}" and any(x.startswith("event: ") for x in lines)
    # The game stream sees the game through ada's seat: her own hidden card is shown.
    # retry, then id, event and data per event (once the bot has moved: the game stands)
    every = 1 + 3 * api.settled(game, ada)["version"]
    seen = _first_lines(c, f"/v1/games/{game}/stream?token={token}", every, headers=SSE)
    spectator = _first_lines(c, f"/v1/games/{game}/stream", every, headers=SSE)
    assert seen != spectator and len(seen) == len(spectator)
    # Anywhere else a token is no key.
    elsewhere = c.get(f"/v1/games/{game}/legal-moves?token={token}")
    assert elsewhere.status_code == 401
    assert c.post("/v1/games", json={"game": "secret-duel", "seats": 2},
                  headers={"Authorization": f"Bearer {token}"}).status_code == 401  # fmt: skip


@pytest.mark.parametrize("damage", ["expired", "forged", "another player's", "garbage"])
def test_a_bad_stream_token_is_refused(served: dict[str, Any], damage: str) -> None:
    api, ada = served["api"], served["ada"]
    players = served["server"].app.state.tabletop.players
    me = players.get(ada["id"])
    token, _ = stream_tokens.issue(players, me, 300)
    prefix, pid, expires, signature = token.split("_", 3)
    if damage == "expired":
        token, _ = stream_tokens.issue(players, me, -1)
    elif damage == "forged":
        token = f"{prefix}_{pid}_{int(expires) + 3600}_{signature}"
    elif damage == "another player's":
        bob = api.player("bob")
        token = f"{prefix}_{bob['id']}_{expires}_{signature}"
    else:
        token = "st_" + "x" * 40
    answer = api.client.get(f"/v1/players/me/stream?token={token}", headers=SSE)
    assert answer.status_code == 401, answer.text
    assert answer.json()["code"] == "invalid_stream_token"
    assert answer.json()["title"] == "Invalid stream token"


def test_head_on_a_stream_answers_at_once(served: dict[str, Any]) -> None:
    c, game = served["api"].client, served["running"]
    started = time.monotonic()
    answer = c.head(f"/v1/games/{game}/stream", headers=SSE)
    assert answer.status_code == 200 and answer.content == b""
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert time.monotonic() - started < 5  # it does not wait for the game to end


def test_a_followed_gzip_stream_answers_at_once_and_flushes_each_event(
    served: dict[str, Any],
) -> None:
    api, ada = served["api"], served["ada"]
    game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    version = api.game(game)["version"]
    url = f"/v1/games/{game}/events?follow=true&after={version}"
    headers = {"Accept": "application/x-ndjson", "Accept-Encoding": "gzip"}
    with httpx.Client(base_url=served["server"].url, timeout=10) as watcher:
        started = time.monotonic()
        with watcher.stream("GET", url, headers=headers) as stream:
            assert time.monotonic() - started < 5  # no move yet: the headers came anyway
            assert stream.headers["content-encoding"] == "gzip"
            legal = api.legal(game, ada)
            assert api.move(game, ada, legal["version"], legal["moves"][0]).status_code == 200
            first = next(line for line in stream.iter_lines() if line)
            assert json.loads(first)["version"] == version + 1

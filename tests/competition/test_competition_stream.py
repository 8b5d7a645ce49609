"""Challenge and seek notices through the real `GET /v1/players/me/stream` (Server-Sent
Events over HTTP): told live, in one id space with the games' notices, and resumed with
`Last-Event-ID` without a repeat."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.conftest import LiveServer

WAIT = 30.0  # seconds: a bound on the whole test, never a pause


@pytest.fixture
def server(pg_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(pg_settings) as live:
        yield live


def _events(lines: Iterator[str], deadline: float) -> Iterator[dict[str, Any]]:
    """The SSE messages of `lines` ({"event", "id", "data"}), keep-alives skipped."""
    message: dict[str, Any] = {}
    for line in lines:
        assert time.monotonic() < deadline, "the notice did not come in time"
        if not line:
            if "data" in message:
                yield message
            message = {}
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            message[field] = value.removeprefix(" ")


def _until(lines: Iterator[str], kind: str, deadline: float) -> list[dict[str, Any]]:
    """The messages up to and including the first of `kind`."""
    seen = []
    for message in _events(lines, deadline):
        seen.append(message)
        if message["event"] == kind:
            return seen
    raise AssertionError(f"the stream ended before a {kind}")


def test_challenge_and_seek_notices_come_live_over_sse_and_resume(server: LiveServer) -> None:
    deadline = time.monotonic() + WAIT
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:

        def player(name: str) -> tuple[str, dict[str, str]]:
            made = client.post("/v1/players", json={"name": name}).json()
            return made["id"], {"Authorization": f"Bearer {made['api_key']}"}

        (ada, ada_auth), (bob, bob_auth) = player("ada"), player("bob")
        seek = {"game": "caylus", "seats": 2}
        assert client.post("/v1/seeks", json=seek, headers=ada_auth).status_code == 201
        matched = client.post("/v1/seeks", json=seek, headers=bob_auth).json()
        assert matched["status"] == "matched"
        sse = {**bob_auth, "Accept": "text/event-stream"}
        with client.stream("GET", "/v1/players/me/stream", headers=sse) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            lines = r.iter_lines()
            first = _until(lines, "seek_matched", deadline)  # what was there before
            told = json.loads(first[-1]["data"])
            assert told["game"] == matched["game_id"] and told["data"]["seek"] == matched["id"]
            assert told["data"]["seat"] == 1 and int(first[-1]["id"]) == told["id"]
            # then live: a challenge made while the stream is open
            body = {"players": [bob], "game": "caylus"}
            challenge = client.post("/v1/challenges", json=body, headers=ada_auth).json()
            live = _until(lines, "challenge_received", deadline)
            received = json.loads(live[-1]["data"])
            assert received["data"] == {"challenge": challenge["id"], "by": ada, "game": "caylus"}
        ids = [int(m["id"]) for m in first + live]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)  # games' and these, one space
        # (the match is saved before its game is made: the game's notices follow it)
        assert any(m["event"] == "game_started" for m in live)
        # resumed after the challenge's notice: the next one is new, nothing repeats
        resumed = {**sse, "Last-Event-ID": str(received["id"])}
        with client.stream("GET", "/v1/players/me/stream", headers=resumed) as r:
            body = {"players": [bob], "game": "santa-maria"}
            second = client.post("/v1/challenges", json=body, headers=ada_auth).json()
            after = _until(r.iter_lines(), "challenge_received", deadline)
        assert all(int(m["id"]) > received["id"] for m in after)
        assert json.loads(after[-1]["data"])["data"]["challenge"] == second["id"]

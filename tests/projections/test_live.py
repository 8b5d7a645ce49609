"""Live streams over real HTTP: Server-Sent Events and NDJSON deliver every event the
caller may see, in order, as it is appended, redacted for the caller's seat while the game
runs, and end with the game."""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest

from service.clocks import micros
from service.fold import ENDINGS
from service.players import Player
from service.settings import Settings
from service.store import open_store
from tests.conftest import LiveServer
from tests.secret_duel import GAME
from tests.support.api import Api
from tests.support.games import GameService, close_over
from tests.support.waits import wait_until


@pytest.fixture
def server(any_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(any_settings) as live:
        yield live


def _sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "data" in fields:
                event = json.loads(fields["data"])
                assert fields["id"] == str(event["version"])
                yield event
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value


class Listener(threading.Thread):
    """Reads one stream to its end, noting when each event arrived."""

    def __init__(self, url: str, kind: str, headers: dict[str, str], **params: Any) -> None:
        super().__init__(daemon=True)
        self.url, self.kind, self.headers, self.params = url, kind, headers, params
        self.events: list[dict[str, Any]] = []
        self.arrived: dict[int, float] = {}
        self.arrived_us: dict[int, int] = {}  # the same, by the wall clock the stamps use
        self.ended = threading.Event()

    def run(self) -> None:
        if self.kind == "sse":
            path, accept = "stream", "text/event-stream"
        else:
            path, accept = "events", "application/x-ndjson"
            self.params["follow"] = "true"
        headers = {**self.headers, "Accept": accept}
        with (
            httpx.Client(base_url=self.url, timeout=60) as client,
            client.stream("GET", path, headers=headers, params=self.params) as r,
        ):
            assert r.status_code == 200, r.read()
            lines = r.iter_lines()
            parsed = _sse(lines) if self.kind == "sse" else map(json.loads, lines)
            for event in parsed:
                self.events.append(event)
                self.arrived[event["version"]] = time.monotonic()
                self.arrived_us[event["version"]] = time.time_ns() // 1000
        self.ended.set()


def _redacted(event: dict[str, Any], seat: int | None) -> Any:
    if event["type"] in ("game_created", "seat_taken", "randomness_fixed", "game_finished"):
        return event["data"]
    decoded = msgspec.convert({"type": event["type"], **event["data"]}, GAME.event_type)
    shown: dict[str, Any] = msgspec.to_builtins(GAME.redact(decoded, seat))
    return shown  # the data names its type (the clients' discriminator)


@pytest.mark.parametrize("kind", ["sse", "ndjson"])
def test_streams_deliver_every_visible_event_live_and_nothing_hidden(
    server: LiveServer, kind: str
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        api = Api(client)
        ann = api.player("ann")
        game_id = api.create(ann, "secret-duel", 3, {1: "random", 2: "random"}, seat=0)["id"]
        base = f"{server.url}/v1/games/{game_id}/"
        listeners = {
            0: Listener(base, kind, Api.auth(ann)),
            None: Listener(base, kind, {}),  # a spectator
        }
        for listener in listeners.values():
            listener.start()
        moved: dict[int, float] = {}  # version after each move -> when its answer came

        def on_step(_: int, answer: dict[str, Any]) -> None:
            moved[answer["version"]] = time.monotonic()

        # Each stream has sent the backlog (to the bots' first moves) and waits.
        start = api.settled(game_id, ann)["version"]
        for listener in listeners.values():
            wait_until(lambda: start in listener.arrived, 10, "the backlog sent")  # noqa: B023
        final = api.play_out(game_id, {0: ann}, random.Random(3), on_step=on_step)
        for listener in listeners.values():
            assert listener.ended.wait(10), "the stream did not end with the game"
        full = client.get(f"/v1/games/{game_id}/events").json()["events"]  # public now

    # The game ended when its ending was decided (the bots' last move may end it): an event
    # that reached a stream before that stamp was read while the game ran, and must have
    # been redacted for the stream's seat. (Stamps and arrivals: this machine's clock.)
    ended_us = micros(next(e for e in full if e["type"] in ENDINGS)["at"])
    for seat, listener in listeners.items():
        versions = [e["version"] for e in listener.events]
        assert versions == list(range(1, final["version"] + 1)), "missing or out of order"
        hidden = 0  # events sent while it ran that hid something from this seat
        for event, truth in zip(listener.events, full, strict=True):
            assert {k: event[k] for k in ("type", "seat", "at")} == {
                k: truth[k] for k in ("type", "seat", "at")
            }
            if listener.arrived_us[event["version"]] < ended_us:  # sent while it ran
                shown = _redacted(truth, seat)
                assert event["data"] == shown, (seat, event)
                hidden += shown != truth["data"]
        assert hidden, "no hidden card was checked"
        # Pushed, not polled: each move's events reach the stream right after the commit.
        delays = [listener.arrived[v] - t for v, t in moved.items()]
        assert max(delays) < 1.0, delays


def test_streams_resume_after_a_position_and_refuse_bad_requests(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        api = Api(client)
        ann = api.player("ann")
        game_id = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)["id"]
        api.play_out(game_id, {0: ann}, random.Random(5))
        version = api.game(game_id)["version"]
        sse = {"Accept": "text/event-stream"}
        for headers, params in (({**sse, "Last-Event-ID": "5"}, {}), (sse, {"after": 5})):
            r = client.get(f"/v1/games/{game_id}/stream", headers=headers, params=params)
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            versions = [e["version"] for e in _sse(iter(r.text.splitlines()))]
            assert versions == list(range(6, version + 1))
        r = client.get(
            f"/v1/games/{game_id}/events",
            params={"follow": "true", "after": version},
            headers={"Accept": "application/x-ndjson"},
        )
        assert r.status_code == 200 and r.text == ""  # finished: nothing more, closed
        refused = {
            f"/v1/games/{game_id}/stream": ({"Accept": "application/json"}, 406),
            f"/v1/games/{uuid.uuid4()}/stream": (sse, 404),
        }
        for path, (headers, status) in refused.items():
            r = client.get(path, headers=headers)
            assert r.status_code == status
            assert r.headers["content-type"].startswith("application/problem+json")
        r = client.get(f"/v1/games/{game_id}/stream", headers={**sse, "Last-Event-ID": "x"})
        assert r.status_code == 400


def test_a_stream_hears_moves_made_by_another_process(pg_settings: Settings) -> None:
    """Postgres: commits of another process reach the stream through LISTEN/NOTIFY."""
    other = open_store(pg_settings)  # another process's store and game service
    try:
        with LiveServer(pg_settings) as server, httpx.Client(base_url=server.url) as client:
            api = Api(client)
            ann = api.player("ann")
            game_id = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)["id"]
            listener = Listener(f"{server.url}/v1/games/{game_id}/", "sse", Api.auth(ann))
            listener.start()
            games = GameService(other)
            me = Player(ann["id"], "ann", "2026-01-01T00:00:00Z")
            rng = random.Random(4)
            fold = games.settled(uuid.UUID(game_id))  # the server's bot commits first
            while fold.status == "active":
                _, moves = games.legal_moves(fold, 0)
                answer = games.move(me, fold.id, fold.version, rng.choice(moves), uuid.uuid4().hex)
                moved = time.monotonic()
                deadline = moved + 2
                while answer.version not in listener.arrived and time.monotonic() < deadline:
                    time.sleep(0.005)
                assert answer.version in listener.arrived, "the stream did not hear the move"
                fold = games.settled(fold.id)  # this process's bot runner answers for seat 1
            assert listener.ended.wait(5)
            assert [e["version"] for e in listener.events] == list(range(1, fold.version + 1))
    finally:
        close_over(other)
        other.close()

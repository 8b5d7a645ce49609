"""The player event stream over real HTTP: a bot client plays ten games at once from the
stream alone (it never polls a game), reconnects midway with Last-Event-ID and loses
nothing, and saw every turn of its seats, in order, before it played it."""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.conftest import LiveServer

GAMES = 10


@pytest.fixture
def server(any_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(any_settings) as live:
        yield live


class StreamBot:
    """Serves every game its player sits in from `GET /v1/players/me/stream`."""

    def __init__(self, client: httpx.Client, key: str, rng: random.Random) -> None:
        self.client, self.rng = client, rng
        self.headers = {"Authorization": f"Bearer {key}"}
        self.notices: list[dict[str, Any]] = []
        self.finished: set[str] = set()

    def serve(self, games: set[str], disconnect_after: int | None, deadline: float) -> None:
        """Read the stream (reconnecting once after `disconnect_after` notices) until every
        game in `games` has finished."""
        while not games <= self.finished:
            after = self.notices[-1]["id"] if self.notices else 0
            headers = {**self.headers, "Accept": "application/x-ndjson"}
            if after:
                headers["Last-Event-ID"] = str(after)
            with self.client.stream("GET", "/v1/players/me/stream", headers=headers) as r:
                assert r.status_code == 200, r.read()
                for line in r.iter_lines():
                    assert time.monotonic() < deadline, "the games did not finish in time"
                    if not line.strip():
                        continue
                    self.on_notice(json.loads(line))
                    if games <= self.finished:
                        return
                    if disconnect_after is not None and len(self.notices) >= disconnect_after:
                        disconnect_after = None
                        break  # drop the connection; the next one resumes

    def on_notice(self, notice: dict[str, Any]) -> None:
        self.notices.append(notice)
        game = notice["game"]
        if notice["kind"] == "game_finished":
            self.finished.add(game)
        elif notice["kind"] == "your_turn":
            legal = self.client.get(f"/v1/games/{game}/legal-moves", headers=self.headers)
            moves = legal.json()["moves"]
            if moves:  # a turn announced for a moment, already gone, has none
                body = {"expected_version": legal.json()["version"], "move": self.rng.choice(moves)}
                key = {"Idempotency-Key": uuid.uuid4().hex}
                r = self.client.post(
                    f"/v1/games/{game}/moves", json=body, headers={**self.headers, **key}
                )
                assert r.status_code in (200, 409), r.text


def test_a_bot_plays_ten_games_from_the_player_stream_alone(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        key = client.post("/v1/players", json={"name": "streamer"}).json()["api_key"]
        bot = StreamBot(client, key, random.Random(5))
        auth = {"Authorization": f"Bearer {key}"}
        ours: dict[str, int] = {}
        for i in range(GAMES):  # our seat alternates, the other is a bot's
            bots = {str(1 - i % 2): "random"}
            body = {"game": "secret-duel", "seats": 2, "bots": bots, "seat": i % 2}
            created = client.post("/v1/games", json=body, headers=auth)
            assert created.status_code == 201, created.text
            ours[created.json()["id"]] = i % 2
        bot.serve(set(ours), disconnect_after=GAMES + 7, deadline=time.monotonic() + 120)
        ids = [n["id"] for n in bot.notices]
        assert ids == sorted(set(ids)), "a notice came twice or out of order"
        for game_id, seat in ours.items():
            told = [n for n in bot.notices if n["game"] == game_id]
            _saw_every_turn(client, game_id, seat, told)


def _saw_every_turn(
    client: httpx.Client, game_id: str, seat: int, notices: list[dict[str, Any]]
) -> None:
    """Each decision of our seat came after a your_turn at or after its previous one."""
    kinds = [n["kind"] for n in notices]
    assert kinds[0] == "game_started" and kinds[-1] == "game_finished", kinds
    turns = [n["data"]["version"] for n in notices if n["kind"] == "your_turn"]
    assert turns == sorted(turns)
    events = client.get(f"/v1/games/{game_id}/events").json()["events"]
    # Each of our decisions begins with one of these (revealed, ended may follow).
    starts = ("committed", "drew", "passed")
    decisions = [e["version"] for e in events if e["seat"] == seat and e["type"] in starts]
    assert decisions
    last = 0
    for version in decisions:
        told = [t for t in turns if last <= t < version]
        assert told, f"{game_id}: the decision at version {version} was never announced"
        last = version

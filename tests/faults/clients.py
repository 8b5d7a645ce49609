"""Clients that play games through the HTTP API as a careful client would, while a test
breaks the server or its database under them; and the checks of what they were answered
against what the store holds.

Each `Table` is one client holding every seat of its games (players of its own), playing
Secret Duel (the tests' game: secret hands, simultaneous commitments, about ten decisions
per round) one game after another with random legal moves. Every move carries a fresh
Idempotency-Key; a request that gets no answer (connection refused or cut, a timeout), a
503 or a 429 is sent again, unchanged, after the Retry-After (at most half a second here)
until it is answered: so every move is acknowledged in the
end, and the store must hold each exactly once.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg

RETRIED = (429, 502, 503, 504)  # answers a client waits out and sends again


@dataclass(frozen=True)
class Ack:
    """An acknowledged move: the game, its key, who sent what, and the versions of the
    events the answer reported."""

    game: str
    key: str
    seat: int
    move: Any
    versions: tuple[int, ...]


class Target:
    """Where the server answers now: a test that restarts it sets the new URL."""

    def __init__(self, url: str) -> None:
        self.url = url


@dataclass
class Seen:
    """What a client met on the way: requests sent again, 503s, answers sent again that had
    no Retry-After, and how many answers of each status."""

    resent: int = 0
    unavailable: int = 0
    without_retry_after: int = 0
    answers: dict[int, int] = field(default_factory=dict)


class Table(threading.Thread):
    """One client playing `games` games of `seats` seats, every seat its own player."""

    def __init__(
        self,
        target: Target,
        games: int,
        seats: int = 2,
        rounds: int = 10,
        seed: int = 0,
        patience: float = 60.0,
        timeout: float = 10.0,
        reconnect: bool = False,
    ) -> None:
        super().__init__(daemon=True)
        self.target = target
        self.games_to_play = games
        self.seats = seats
        self.rounds = rounds
        self.rng = random.Random(seed)
        self.patience = patience  # seconds a request may go unanswered before the test fails
        # `reconnect`: a connection per request, so that with several workers any may answer
        limits = httpx.Limits(max_keepalive_connections=0) if reconnect else httpx.Limits()
        self.http = httpx.Client(timeout=timeout, limits=limits)
        self.players: list[dict[str, str]] = []
        self.games: list[str] = []
        self.acks: list[Ack] = []
        self.seen = Seen()
        self.error: BaseException | None = None

    # ---- requests ------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        player: dict[str, str] | None = None,
        body: Any = None,
        key: str | None = None,
    ) -> httpx.Response:
        """The request's answer, sending it again (the same request) until one comes that is
        not a transport failure, a 429 nor a 502-504."""
        headers = {"Authorization": f"Bearer {player['api_key']}"} if player else {}
        if key is not None:
            headers["Idempotency-Key"] = key
        deadline = time.monotonic() + self.patience
        while True:
            pause = 0.1
            try:
                answer = self.http.request(
                    method, self.target.url + path, json=body, headers=headers
                )
            except httpx.TransportError:
                pass
            else:
                self.seen.answers[answer.status_code] = (
                    self.seen.answers.get(answer.status_code, 0) + 1
                )
                if answer.status_code not in RETRIED:
                    return answer
                self.seen.unavailable += answer.status_code == 503
                retry_after = answer.headers.get("retry-after")
                if retry_after is None:
                    self.seen.without_retry_after += 1
                else:
                    pause = min(float(retry_after), 0.5)
            if time.monotonic() > deadline:
                raise AssertionError(f"{method} {path}: no answer within {self.patience} s")
            self.seen.resent += 1
            time.sleep(pause)

    def expect(self, answer: httpx.Response, *statuses: int) -> Any:
        assert answer.status_code in statuses, (
            f"{answer.request.method} {answer.request.url.path}: {answer.status_code} {answer.text}"
        )
        return answer.json()

    # ---- playing -------------------------------------------------------------------------

    def run(self) -> None:
        try:
            for name in range(self.seats):
                created = self.send("POST", "/v1/players", body={"name": f"p{name}"})
                self.players.append(self.expect(created, 201))
            for _ in range(self.games_to_play):
                self.play(self.new_game())
        except BaseException as error:
            self.error = error

    def new_game(self) -> str:
        """A game with every seat this client's. Its joins are keyed: one sent again after
        it was applied (its first answer lost) is answered again, even when that join
        started the game (unkeyed, it would hear `already_seated` or `game_not_open`)."""
        body = {"game": "secret-duel", "seats": self.seats, "seat": 0,
                "options": {"rounds": self.rounds}}  # fmt: skip
        created = self.expect(self.send("POST", "/v1/games", self.players[0], body), 200, 201)
        game: str = created["id"]
        self.games.append(game)
        for player in self.players[1:]:
            joined = self.send("POST", f"/v1/games/{game}/join", player, key=uuid.uuid4().hex)
            self.expect(joined, 200)
        return game

    def play(self, game: str) -> None:
        state = self.expect(self.send("GET", f"/v1/games/{game}"), 200)
        awaiting, status = state["awaiting"], state["status"]
        while status == "active":
            seat = self.rng.choice(awaiting)
            player = self.players[seat]
            legal = self.expect(self.send("GET", f"/v1/games/{game}/legal-moves", player), 200)
            assert legal["moves"], f"seat {seat} awaited with no legal move: {legal}"
            move = self.rng.choice(legal["moves"])
            key = uuid.uuid4().hex
            body = {"expected_version": legal["version"], "move": move}
            path = f"/v1/games/{game}/moves"
            answer = self.expect(self.send("POST", path, player, body, key), 200)
            versions = tuple(e["version"] for e in answer["events"])
            self.acks.append(Ack(game, key, seat, move, versions))
            awaiting, status = answer["awaiting"], answer["status"]
            self.answered(game, answer)
        self.game_over(game)

    def answered(self, game: str, answer: dict[str, Any]) -> None:
        """Called after each acknowledged move (a test's checks)."""

    def game_over(self, game: str) -> None:
        """Called when a game is over (a test's checks)."""

    def finish(self, seconds: float) -> None:
        """Wait for the client to end; fail with its error if it met one."""
        self.join(seconds)
        assert not self.is_alive(), f"a client did not finish within {seconds} s"
        if self.error is not None:
            raise self.error


class Move:
    """A move of the table's game by the first seat awaited, sent as a client sends it (the
    same key every time it is sent)."""

    def __init__(self, table: Table, game: str) -> None:
        state = table.expect(table.send("GET", f"/v1/games/{game}"), 200)
        self.seat = state["awaiting"][0]
        self.player = table.players[self.seat]
        legal = table.expect(table.send("GET", f"/v1/games/{game}/legal-moves", self.player), 200)
        self.move = legal["moves"][0]
        self.body = {"expected_version": legal["version"], "move": self.move}
        self.headers = {
            "Authorization": f"Bearer {self.player['api_key']}",
            "Idempotency-Key": uuid.uuid4().hex,
        }
        self.path = f"/v1/games/{game}/moves"
        self.game = game
        self.expected = legal["version"]

    def send(self, url: str, timeout: float) -> httpx.Response:
        return httpx.post(url + self.path, json=self.body, headers=self.headers, timeout=timeout)

    def ack(self, answer: httpx.Response) -> Ack:
        assert answer.status_code == 200, answer.text
        versions = tuple(e["version"] for e in answer.json()["events"])
        assert versions[0] == self.expected + 1
        key = self.headers["Idempotency-Key"]
        return Ack(self.game, key, self.seat, self.move, versions)


def acknowledged(tables: list[Table]) -> int:
    return sum(len(t.acks) for t in tables)


def wait_for_acks(tables: list[Table], count: int, seconds: float) -> None:
    """Until the clients have `count` more moves acknowledged (the load is running)."""
    goal = acknowledged(tables) + count
    deadline = time.monotonic() + seconds
    while acknowledged(tables) < goal:
        for t in tables:
            if t.error is not None:
                raise t.error
        assert time.monotonic() < deadline, f"fewer than {count} moves in {seconds} s"
        time.sleep(0.02)


def checked_get(url: str, patience: float = 30) -> httpx.Response:
    """A GET as a client makes it: a 503 is asked again after its Retry-After, for
    `patience` seconds (after an outage, the transparency log's signer may take a moment
    to take its lock again before an export can be signed)."""
    deadline = time.monotonic() + patience
    while True:
        answer = httpx.get(url, timeout=30)
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(min(float(answer.headers.get("retry-after", "1")), 1.0))


def export(url: str, game: str) -> list[dict[str, Any]]:
    answer = checked_get(f"{url}/v1/games/{game}/export")
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines() if line.strip()]


def check_exactly_once(url: str, tables: list[Table]) -> int:
    """Every acknowledged move is in its game's export exactly once, at the versions its
    answer gave, with the command sent; the export holds no move nobody was answered for;
    every game is finished and its audit verifies. Returns how many moves were checked."""
    checked = 0
    for table in tables:
        by_game: dict[str, list[Ack]] = {}
        for ack in table.acks:
            by_game.setdefault(ack.game, []).append(ack)
        for game in table.games:
            lines = export(url, game)
            events = [line for line in lines if "version" in line]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            keyed: dict[str, list[dict[str, Any]]] = {}
            for e in events:
                if e["idempotency_key"] is not None:
                    keyed.setdefault(e["idempotency_key"], []).append(e)
            acks = by_game.get(game, [])
            assert set(keyed) == {a.key for a in acks}, "a stored move nobody was answered for"
            for ack in acks:
                stored = keyed[ack.key]
                assert tuple(e["version"] for e in stored) == ack.versions, ack
                assert (stored[0]["seat"], stored[0]["command"]) == (ack.seat, ack.move), ack
                checked += 1
            audit = checked_get(f"{url}/v1/games/{game}/audit")
            assert audit.status_code == 200 and audit.json()["verified"], audit.text
    return checked


def stored_version(database_url: str, game: str) -> int:
    """The game's last stored version, read straight from the store's table."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT max(originator_version) FROM tabletop_events WHERE originator_id = %s",
            (uuid.UUID(game),),
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

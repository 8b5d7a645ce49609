"""`tabletop serve --workers 2`: each worker keeps its own cache of games, and a client's
requests land on either (a connection per request here). After a move is acknowledged,
every read shows it (read your writes) and never an older version than one already shown
(monotonic reads), legal moves never answer 403 to a seated player, no move with the right
expected version is refused, and a finished game reads as finished everywhere: its export,
audit and replay at the final version succeed. Both workers answered, and between them
applied every move once."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.faults.clients import Table, Target
from tests.faults.conftest import SCALE, Server, server_env

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]


class Reader(Table):
    """A client that reads the game back after each move, and checks what it reads."""

    def __init__(self, target: Target, games: int, seed: int) -> None:
        super().__init__(target, games, seats=3, seed=seed, reconnect=True)
        self.shown: dict[str, int] = {}  # the highest version of each game shown so far
        self.reads = 0

    def read(self, game: str, path: str, player: dict[str, str] | None = None) -> Any:
        answer = self.send("GET", f"/v1/games/{game}{path}", player)
        assert answer.status_code == 200, f"{path}: {answer.status_code} {answer.text}"
        self.reads += 1
        body = answer.json()
        version = body["version"]
        assert version >= self.shown.get(game, 0), f"{path}: older than already shown"
        self.shown[game] = version
        return body

    def answered(self, game: str, answer: dict[str, Any]) -> None:
        written = answer["version"]
        self.shown[game] = max(self.shown.get(game, 0), written)
        state = self.read(game, "")
        for seat in state["awaiting"]:  # seated: never a 403, never behind the write
            self.read(game, "/legal-moves", self.players[seat])
        state = self.read(game, "", self.players[0])
        assert state["version"] >= written

    def game_over(self, game: str) -> None:
        final = self.shown[game]
        for _ in range(4):  # on whichever worker answers
            state = self.read(game, "")
            assert (state["status"], state["version"]) == ("finished", final)
            export = self.send("GET", f"/v1/games/{game}/export")
            assert export.status_code == 200, export.text
            assert f'"version":{final},' in export.text.replace(" ", "")
            audit = self.send("GET", f"/v1/games/{game}/audit")
            assert audit.status_code == 200 and audit.json()["verified"], audit.text
            replay = self.send("GET", f"/v1/games/{game}/replay?version={final}")
            assert replay.status_code == 200, replay.text


def _both_answering(url: str, seconds: float = 120) -> None:
    """Until the second worker answers too (serve is up when the first one is): each
    counts the /metrics requests it answered, so a count below the number asked so far
    came from another worker."""
    deadline = time.monotonic() + seconds
    asked = 0
    while time.monotonic() < deadline:
        text = httpx.get(f"{url}/metrics", timeout=10).text
        found = re.search(r'^tabletop_http_requests_total{[^}]*route="/metrics"[^}]*} (\S+)$',
                          text, re.M)  # fmt: skip
        if (int(float(found.group(1))) if found else 0) < asked:
            return
        asked += 1
        time.sleep(0.05)
    raise AssertionError(f"a single worker answered {asked} requests in {seconds} s")


def _moves_applied_per_worker(url: str, moves: int, tries: int = 400) -> set[int]:
    """The moves each worker applied, from /metrics (each worker counts its own) asked on
    new connections until the two counts seen add up to every move."""
    seen: set[int] = set()
    for _ in range(tries):
        text = httpx.get(f"{url}/metrics", timeout=10).text
        found = re.search(r"^tabletop_moves_applied_total (\S+)$", text, re.M)
        assert found, text[:2000]
        seen.add(int(float(found.group(1))))
        if any(moves - count in seen for count in seen):
            break
    return seen


def test_two_workers_read_consistently(database: str, tmp_path: Any) -> None:
    server = Server(server_env(database), tmp_path / "serve.log", workers=2)
    server.start()
    try:
        _both_answering(server.url)
        target = Target(server.url)
        readers = [Reader(target, games=1 * SCALE, seed=i) for i in range(3)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.finish(120 * SCALE)
        moves = sum(len(r.acks) for r in readers)
        assert sum(r.seen.answers.get(409, 0) for r in readers) == 0
        workers = _moves_applied_per_worker(server.url, moves)
        fewer = min(workers)
        assert len(workers) <= 2 and moves - fewer in workers, (workers, moves)
        assert fewer > 0, f"one worker applied every move: {workers}"
        print("two workers:", moves, "moves,", sum(r.reads for r in readers), "reads", workers)
    finally:
        server.stop()

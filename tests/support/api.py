"""A small API client for tests: register players, create games, play them to the end."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import httpx
from eventsourcing.utils import get_topic

from service.signing import SigningKeyMade
from service.transparency import HeadSigned, LeafAppended


class Api:
    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def player(self, name: str = "p") -> dict[str, str]:
        r = self.client.post("/v1/players", json={"name": name})
        assert r.status_code == 201, r.text
        body: dict[str, str] = r.json()
        return body

    @staticmethod
    def auth(player: dict[str, str] | None, key: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {player['api_key']}"} if player else {}
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def create(
        self,
        player: dict[str, str],
        game: str,
        seats: int,
        bots: dict[int, str] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        body = {
            "game": game,
            "seats": seats,
            "bots": {str(s): b for s, b in (bots or {}).items()},
            **extra,
        }
        r = self.client.post("/v1/games", json=body, headers=self.auth(player))
        assert r.status_code == 201, r.text
        result: dict[str, Any] = r.json()
        return result

    def game(self, game_id: str, player: dict[str, str] | None = None) -> dict[str, Any]:
        r = self.client.get(f"/v1/games/{game_id}", headers=self.auth(player))
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def wait(
        self, game_id: str, version: int, player: dict[str, str] | None = None, timeout: float = 30
    ) -> dict[str, Any]:
        """The game once past `version` (the long poll), or as it is after `timeout` s."""
        r = self.client.get(
            f"/v1/games/{game_id}",
            params={"wait_for_version": version, "timeout_s": timeout},
            headers=self.auth(player),
            timeout=timeout + 30,  # the wait, and the answer after it
        )
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def settled(
        self, game_id: str, player: dict[str, str] | None = None, timeout: float = 60
    ) -> dict[str, Any]:
        """The game once no bot is to move: over, open, or awaiting only people's seats (in
        a simultaneous decision, the bots awaited beside a person decide first). Bots move
        after the request that leaves them awaited, on their own: this waits for them with
        the long poll (woken by each commit), `timeout` seconds at most."""
        deadline = time.monotonic() + timeout
        state = self.game(game_id, player)
        while True:
            if state["status"] != "active" or not self.bots_awaited(state):
                return state
            left = deadline - time.monotonic()
            assert left > 0, f"the bots of {game_id} did not move in {timeout} s: {state}"
            state = self.wait(game_id, state["version"], player, min(left, 30))

    @staticmethod
    def bots_awaited(state: dict[str, Any]) -> list[int]:
        """The awaited seats a bot decides for: bots' seats and forfeited ones."""
        bots = {seat["seat"] for seat in state["seats"] if seat["bot"]}
        bots |= {int(s) for s in state["forfeited"]}
        return [s for s in state["awaiting"] if s in bots]

    def legal(self, game_id: str, player: dict[str, str]) -> dict[str, Any]:
        r = self.client.get(f"/v1/games/{game_id}/legal-moves", headers=self.auth(player))
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def move(
        self, game_id: str, player: dict[str, str], version: int, move: Any, key: str | None = None
    ) -> httpx.Response:
        return self.client.post(
            f"/v1/games/{game_id}/moves",
            json={"expected_version": version, "move": move},
            headers=self.auth(player, key or uuid.uuid4().hex),
        )

    def play_out(
        self,
        game_id: str,
        seated: dict[int, dict[str, str]],
        rng: random.Random,
        on_step: Any = None,
    ) -> dict[str, Any]:
        """Every awaited human seat plays a random legal move until the game is finished."""
        while True:
            state = self.settled(game_id)
            if state["status"] != "active":
                return state
            seat = next(s for s in state["awaiting"] if s in seated)
            player = seated[seat]
            legal = self.legal(game_id, player)
            chosen = rng.choice(legal["moves"])
            r = self.move(game_id, player, legal["version"], chosen)
            assert r.status_code == 200, r.text
            answer = r.json()
            # the mover's next legal moves come with the answer exactly when it is awaited
            assert (answer["legal"] is not None) == (seat in answer["awaiting"]), answer
            if on_step is not None:
                on_step(seat, answer)


# What the service records by itself, whatever the requests: the transparency log's heads
# and leaves and its signing key (made by a thread of their own, at any moment).
_OWN = {get_topic(t) for t in (LeafAppended, HeadSigned, SigningKeyMade)}


def stored_events(api: Api) -> int:
    """How many events the requests so far have stored (a refusal must not change it)."""
    store = api.client.app.state.tabletop.store  # type: ignore[attr-defined]
    events = store.recorder.select_notifications(1, 1_000_000)
    return sum(e.topic not in _OWN for e in events)

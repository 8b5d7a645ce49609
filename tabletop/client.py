"""A typed client of API v1 over httpx: what a program needs to play (docs/api.md).

Answers decode into the client's own structs (`tabletop.answers`, which mirror the response
bodies of openapi/openapi.json), and a game's moves into its own command types (`commands`),
so a bot works with `ChooseRole(role="settler")`, not with dicts. Every write carries an
Idempotency-Key; a write whose answer is lost (a dropped connection, a 503) is sent again
with the same key, so it is applied once. A refusal raises `ApiError` with its stable code.
Other seats (bots too) move after the request that leaves the game to them: `wait` for them
with the long poll, never in a loop of reads.

    with Client("http://127.0.0.1:8000", key) as api:
        game = api.create_game("santa-maria", 2, seat=0, bots={1: "random"})
        legal = api.legal_moves(game.id)
        answer = api.move(game.id, legal.version, commands(game.game, legal.moves)[0])
        if answer.legal is None:  # the bot's turn: the game once it has moved
            game = api.wait(game.id, answer.version)
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any, TypeVar

import httpx
import msgspec

from domain.registry import GAMES
from tabletop.answers import (
    AuditOut,
    ClockOut,
    EventOut,
    EventPage,
    GameOut,
    GameType,
    GameTypeSchemas,
    LegalMoves,
    MoveResult,
    PlayerCreated,
    SeatClock,
    SeatOut,
)

__all__ = [
    "ApiError",
    "AuditOut",
    "Client",
    "ClockOut",
    "EventOut",
    "EventPage",
    "GameOut",
    "GameType",
    "GameTypeSchemas",
    "LegalMoves",
    "MoveResult",
    "PlayerCreated",
    "SeatClock",
    "SeatOut",
    "commands",
]

T = TypeVar("T")
NDJSON = "application/x-ndjson"
RETRIES = 3  # sends of one write whose answer was lost, after the first
BACKOFF = 0.2  # seconds before the first resend, doubled each time


class ApiError(Exception):
    """A refusal of the API (application/problem+json): `status`, its stable `code`, the
    `detail`, and on a version conflict the game's current `version`."""

    def __init__(self, status: int, code: str, detail: str, version: int | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.version = version


def commands(game: str, moves: list[dict[str, Any]]) -> list[Any]:
    """Legal moves as the game's command structs (`domain.<game>.commands`)."""
    command_type = GAMES[game].command_type
    return [msgspec.convert(move, command_type) for move in moves]


class Client:
    """One player's (or an anonymous reader's) connection to a Tabletop server."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        key: str | None = None,
        *,
        player: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.key = key
        self.player = player  # this key's player id, where known (`register` sets it)
        self.http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # ---- players and game types ------------------------------------------------------------

    def register(self, name: str) -> PlayerCreated:
        """A new player; the client then acts as it (its `api_key` is shown only here)."""
        created = self._send("POST", "/v1/players", PlayerCreated, json={"name": name})
        self.key, self.player = created.api_key, created.id
        return created

    def game_types(self) -> list[GameType]:
        return self._send("GET", "/v1/game-types", list[GameType])

    def game_type(self, game: str) -> GameTypeSchemas:
        """The game's options, commands, view and events as JSON Schema."""
        return self._send("GET", f"/v1/game-types/{game}", GameTypeSchemas)

    # ---- games ------------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        seats: int,
        *,
        seat: int | None = None,
        bots: dict[int, str] | None = None,
        options: dict[str, Any] | None = None,
        **more: Any,
    ) -> GameOut:
        """A new game (`more`: `clock`, `on_timeout`, `rated`, as POST /v1/games takes)."""
        body = {
            "game": game,
            "seats": seats,
            "seat": seat,
            "bots": {str(s): b for s, b in (bots or {}).items()},
            "options": options or {},
            **more,
        }
        return self._write("/v1/games", GameOut, body)

    def join(self, game_id: str, seat: int | None = None) -> GameOut:
        return self._write(f"/v1/games/{game_id}/join", GameOut, {"seat": seat})

    def resign(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/resign", GameOut)

    def leave(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/leave", GameOut)

    def abort(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/abort", GameOut)

    def rematch(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/rematch", GameOut)

    def games(self, **filters: str) -> Iterator[dict[str, Any]]:
        """Game summaries, newest first, every page (`game`, `status`, `player` filter)."""
        params: dict[str, Any] = {**filters, "limit": 100}
        while True:
            page = self._request("GET", "/v1/games", params=params).json()
            yield from page["games"]
            if not page.get("next_cursor"):
                return
            params["cursor"] = page["next_cursor"]

    def game(self, game_id: str) -> GameOut:
        """The game as this player may see it (its seat's view while it runs)."""
        return self._send("GET", f"/v1/games/{game_id}", GameOut)

    def wait(self, game_id: str, version: int, timeout_s: float = 30.0) -> GameOut:
        """The game once it is past `version` (or over), or as it is after `timeout_s`
        seconds (60 at most): a long poll, the way to wait for other seats (bots move after
        the request that leaves the game to them). Send the last version seen: the answer
        comes with the next commit, at once if there was one since."""
        params = {"wait_for_version": version, "timeout_s": timeout_s}
        read = self.http.timeout.read
        timeout = httpx.Timeout(  # the wait on top of what any answer may take
            self.http.timeout.connect, read=None if read is None else read + timeout_s
        )
        return self._send("GET", f"/v1/games/{game_id}", GameOut, params=params, timeout=timeout)

    def legal_moves(
        self, game_id: str, page: int = 1000, *, first: LegalMoves | None = None
    ) -> LegalMoves:
        """Every move this player's seat may make now, all pages joined; from `first` on
        where a first page is had already (a move's answer's `legal`: one request fewer)."""
        params = {"offset": 0, "limit": page}
        if first is None:
            path = f"/v1/games/{game_id}/legal-moves"
            first = self._send("GET", path, LegalMoves, params=params)
        while len(first.moves) < first.total:
            params["offset"] = len(first.moves)
            more = self._send("GET", f"/v1/games/{game_id}/legal-moves", LegalMoves, params=params)
            if more.version != first.version or not more.moves:  # the game moved on meanwhile
                return self.legal_moves(game_id, page)
            first.moves.extend(more.moves)
        return first

    def move(self, game_id: str, expected_version: int, move: Any) -> MoveResult:
        """Play `move` (a command struct or its JSON object) at `expected_version`; 409
        `version_conflict` (ApiError.version: the current one) when the game has moved. The
        answer comes once the move is saved (bots awaited next move after it: `wait` for
        them); its `legal` is the seat's next legal moves (the first page: `legal_moves(id,
        first=answer.legal)` reads the rest, if any) when the game awaits the seat again."""
        body = {"expected_version": expected_version, "move": msgspec.to_builtins(move)}
        return self._write(f"/v1/games/{game_id}/moves", MoveResult, body)

    def events(
        self, game_id: str, after: int = 0, seat: int | None = None, limit: int = 1000
    ) -> EventPage:
        """The events this player may see after version `after`, each with its `text`."""
        params: dict[str, Any] = {"after": after, "limit": limit}
        if seat is not None:
            params["seat"] = seat
        return self._send("GET", f"/v1/games/{game_id}/events", EventPage, params=params)

    def export(self, game_id: str) -> list[dict[str, Any]]:
        """A finished game's export lines (docs/export-format.md)."""
        r = self._request("GET", f"/v1/games/{game_id}/export")
        return [json.loads(line) for line in r.text.splitlines() if line.strip()]

    def audit(self, game_id: str) -> AuditOut:
        return self._send("GET", f"/v1/games/{game_id}/audit", AuditOut)

    def notices(self, after: int = 0) -> Iterator[dict[str, Any]]:
        """This player's notices across its games (`your_turn`, `game_finished`, ...), oldest
        first, then live as they come; resumes after id `after`. Runs until closed."""
        headers = {**self._auth(), "Accept": NDJSON}
        params = {"after": after}
        timeout = httpx.Timeout(self.http.timeout.connect, read=None)
        with self.http.stream(
            "GET", "/v1/players/me/stream", headers=headers, params=params, timeout=timeout
        ) as r:
            if r.status_code >= 400:
                r.read()
                raise _refusal(r)
            for line in r.iter_lines():
                if line.strip():  # a blank line keeps a quiet stream alive
                    yield json.loads(line)

    # ---- transport --------------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"} if self.key else {}

    def _send(self, method: str, path: str, into: type[T], **kwargs: Any) -> T:
        return msgspec.json.decode(self._request(method, path, **kwargs).content, type=into)

    def _write(self, path: str, into: type[T], body: dict[str, Any] | None = None) -> T:
        """A POST with a fresh Idempotency-Key, sent again with the same key while its
        answer is lost."""
        key = uuid.uuid4().hex
        return self._send("POST", path, into, json=body, headers={"Idempotency-Key": key})

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self._auth(), **kwargs.pop("headers", {})}
        pause = BACKOFF
        for attempt in range(RETRIES + 1):
            last = attempt == RETRIES
            try:
                r = self.http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError:
                if last:
                    raise
            else:
                if r.status_code < 400:
                    return r
                if r.status_code != 503 or last:
                    raise _refusal(r)
            time.sleep(pause)
            pause *= 2
        raise AssertionError("unreachable")


def _refusal(r: httpx.Response) -> ApiError:
    try:
        body = r.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    return ApiError(
        r.status_code,
        str(body.get("code", "error")),
        str(body.get("detail", r.text[:200])),
        body.get("version"),
    )

"""A typed client of Tabletop's API v1 over httpx: what a program needs to play (the server's
docs/api.md). It depends on httpx and msgspec only: nothing of the server's code.

Answers decode into `tabletop_client.models`, generated from the server's OpenAPI document:
a game's answer is its own game's type (`PuertoRicoGameOut`, whose `view` is a
`PuertoRicoGameView` and whose legal moves are `PuertoRicoChooseRole`, ...), told apart by the
answer's `game`. Every write carries an Idempotency-Key; a write whose answer is lost (a
dropped connection, a 503) is sent again with the same key, so it is applied once. A refusal
raises `ApiError` with its stable code. Other seats (bots too) move after the request that
leaves the game to them: `wait` for them with the long poll, never in a loop of reads.

    with Client("http://127.0.0.1:8000") as api:
        api.register("ada")
        game = api.create_game("santa-maria", 2, seat=0, bots={1: "random"})
        legal = api.legal_moves(game.id)
        answer = api.move(game.id, legal.version, legal.moves[0])
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

from tabletop_client.models import (
    AuditOut,
    EventPage,
    GameOut,
    GameType,
    GameTypeSchemas,
    LegalMoves,
    MoveResult,
    PlayerCreated,
)

T = TypeVar("T")
# Decoders of the answers (the unions pick each game's own types by the answer's `game`).
_PLAYER = msgspec.json.Decoder(PlayerCreated)
_GAME_TYPES = msgspec.json.Decoder(list[GameType])
_SCHEMAS = msgspec.json.Decoder(GameTypeSchemas)
_GAME: msgspec.json.Decoder[GameOut] = msgspec.json.Decoder(GameOut)
_LEGAL: msgspec.json.Decoder[LegalMoves] = msgspec.json.Decoder(LegalMoves)
_MOVED: msgspec.json.Decoder[MoveResult] = msgspec.json.Decoder(MoveResult)
_EVENTS: msgspec.json.Decoder[EventPage] = msgspec.json.Decoder(EventPage)
_AUDIT = msgspec.json.Decoder(AuditOut)
NDJSON = "application/x-ndjson"
RETRIES = 3  # sends of one write whose answer was lost, after the first
BACKOFF = 0.2  # seconds before the first resend, doubled each time


def game_of(answer: msgspec.Struct) -> str:
    """The game's type ("puerto-rico") of an answer typed per game (`PuertoRicoGameOut`,
    `PuertoRicoLegalMoves`, ...): the `game` the answer was told apart by, which msgspec
    keeps as its class's tag, not as a field."""
    tag = answer.__struct_config__.tag
    if not isinstance(tag, str):
        raise TypeError(f"{type(answer).__name__} is not typed per game")
    return tag


class ApiError(Exception):
    """A refusal of the API (application/problem+json): `status`, its stable `code`, the
    `detail`, and on a version conflict the game's current `version`."""

    def __init__(self, status: int, code: str, detail: str, version: int | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.version = version


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
        created = self._send("POST", "/v1/players", _PLAYER, json={"name": name})
        self.key, self.player = created.api_key, created.id
        return created

    def game_types(self) -> list[GameType]:
        return self._send("GET", "/v1/game-types", _GAME_TYPES)

    def game_type(self, game: str) -> GameTypeSchemas:
        """The game's options, commands, view and events as JSON Schema."""
        return self._send("GET", f"/v1/game-types/{game}", _SCHEMAS)

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
        return self._write("/v1/games", _GAME, body)

    def join(self, game_id: str, seat: int | None = None) -> GameOut:
        return self._write(f"/v1/games/{game_id}/join", _GAME, {"seat": seat})

    def resign(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/resign", _GAME)

    def leave(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/leave", _GAME)

    def abort(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/abort", _GAME)

    def rematch(self, game_id: str) -> GameOut:
        return self._write(f"/v1/games/{game_id}/rematch", _GAME)

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
        return self._send("GET", f"/v1/games/{game_id}", _GAME)

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
        return self._send("GET", f"/v1/games/{game_id}", _GAME, params=params, timeout=timeout)

    def legal_moves(
        self, game_id: str, page: int = 1000, *, first: LegalMoves | None = None
    ) -> LegalMoves:
        """Every move this player's seat may make now, all pages joined; from `first` on
        where a first page is had already (a move's answer's `legal`: one request fewer)."""
        params = {"offset": 0, "limit": page}
        if first is None:
            path = f"/v1/games/{game_id}/legal-moves"
            first = self._send("GET", path, _LEGAL, params=params)
        moves: list[Any] = list(first.moves)
        while len(moves) < first.total:
            params["offset"] = len(moves)
            more = self._send("GET", f"/v1/games/{game_id}/legal-moves", _LEGAL, params=params)
            if more.version != first.version or not more.moves:  # the game moved on meanwhile
                return self.legal_moves(game_id, page)
            moves += more.moves
        return msgspec.structs.replace(first, moves=moves)

    def move(self, game_id: str, expected_version: int, move: Any) -> MoveResult:
        """Play `move` (a command struct or its JSON object) at `expected_version`; 409
        `version_conflict` (ApiError.version: the current one) when the game has moved. The
        answer comes once the move is saved (bots awaited next move after it: `wait` for
        them); its `legal` is the seat's next legal moves (the first page: `legal_moves(id,
        first=answer.legal)` reads the rest, if any) when the game awaits the seat again."""
        body = {"expected_version": expected_version, "move": msgspec.to_builtins(move)}
        return self._write(f"/v1/games/{game_id}/moves", _MOVED, body)

    def events(
        self, game_id: str, after: int = 0, seat: int | None = None, limit: int = 1000
    ) -> EventPage:
        """The events this player may see after version `after`, each with its `text`."""
        params: dict[str, Any] = {"after": after, "limit": limit}
        if seat is not None:
            params["seat"] = seat
        return self._send("GET", f"/v1/games/{game_id}/events", _EVENTS, params=params)

    def export(self, game_id: str) -> list[dict[str, Any]]:
        """A finished game's export lines (docs/export-format.md)."""
        r = self._request("GET", f"/v1/games/{game_id}/export")
        return [json.loads(line) for line in r.text.splitlines() if line.strip()]

    def audit(self, game_id: str) -> AuditOut:
        return self._send("GET", f"/v1/games/{game_id}/audit", _AUDIT)

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

    def _send(self, method: str, path: str, into: msgspec.json.Decoder[T], **kwargs: Any) -> T:
        return into.decode(self._request(method, path, **kwargs).content)

    def _write(
        self, path: str, into: msgspec.json.Decoder[T], body: dict[str, Any] | None = None
    ) -> T:
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

"""Players: registration and the stream tokens a browser's EventSource signs in with."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, post
from litestar.params import JSONBody

from api import schemas as s
from api import stream_tokens
from api.answers import BEARER, LOCATION
from api.bootstrap import SettingsGiven, Shared
from api.errors import documented

# ---- players ----------------------------------------------------------------------------


@post(
    "/v1/players",
    operation_id="createPlayer",
    tags=["players"],
    sync_to_thread=True,
    response_headers=[LOCATION],
    responses=documented(400, 415, 422),
)
def create_player(tabletop: Shared, data: JSONBody[s.NewPlayer]) -> Response[s.PlayerCreated]:
    """Register a player. The API key is shown once; only its salted hash is kept. Send it
    as `Authorization: Bearer <api_key>`; the profile is at `Location`.

    Example: POST /v1/players {"name": "ada"}"""
    player, key = tabletop.players.register(data.name)
    body = s.PlayerCreated(player.id, player.name, key)
    return Response(body, status_code=201, headers={"Location": f"/v1/players/{player.id}"})


@post(
    "/v1/stream-tokens",
    operation_id="createStreamToken",
    tags=["players"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    responses=documented(400, 401),
)
def create_stream_token(
    request: Request[Any, Any, Any], tabletop: Shared, settings: SettingsGiven
) -> s.StreamToken:
    """A short-lived token for the stream routes. It is for a browser's EventSource, which
    cannot send an Authorization header: open `/v1/games/{id}/stream?token=...` or
    `/v1/players/me/stream?token=...` with it before `expires_at` (it is accepted nowhere
    else; a reconnecting EventSource needs a fresh one once it expires). Never put the API
    key itself in a URL.

    Example: POST /v1/stream-tokens"""
    t = tabletop
    player = t.caller(request, required=True)
    assert player is not None
    ttl = settings.stream_token_ttl_s
    token, expires_at = stream_tokens.issue(t.players, player, ttl)
    return s.StreamToken(token=token, expires_at=expires_at, expires_in=ttl)

"""Stream tokens: how a browser's EventSource, which cannot send an Authorization header,
opens a stream as its player. `POST /v1/stream-tokens` (with the key) gives a token valid
for a few minutes, accepted as `?token=` on the two Server-Sent Events routes and nowhere
else, so an API key never goes into a URL (nor into logs and browser history with it).

A token names its player and expiry and is signed (HMAC-SHA256) with that player's stored
key hash, a secret the server already has in the store: any process of the database checks
it, and nothing new is kept.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from datetime import UTC, datetime

from service.chain import at_text
from service.errors import Unauthorized
from service.players import Player, Players

PREFIX = "st"


def _signature(key: str, player_id: str, expires: int) -> str:
    mac = hmac.new(key.encode(), f"stream:{player_id}:{expires}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode()


def issue(players: Players, player: Player, ttl_s: int) -> tuple[str, str]:
    """A token for `player` and the time it expires (RFC 3339)."""
    key = players.signing_key(player.id)
    assert key is not None, "an authenticated player has a key"
    expires = int(time.time()) + ttl_s
    token = f"{PREFIX}_{player.id}_{expires}_{_signature(key, player.id, expires)}"
    return token, at_text(datetime.fromtimestamp(expires, UTC))


def check(players: Players, token: str) -> Player:
    """The player a valid, unexpired token names; 401 `invalid_stream_token` otherwise."""
    prefix, player_id, expires, signature = [*token.split("_", 3), "", "", ""][:4]
    key = players.signing_key(player_id) if prefix == PREFIX and expires.isdigit() else None
    player = players.get(player_id) if key is not None else None
    if (
        player is None
        or key is None
        or not hmac.compare_digest(signature, _signature(key, player_id, int(expires)))
    ):
        raise Unauthorized("invalid_stream_token", "the stream token is not one this API gave")
    if int(expires) < time.time():
        raise Unauthorized("invalid_stream_token", "the stream token has expired; ask another")
    return player

"""Players and their API keys. A key is `tt_<player id hex>_<secret>`; only a salted SHA-256
of the secret is stored (keys are 256-bit random, so a slow hash would buy nothing but
latency on every request)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from uuid import UUID

from service.bounded import BoundedMap
from service.chain import at_text
from service.errors import Unprocessable
from service.store import EventStoreApp, PlayerRegistered

# Player streams live beside game streams; a fixed namespace keeps their ids apart.
MAX_NAME = 64
# Players whose key checks need no store read: about 300 bytes each.
PLAYERS_KEPT = 50_000


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    created_at: str


class Players:
    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._cache: BoundedMap[str, tuple[Player, str, str]] = BoundedMap(PLAYERS_KEPT)

    def register(self, name: str) -> tuple[Player, str]:
        name = name.strip()
        if not name or len(name) > MAX_NAME or not name.isprintable():
            raise Unprocessable("invalid_name", f"name must be 1-{MAX_NAME} printable characters")
        pid = uuid.uuid4()
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        event = PlayerRegistered(
            originator_id=pid,
            originator_version=1,
            timestamp=PlayerRegistered.create_timestamp(),
            name=name,
            salt=salt,
            key_hash=_hash(salt, secret),
        )
        self._store.save(event)
        player = Player(pid.hex, name, at_text(event.timestamp))
        return player, f"tt_{pid.hex}_{secret}"

    def authenticate(self, api_key: str) -> Player | None:
        parts = api_key.split("_", 2)
        if len(parts) != 3 or parts[0] != "tt" or len(parts[1]) != 32:
            return None
        record = self._record(parts[1])
        if record is None:
            return None
        player, salt, key_hash = record
        return player if hmac.compare_digest(_hash(salt, parts[2]), key_hash) else None

    def known(self, api_key: str) -> bool:
        """Whether checking `api_key` needs no store read (its player is in memory)."""
        parts = api_key.split("_", 2)
        return len(parts) == 3 and parts[1] in self._cache

    def get(self, player_id: str) -> Player | None:
        record = self._record(player_id)
        return record[0] if record else None

    def signing_key(self, player_id: str) -> str | None:
        """A secret of the player's known only to the server (its key's stored hash): what
        short-lived tokens for the player are signed with."""
        record = self._record(player_id)
        return record[2] if record else None

    def _record(self, player_id: str) -> tuple[Player, str, str] | None:
        cached = self._cache.get(player_id)
        if cached is not None:
            return cached
        try:
            pid = UUID(hex=player_id)
        except ValueError:
            return None
        events = list(self._store.events.get(pid, limit=1))
        if not events or not isinstance(events[0], PlayerRegistered):
            return None
        e = events[0]
        record = (Player(pid.hex, e.name, at_text(e.timestamp)), e.salt, e.key_hash)
        self._cache.put(player_id, record)
        return record


def _hash(salt: str, secret: str) -> str:
    return hashlib.sha256(f"{salt}:{secret}".encode()).hexdigest()

"""The service's Ed25519 signing keys: made on first use, kept in the store as events of a
stream of their own (so both stores keep them, and every process of a database signs with
the same key), rotated by appending a newer one. Every key ever made stays published
(`GET /v1/keys`) so that what an older key signed still verifies.

The key id is the first 16 hex digits of the SHA-256 of the raw 32-byte public key.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from dataclasses import dataclass
from typing import Any

import structlog
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import RecordConflictError

from service.chain import now_text
from service.store import EventStoreApp

log = structlog.get_logger("tabletop.signing")

KEYS_STREAM = uuid.uuid5(uuid.UUID("0c0d7c1e-5d8a-4f55-9a3e-6b1f7f3c2a40"), "signing-keys")
ALGORITHM = "ed25519"
_RAW = serialization.Encoding.Raw


@dataclass(frozen=True)
class SigningKeyMade(DomainEvent):
    """A signing key; the stream's last one signs from then on. (No field is called `at`:
    the store reads that as a game event's time.)"""

    key_id: str
    public_key: str  # raw 32 bytes, hex
    private_key: str  # raw 32 bytes, hex: whoever reads the store can sign
    made_at: str


def key_id_of(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()[:16]


def public_out(key: SigningKeyMade, current: bool) -> dict[str, Any]:
    return {
        "key_id": key.key_id,
        "algorithm": ALGORITHM,
        "public_key": key.public_key,
        "created_at": key.made_at,
        "current": current,
    }


class Signer:
    """Signs with the store's current key (made on first use)."""

    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._keys: list[SigningKeyMade] = []
        self._lock = threading.Lock()

    def published(self) -> list[SigningKeyMade]:
        """Every key, oldest first (one made if there is none yet); read again each time,
        since another process may have rotated."""
        with self._lock:
            self._refresh()
            if not self._keys:
                self._make()
            return list(self._keys)

    def rotate(self) -> SigningKeyMade:
        """A new key that signs from now on."""
        with self._lock:
            self._refresh()
            self._make()
            log.info("signing_key_rotated", key_id=self._keys[-1].key_id)
            return self._keys[-1]

    def sign(self, statement: Any) -> dict[str, str]:
        """{"key_id", "signature"} over `statement(key_id)`'s bytes, with the current key."""
        key = self.published()[-1]
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key.private_key))
        return {"key_id": key.key_id, "signature": private.sign(statement(key.key_id)).hex()}

    def _refresh(self) -> None:
        after = len(self._keys) or None
        for event in self._store.events.get(KEYS_STREAM, gt=after):
            assert isinstance(event, SigningKeyMade), "the keys stream holds keys"
            self._keys.append(event)

    def _make(self) -> None:
        private = Ed25519PrivateKey.generate()
        public = private.public_key().public_bytes(_RAW, serialization.PublicFormat.Raw)
        event = SigningKeyMade(
            originator_id=KEYS_STREAM,
            originator_version=len(self._keys) + 1,
            timestamp=SigningKeyMade.create_timestamp(),
            key_id=key_id_of(public),
            public_key=public.hex(),
            private_key=private.private_bytes(
                _RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption()
            ).hex(),
            made_at=now_text(),
        )
        try:
            self._store.save(event)
            log.info("signing_key_made", key_id=event.key_id)
        except RecordConflictError:
            pass  # another process made it first: theirs is the key
        self._refresh()


# ---- for verifiers (no store) ---------------------------------------------------------------


def signature_valid(public_hex: str, message: bytes, signature_hex: str) -> bool:
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        public.verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def parse_keys(text: str) -> dict[str, str]:
    """Public keys by key id, from what `GET /v1/keys` answers (or one of its keys) or from
    a PEM public key. ValueError when it is none of these."""
    if "-----BEGIN PUBLIC KEY-----" in text:
        public = serialization.load_pem_public_key(text.encode())
        if not isinstance(public, Ed25519PublicKey):
            raise ValueError("the PEM key is not an Ed25519 public key")
        raw = public.public_bytes(_RAW, serialization.PublicFormat.Raw)
        return {key_id_of(raw): raw.hex()}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"neither a PEM public key nor JSON: {error}") from None
    listed = document.get("keys", [document]) if isinstance(document, dict) else document
    keys: dict[str, str] = {}
    for key in listed if isinstance(listed, list) else []:
        public_hex = key.get("public_key") if isinstance(key, dict) else None
        try:
            raw = bytes.fromhex(public_hex) if isinstance(public_hex, str) else b""
        except ValueError:
            raw = b""
        if len(raw) == 32 and key.get("algorithm", ALGORITHM) == ALGORITHM:
            keys[key_id_of(raw)] = raw.hex()  # the id is the key's own, whatever it claims
    if not keys:
        raise ValueError("no Ed25519 public key in it")
    return keys

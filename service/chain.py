"""The export line format, its hash chain and the statements the service signs
(docs/export-format.md).

Kept free of our own types so the code reads like what a third-party verifier writes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

FORMAT = "tabletop-game/2"  # client seeds mixed into the randomness, signed, logged
FORMAT_1 = "tabletop-game/1"  # the server's seed alone (games created before /2)
FORMATS = (FORMAT_1, FORMAT)
# game_created's "randomness" in a /2 game: how the rules' seed is made (`rules_seed`).
RANDOMNESS = "hmac-sha256(server seed, [game id, client seeds])"
GENESIS = "0" * 64
LINE_FIELDS = ("version", "type", "seat", "at", "command", "idempotency_key", "data", "prev_hash")


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def line_hash(line: dict[str, Any]) -> str:
    """SHA-256 of prev_hash's bytes then the line's canonical JSON without its `hash`."""
    body = {k: v for k, v in line.items() if k != "hash"}
    return hashlib.sha256(str(line.get("prev_hash")).encode() + canonical(body)).hexdigest()


def rules_seed(server_seed: bytes, game_id: str, client_seeds: list[str]) -> bytes:
    """The seed of a /2 game's randomness: HMAC-SHA256 keyed by the server's committed seed
    over the canonical JSON of [game id, each seat's client seed in seat order]."""
    return hmac.new(server_seed, canonical([game_id, *client_seeds]), hashlib.sha256).digest()


def leaf_data(kind: str, subject: str, final_hash: str) -> bytes:
    """What the transparency log holds for an ended game or a finished tournament."""
    return canonical({"kind": kind, "id": subject, "final_hash": final_hash})


def export_statement(header: dict[str, Any], final_hash: str, key_id: str) -> bytes:
    """What an export's footer signature signs: its header and its last event's hash (which
    covers every event, the revealed seed and the result)."""
    return canonical({"header": header, "final_hash": final_hash, "key_id": key_id})


def head_statement(head: dict[str, Any]) -> bytes:
    """What a signed tree head's signature signs: the head without its signature."""
    return canonical({k: v for k, v in head.items() if k != "signature"})


def now_text() -> str:
    return at_text(datetime.now(UTC))


def at_text(moment: datetime) -> str:
    """A moment as every timestamp of the API and the exports: RFC 3339 in UTC, to the
    microsecond, with a `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

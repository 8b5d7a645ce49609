"""The export line format and its hash chain (docs/export-format.md).

Kept free of our own types so the code reads like what a third-party verifier writes.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

FORMAT = "tabletop-game/1"
GENESIS = "0" * 64
LINE_FIELDS = ("version", "type", "seat", "at", "command", "idempotency_key", "data", "prev_hash")


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def line_hash(line: dict[str, Any]) -> str:
    """SHA-256 of prev_hash's bytes then the line's canonical JSON without its `hash`."""
    body = {k: v for k, v in line.items() if k != "hash"}
    return hashlib.sha256(str(line.get("prev_hash")).encode() + canonical(body)).hexdigest()


def now_text() -> str:
    return at_text(datetime.now(UTC))


def at_text(moment: datetime) -> str:
    """A moment as every timestamp of the API and the exports: RFC 3339 in UTC, to the
    microsecond, with a `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

"""A bare stored event for tests and benchmarks of the store itself (no game, no chain), and
what a stream holds."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from service.store import EventStoreApp, Recorded


def bare_event(stream: uuid.UUID, version: int, data: Any) -> Recorded:
    now = datetime.now(UTC)
    return Recorded(
        originator_id=stream,
        originator_version=version,
        timestamp=now,
        type="committed",
        seat=0,
        at=now.isoformat(),
        command=None,
        idempotency_key=None,
        data=data,
        prev_hash="",
        hash="",
    )


def stored_versions(store: EventStoreApp, stream: uuid.UUID) -> list[int]:
    """The versions a stream holds in the store, in order (a gap-free log is 1..n)."""
    return [r.originator_version for r in store.recorder.select_events(stream)]

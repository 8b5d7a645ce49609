"""A tournament's stream: its events (`tournament_*` types) and their fold.

Pure reading, shared by the tournament service, the audit of a tournament's export and
the read model.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec

from domain.tournaments.state import Tournament, evolve
from service.errors import NotFound
from service.store import EventStoreApp, Recorded

PREFIX = "tournament_"


class Folded(msgspec.Struct):
    """A tournament and where its stream stands."""

    state: Any  # Tournament
    version: int
    last_hash: str
    organiser: str
    last_at: str = ""  # the stamp of its last event
    # The Idempotency-Keys of the requests written: key -> the first event it wrote (its
    # type without the prefix, and its data).
    keys: dict[str, dict[str, Any]] = {}


def read_tournament(store: EventStoreApp, tournament_id: UUID) -> Folded:
    """The tournament as its stored stream holds it now (404 when there is none)."""
    events = list(store.events.get(tournament_id))
    if not events or not isinstance(events[0], Recorded) or events[0].type != f"{PREFIX}created":
        raise NotFound("tournament_not_found", f"no tournament {tournament_id}")
    state = fold_stream(tournament_id, events)
    last: Any = events[-1]
    organiser = events[0].data["organiser"]
    keys: dict[str, dict[str, Any]] = {}
    for e in events:
        assert isinstance(e, Recorded)
        key = e.idempotency_key
        if key is not None and key not in keys:
            keys[key] = {"type": e.type[len(PREFIX) :], **e.data}
    return Folded(state, last.originator_version, last.hash, organiser, last.at, keys)


def fold_stream(tournament_id: UUID, events: list[Any]) -> Tournament:
    """A tournament from its stored events (`Recorded`, or export lines as namespaces)."""
    state: Tournament | None = None
    for e in events:
        state = evolve(state, str(tournament_id), {"type": e.type[len(PREFIX) :], **e.data})
    assert state is not None, "a tournament stream starts with its created event"
    return state

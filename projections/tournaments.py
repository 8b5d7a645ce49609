"""The tournaments list: one row per tournament (status, game, format, entrants, the
current round, the start time and the standings), folded from its stream by the domain's
own functions. The director finds the open tournaments it must start by the summary's
`starts_at` (projections/views.py `running_tournaments`)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec

from domain.tournaments.standings import standings
from service.tournament_log import fold_stream


class TournamentSummary(msgspec.Struct, kw_only=True):
    """A tournament as the tournaments list shows it."""

    id: str  # the tournament's id (a UUID): GET /v1/tournaments/{id}
    name: str  # as created, or the game's title and the format (`Puerto Rico swiss`)
    game: str  # the game type: a `name` of GET /v1/game-types
    format: str  # swiss | round-robin | knockout
    status: str  # open | running | finished | cancelled
    table_size: int  # seats per table
    entrants: int  # how many are registered (those who withdrew after the start too)
    round: int  # the current (or last) round; 0 before the start
    created_at: str  # when it was created (RFC 3339, UTC)
    # When it starts by itself (RFC 3339, UTC), or is cancelled with too few entrants; null:
    # its organiser starts it.
    starts_at: str | None = None
    # As in GET /v1/tournaments/{id}: one line per entrant, best first (place, entrant, ...)
    standings: list[dict[str, Any]]


def tournament_row(tournament_id: UUID, events: list[Any], seq: int) -> dict[str, Any]:
    state = fold_stream(tournament_id, events)
    summary = TournamentSummary(
        id=str(tournament_id),
        name=state.config["name"],
        game=state.config["game"],
        format=state.config["format"],
        status=state.status,
        table_size=state.table_size,
        entrants=len(state.entrants),
        round=len(state.rounds),
        created_at=events[0].at,
        starts_at=state.config.get("starts_at"),
        standings=state.standings or standings(state),
    )
    return {
        "id": str(tournament_id),
        "seq": seq,
        "status": state.status,
        "summary": msgspec.json.encode(summary).decode(),
    }


decode = msgspec.json.Decoder(TournamentSummary).decode

"""The tournaments list: one row per tournament (status, game, format, entrants, the
current round and the standings), folded from its stream by the domain's own functions."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec

from domain.tournaments.standings import standings
from service.tournament_log import fold_stream


class TournamentSummary(msgspec.Struct, kw_only=True):
    id: str
    name: str
    game: str
    format: str
    status: str  # open | running | finished
    table_size: int
    entrants: int
    round: int  # the current (or last) round; 0 before the start
    created_at: str
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
        standings=state.standings or standings(state),
    )
    return {
        "id": str(tournament_id),
        "seq": seq,
        "status": state.status,
        "summary": msgspec.json.encode(summary).decode(),
    }


decode = msgspec.json.Decoder(TournamentSummary).decode

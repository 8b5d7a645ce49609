"""The per-game summary kept by the read model: who sits where, status, whose turn, last
activity and the result. Built from a game's fold, so the list, the lobby and the player
history show exactly what the game service would."""

from __future__ import annotations

from typing import Any

import msgspec

from service.fold import Fold


class SeatSummary(msgspec.Struct):
    seat: int
    player: str | None  # None for a bot or a free seat
    name: str | None
    bot: str | None


class ResultSummary(msgspec.Struct):
    scores: list[int]
    ranks: list[int]  # 1 for the winner(s)


class GameSummary(msgspec.Struct, kw_only=True):
    id: str
    game: str
    status: str  # open | active | finished
    version: int
    seats: list[SeatSummary]
    open_seats: list[int]  # free seats a player may join (the lobby)
    awaiting: list[int]  # whose decision the game waits for
    created_at: str
    created_by: str | None
    last_activity: str
    result: ResultSummary | None


def summarize(fold: Fold) -> GameSummary:
    result = fold.result
    return GameSummary(
        id=str(fold.id),
        game=fold.game.name,
        status=fold.status,
        version=fold.version,
        seats=[
            SeatSummary(s, fold.players[s], fold.names[s], fold.bots.get(s))
            for s in range(fold.seats)
        ],
        open_seats=fold.free_seats() if fold.status == "open" else [],
        awaiting=fold.awaiting(),
        created_at=fold.created_at,
        created_by=fold.created_by,
        last_activity=fold.last_at,
        result=ResultSummary(list(result.scores), list(result.ranks)) if result else None,
    )


def seat_rows(summary: GameSummary) -> list[dict[str, Any]]:
    """One row per seat a player holds (bots have no history): the player's history rows."""
    result = summary.result
    return [
        {
            "seat": s.seat,
            "player_id": s.player,
            "rank": result.ranks[s.seat] if result else None,
            "score": result.scores[s.seat] if result else None,
        }
        for s in summary.seats
        if s.player is not None
    ]


encode = msgspec.json.Encoder().encode
decode = msgspec.json.Decoder(GameSummary).decode

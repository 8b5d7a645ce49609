"""The per-game summary kept by the read model: who sits where, status, whose turn, last
activity and the result. Built from a game's fold, so the list, the lobby and the player
history show exactly what the game service would."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.contract import Result
from service.clocks import stamp
from service.fold import Fold


class SeatSummary(msgspec.Struct):
    seat: int
    player: str | None  # None for a bot or a free seat
    name: str | None
    bot: str | None


class ResultSummary(msgspec.Struct):
    scores: list[int]
    ranks: list[int]  # 1 for the winner(s)
    forfeited: dict[str, str] = {}  # seat -> "resigned" | "timed_out": ranked last


class GameSummary(msgspec.Struct, kw_only=True):
    id: str
    game: str
    status: str  # open | active | finished | aborted
    version: int
    seats: list[SeatSummary]
    open_seats: list[int]  # free seats a player may join (the lobby)
    awaiting: list[int]  # whose decision the game waits for
    created_at: str
    created_by: str | None
    last_activity: str
    result: ResultSummary | None
    deadline: str | None = None  # when the first running clock runs out
    rematch_of: str | None = None
    rematch: str | None = None


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
        result=_result(result) if result else None,
        deadline=stamp(deadline) if (deadline := fold.next_deadline()) is not None else None,
        rematch_of=fold.rematch_of,
        rematch=fold.rematch,
    )


def _result(result: Result) -> ResultSummary:
    forfeited = result.details.get("forfeited") or {}
    return ResultSummary(list(result.scores), list(result.ranks), dict(forfeited))


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

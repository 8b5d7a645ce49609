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
    """One seat of a game in the lists: who holds it and who plays it."""

    seat: int  # the seat's number, from 0
    player: str | None  # None for a bot or a free seat
    name: str | None  # the player's name, or `<bot> bot` for a bot's; null for a free seat
    # The bot that plays it: a bot's seat, or `random` once a player's seat has forfeited;
    # null for a seat a player plays (or a free one).
    bot: str | None


class ResultSummary(msgspec.Struct):
    """A finished game's outcome, per seat in seat order."""

    scores: list[int]  # each seat's final score, in seat order
    ranks: list[int]  # each seat's final rank, in seat order: 1 for the winner(s)
    # seat -> "resigned" | "timed_out" | "withdrawn": ranked last
    forfeited: dict[str, str] = {}


class GameSummary(msgspec.Struct, kw_only=True):
    """A game as the games list, the lobby and the player profiles show it."""

    id: str  # the game's id (a UUID): GET /v1/games/{id}
    game: str  # the game's type: a `name` of GET /v1/game-types
    status: str  # open | active | finished | aborted
    version: int  # how many events the game has
    seats: list[SeatSummary]  # one per seat, in seat order
    open_seats: list[int]  # free seats a player may join (the lobby)
    awaiting: list[int]  # whose decision the game waits for
    created_at: str  # when the game was created (RFC 3339, UTC)
    created_by: str | None  # the creator's player id; null for a tournament's table
    last_activity: str  # when its last event was recorded (RFC 3339, UTC)
    result: ResultSummary | None  # once finished; null before, and for an aborted game
    # When the first running clock runs out (RFC 3339, UTC); null when no clock runs.
    deadline: str | None = None
    rematch_of: str | None = None  # the game this one is a rematch of
    rematch: str | None = None  # the rematch offered after this game


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

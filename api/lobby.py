"""Reads served from the read models: the games list (the lobby when filtered on open games)
and the player profile with its history. The read models trail the log by the projection
lag (see /metrics), usually milliseconds."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from litestar import Request, get
from litestar.params import FromPath, FromQuery, QueryParameter

from api.errors import documented
from projections.summary import GameSummary, decode
from service.errors import NotFound, Problem

if TYPE_CHECKING:
    from api.app import Tabletop

RECENT = 10
_CURSOR = b"games:"


class GamePage(msgspec.Struct):
    games: list[GameSummary]  # newest first
    next_cursor: str | None  # pass as `cursor` for the next page; null on the last page


class GameTypeRecord(msgspec.Struct):
    game: str
    played: int  # games seated in, in any status
    finished: int
    wins: int  # finished games ranked first (ties included)


class RecentGame(msgspec.Struct):
    seat: int
    rank: int | None  # final rank once finished
    score: int | None
    game: GameSummary


class PlayerProfile(msgspec.Struct, kw_only=True):
    id: str
    name: str
    created_at: str
    games: list[GameTypeRecord]
    recent: list[RecentGame]  # newest first


def _tabletop(request: Request[Any, Any, Any]) -> Tabletop:
    tabletop: Tabletop = request.app.state.tabletop
    return tabletop


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(_CURSOR + str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The creation position a page continues before; opaque to clients."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        digits = raw[len(_CURSOR) :]
        if raw.startswith(_CURSOR) and digits.isdigit() and len(digits) <= 18:
            return int(digits)
    except (binascii.Error, ValueError):
        pass
    raise Problem("invalid_cursor", "the cursor is not one this API gave out")


@get(
    "/v1/games",
    operation_id="listGames",
    tags=["games"],
    sync_to_thread=True,
    responses=documented(400),
)
def list_games(
    request: Request[Any, Any, Any],
    game: Annotated[str | None, QueryParameter(min_length=1, max_length=64)] = None,
    status: FromQuery[Literal["open", "active", "finished", "aborted"] | None] = None,
    player: Annotated[str | None, QueryParameter(min_length=1, max_length=64)] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, QueryParameter(min_length=1, max_length=200)] = None,
) -> GamePage:
    """Games newest first, filtered by game type, status and seated player; `status=open`
    is the lobby (`open_seats` lists the seats to join). Pages never skip or repeat a game
    while new games are created: the cursor marks a position in creation order."""
    reads = _tabletop(request).reads
    before = decode_cursor(cursor) if cursor is not None else None
    rows = reads.list_games(game, status, player, before, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return GamePage(
        games=[decode(summary) for _, summary in rows],
        next_cursor=encode_cursor(rows[-1][0]) if more else None,
    )


@get(
    "/v1/players/{player_id:str}",
    operation_id="getPlayer",
    tags=["players"],
    sync_to_thread=True,
    responses=documented(404),
)
def get_player(request: Request[Any, Any, Any], player_id: FromPath[str]) -> PlayerProfile:
    """The player, games played and won per game type, and the recent games with their
    final rank and score."""
    t = _tabletop(request)
    player = t.players.get(player_id)
    if player is None:
        raise NotFound("player_not_found", f"no player {player_id}")
    return PlayerProfile(
        id=player.id,
        name=player.name,
        created_at=player.created_at,
        games=[msgspec.convert(r, GameTypeRecord) for r in t.reads.player_stats(player.id)],
        recent=[
            RecentGame(r["seat"], r["rank"], r["score"], decode(r["summary"]))
            for r in t.reads.player_recent(player.id, RECENT)
        ],
    )

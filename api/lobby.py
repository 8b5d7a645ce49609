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


class Rating(msgspec.Struct, kw_only=True):
    game: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma: what the leaderboard ranks by
    games: int  # rated games played


class PlayerProfile(msgspec.Struct, kw_only=True):
    id: str  # a player's id, or `bot:<name>` for a bot
    name: str
    created_at: str | None  # None for a bot
    games: list[GameTypeRecord]
    recent: list[RecentGame]  # newest first
    ratings: list[Rating] = []  # per game type, once a rated game is finished


def _tabletop(request: Request[Any, Any, Any]) -> Tabletop:
    tabletop: Tabletop = request.app.state.tabletop
    return tabletop


def encode_cursor(seq: int, kind: bytes = _CURSOR) -> str:
    return base64.urlsafe_b64encode(kind + str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, kind: bytes = _CURSOR) -> int:
    """The position a page continues from (a creation position, or an offset in a
    ranking, by `kind`); opaque to clients."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        digits = raw[len(kind) :]
        if raw.startswith(kind) and digits.isdigit() and len(digits) <= 18:
            return int(digits)
    except (binascii.Error, ValueError):
        pass
    raise Problem("invalid_cursor", "the cursor is not one this API gave out")


def page(
    rows: list[tuple[int, bytes]], limit: int, kind: bytes = _CURSOR
) -> tuple[list[bytes], str | None]:
    """A page of (position, summary) rows read `limit + 1` at a time: the summaries, and
    the cursor of the next page (None on the last one)."""
    shown = rows[:limit]
    return [summary for _, summary in shown], (
        encode_cursor(shown[-1][0], kind) if len(rows) > limit else None
    )


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
    reads = _tabletop(request).listings
    before = decode_cursor(cursor) if cursor is not None else None
    rows = reads.list_games(game, status, player, before, limit + 1)
    summaries, next_cursor = page(rows, limit)
    return GamePage(games=[decode(summary) for summary in summaries], next_cursor=next_cursor)


@get(
    "/v1/players/{player_id:str}",
    operation_id="getPlayer",
    tags=["players"],
    sync_to_thread=True,
    responses=documented(404),
)
def get_player(request: Request[Any, Any, Any], player_id: FromPath[str]) -> PlayerProfile:
    """The player, games played and won per game type, the recent games with their final
    rank and score, and its rating per game type. Bots have profiles too: `bot:greedy`."""
    t = _tabletop(request)
    ratings = [msgspec.convert(r, Rating) for r in t.listings.ratings_of(player_id)]
    if player_id.startswith("bot:") and ratings:
        name = f"{player_id.removeprefix('bot:')} bot"
        return PlayerProfile(id=player_id, name=name, created_at=None, games=[], recent=[],
                             ratings=ratings)  # fmt: skip
    player = t.players.get(player_id)
    if player is None:
        raise NotFound("player_not_found", f"no player {player_id}")
    return PlayerProfile(
        ratings=ratings,
        id=player.id,
        name=player.name,
        created_at=player.created_at,
        games=[msgspec.convert(r, GameTypeRecord) for r in t.listings.player_stats(player.id)],
        recent=[
            RecentGame(r["seat"], r["rank"], r["score"], decode(r["summary"]))
            for r in t.listings.player_recent(player.id, RECENT)
        ],
    )

"""Reads served from the read models: the games list (the lobby when filtered on open games)
and the player profile with its history. The read models trail the log by the projection
lag (see /metrics), usually milliseconds."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Request, Response, get
from litestar.params import FromPath, FromQuery, QueryParameter

from api.bootstrap import Shared
from api.errors import documented
from api.paging import LINK, decode_cursor, next_link, page
from api.ratings_routes import participant_id
from projections.ratings import BOT, provisional
from projections.summary import GameSummary, decode
from service.errors import NotFound

RECENT = 10


class GamePage(msgspec.Struct):
    """A page of the games list."""

    # Newest first (by creation), at most `limit`, each matching every filter asked.
    games: list[GameSummary]
    next_cursor: str | None  # pass as `cursor` for the next page; null on the last page


class GameTypeRecord(msgspec.Struct):
    """A player's record at one game type."""

    game: str  # the game type: a `name` of GET /v1/game-types
    played: int  # games seated in, in any status
    finished: int  # of those, the games that have finished (with a result)
    wins: int  # finished games ranked first (ties included)


class RecentGame(msgspec.Struct):
    """One of a player's recent games, with its seat and outcome there."""

    seat: int  # the player's seat in it, from 0
    rank: int | None  # final rank once finished (1 for the winners); null before
    score: int | None  # the seat's final score once finished; null before
    game: GameSummary  # the game as the games list shows it


class Rating(msgspec.Struct, kw_only=True):
    """A player's (or bot's) OpenSkill rating at one game type."""

    game: str  # the game type rated: a `name` of GET /v1/game-types
    # The estimated skill (OpenSkill, Plackett-Luce): 25 before the first rated game.
    mu: float
    # The uncertainty of `mu`: 25/3 (8.33) before the first rated game; it shrinks with games.
    sigma: float
    ordinal: float  # mu - 3 sigma: what the leaderboard ranks by
    games: int  # rated games played
    # Sigma is still above 5: too few rated games to trust the rating (about the first ten;
    # docs/ratings.md). The leaderboard leaves such ratings out unless asked.
    provisional: bool


class PlayerProfile(msgspec.Struct, kw_only=True):
    """A player's (or bot's) profile: its record and rating per game type, its recent games."""

    # A player's id, or `bot:<spec>` for a bot: its full spec, spelt canonically
    # (`bot:mcts:p=64` is shown as `bot:mcts:playouts=64`).
    id: str
    name: str  # the player's name, or `<spec> bot` for a bot
    created_at: str | None  # when the player registered (RFC 3339, UTC); None for a bot
    # One per game type the player has sat at, by name; empty for a bot.
    games: list[GameTypeRecord]
    recent: list[RecentGame]  # its last 10 games, newest first; empty for a bot
    ratings: list[Rating] = []  # per game type, once a rated game is finished


@get(
    "/v1/games",
    operation_id="listGames",
    tags=["games"],
    response_headers=[LINK],
    responses=documented(400),
)
async def list_games(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game: Annotated[str | None, QueryParameter(min_length=1, max_length=64)] = None,
    status: FromQuery[Literal["open", "active", "finished", "aborted"] | None] = None,
    player: Annotated[str | None, QueryParameter(min_length=1, max_length=64)] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, QueryParameter(min_length=1, max_length=200)] = None,
) -> Response[GamePage]:
    """Games newest first, filtered by game type, status and seated player; `status=open`
    is the lobby (`open_seats` lists the seats to join). Pages never skip or repeat a game
    while new games are created: the cursor marks a position in creation order; the next
    page is `next_cursor`, and `Link: <...>; rel="next"`.

    Example: GET /v1/games?status=open&game=puerto-rico&limit=20"""
    # A handler of its own thread, not sync_to_thread: Litestar wraps a sync handler that
    # shares its path (POST /v1/games) once per app built, and would answer its coroutine.
    reads = tabletop.listings
    before = decode_cursor(cursor) if cursor is not None else None
    rows = await anyio.to_thread.run_sync(reads.list_games, game, status, player, before, limit + 1)
    summaries, next_cursor = page(rows, limit)
    body = GamePage(games=[decode(summary) for summary in summaries], next_cursor=next_cursor)
    return Response(body, headers=next_link(request, cursor=next_cursor))


@get(
    "/v1/players/{player_id:str}",
    operation_id="getPlayer",
    tags=["players"],
    sync_to_thread=True,
    responses=documented(400, 404),
)
def get_player(tabletop: Shared, player_id: FromPath[str]) -> PlayerProfile:
    """A player's profile: games played and won per game type, the recent games with their
    final rank and score, and its rating per game type. Bots have profiles too, once they
    have played a rated game, one per spec: `bot:greedy`, `bot:mcts:playouts=64`.

    Example: GET /v1/players/bot:greedy"""
    t = tabletop
    player_id = participant_id(player_id)  # a bot's spec as its ratings spell it
    ratings = [
        Rating(provisional=provisional(float(r["sigma"])), **r)
        for r in t.listings.ratings_of(player_id)
    ]
    if player_id.startswith(BOT) and ratings:
        name = f"{player_id.removeprefix(BOT)} bot"
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

"""Ratings over HTTP (docs/ratings.md): the leaderboard of each game type, and a player's (or
bot's) rating history at one. (The transparency log's leaves, which with the games' exports
let anyone recompute every rating, are api/trust.py's.)"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.params import FromPath, FromQuery, QueryParameter

from api.bootstrap import Shared, Tabletop
from api.errors import documented
from api.paging import LINK, decode_cursor, encode_cursor, next_link
from domain.registry import GAMES
from projections.ratings import BOT, canonical, provisional
from service.errors import NotFound, Unprocessable

_BOARD = b"board:"
_HISTORY = b"history:"

Limit = Annotated[int, QueryParameter(ge=1, le=100)]
Cursor = Annotated[str | None, QueryParameter(min_length=1, max_length=200)]


class BoardLine(msgspec.Struct, kw_only=True):
    """One player's (or bot's) line of a leaderboard."""

    place: int  # the line's place on the leaderboard shown, from 1 (ties are not shared)
    # A player's id, or `bot:<spec>` for a bot: its full spec (`bot:mcts:playouts=64`).
    participant: str
    name: str  # the player's name, or `<spec> bot`
    ordinal: float  # mu - 3 sigma
    mu: float  # the estimated skill (OpenSkill, Plackett-Luce): 25 before any rated game
    sigma: float  # the uncertainty of `mu`: 25/3 (8.33) before any rated game
    games: int  # the rated games of this game type it has finished
    # Sigma is still above 5: too few rated games to trust the rating (about the first
    # ten); such lines are shown only with `provisional=true`.
    provisional: bool


class Leaderboard(msgspec.Struct):
    """A game type's leaderboard, a page at a time."""

    game: str  # the game type: a `name` of GET /v1/game-types
    # Highest ordinal first (then more games, then the participant's id), at most `limit`;
    # without the provisional ratings unless asked for.
    players: list[BoardLine]
    next_cursor: str | None  # pass as `cursor` for the next page; null on the last page


class RatingChange(msgspec.Struct, kw_only=True):
    """A rating at one game type right after one of its rated games."""

    game_id: str  # the rated game: GET /v1/games/{game_id}
    ended_at: str  # when the game ended: the `at` of its `game_finished` (RFC 3339, UTC)
    mu: float  # the estimated skill after the game
    sigma: float  # the uncertainty of `mu` after the game
    ordinal: float  # mu - 3 sigma after the game: what the leaderboard ranks by
    change: float  # `ordinal` after the game less `ordinal` before it (0 before the first)
    games: int  # the rated games of this type played by then, this one included
    provisional: bool  # sigma still above 5 after the game: too few games to trust it


class RatingHistory(msgspec.Struct, kw_only=True):
    """A player's (or bot's) rating history at one game type, a page at a time."""

    participant: str  # the player's id, or `bot:<spec>`, a bot's spec spelt canonically
    game: str  # the game type: a `name` of GET /v1/game-types
    # After each rated game, the latest first (in the transparency log's order), at most
    # `limit`.
    ratings: list[RatingChange]
    next_cursor: str | None  # pass as `cursor` for the next page; null on the last page


@get(
    "/v1/leaderboards/{game:str}",
    operation_id="getLeaderboard",
    tags=["players"],
    sync_to_thread=True,
    response_headers=[LINK],
    responses=documented(400, 404),
)
def leaderboard(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game: FromPath[str],
    limit: Limit = 20,
    cursor: Cursor = None,
    provisional: FromQuery[bool] = False,
) -> Response[Leaderboard]:
    """The leaderboard of a game type. Players (and bots) by conservative rating (mu - 3
    sigma, OpenSkill Plackett-Luce over every rated finished game, in the transparency log's
    order), with the rated games each played; provisional ratings (sigma above 5) only with
    `provisional=true`. The next page is `next_cursor`, and `Link: <...>; rel="next"`.

    Example: GET /v1/leaderboards/puerto-rico?limit=20"""
    if game not in GAMES:  # (an encoded `../` too: a name, never a path)
        raise NotFound("unknown_game", f"no game named {game!r}; see /v1/game-types")
    offset = decode_cursor(cursor, _BOARD) if cursor is not None else 0
    rows = tabletop.listings.leaderboard(game, offset, limit + 1, provisional)
    fields = ("participant", "name", "ordinal", "mu", "sigma", "games")
    lines = [
        BoardLine(place=offset + i + 1, provisional=_provisional(r), **{k: r[k] for k in fields})
        for i, r in enumerate(rows[:limit])
    ]
    next_cursor = encode_cursor(offset + limit, _BOARD) if len(rows) > limit else None
    body = Leaderboard(game, lines, next_cursor)
    return Response(body, headers=next_link(request, cursor=next_cursor))


def _provisional(row: dict[str, Any]) -> bool:
    return provisional(float(row["sigma"]))


@get(
    "/v1/players/{player_id:str}/ratings/{game:str}",
    operation_id="getRatingHistory",
    tags=["players"],
    sync_to_thread=True,
    response_headers=[LINK],
    responses=documented(400, 404, 422),
)
def rating_history(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    player_id: FromPath[str],
    game: FromPath[str],
    limit: Limit = 20,
    cursor: Cursor = None,
) -> Response[RatingHistory]:
    """A player's (or bot's: `bot:mcts:playouts=64`) rating at a game type after each of its
    rated games, the latest first, with the change each made. 404 `player_not_found` for a
    player never registered (a bot never rated); 422 `unknown_game_type` for a game type
    not hosted. The next page is `next_cursor`, and `Link: <...>; rel="next"`.

    Example: GET /v1/players/bot:greedy/ratings/puerto-rico?limit=20"""
    who = participant_id(player_id)
    if not _known(tabletop, who):
        raise NotFound("player_not_found", f"no player {player_id}")
    if game not in GAMES:
        raise Unprocessable("unknown_game_type", f"no game named {game!r}; see /v1/game-types")
    before = decode_cursor(cursor, _HISTORY) if cursor is not None else None
    rows = tabletop.listings.rating_history(who, game, before, limit + 1)
    shown = [
        RatingChange(provisional=_provisional(r), **{k: r[k] for k in _HISTORY_FIELDS})
        for r in rows[:limit]
    ]
    next_cursor = encode_cursor(rows[limit - 1]["seq"], _HISTORY) if len(rows) > limit else None
    body = RatingHistory(participant=who, game=game, ratings=shown, next_cursor=next_cursor)
    return Response(body, headers=next_link(request, cursor=next_cursor))


_HISTORY_FIELDS = ("game_id", "ended_at", "mu", "sigma", "ordinal", "change", "games")


def participant_id(asked: str) -> str:
    """The ratings' id of a player or bot asked for by path: a bot's spec spelt canonically.
    404 for what no id can be (a control character, which Postgres text cannot even hold)."""
    if len(asked) > 200 or not asked.isprintable():
        raise NotFound("player_not_found", f"no player {asked!r}")
    return canonical(asked)


def _known(tabletop: Tabletop, who: str) -> bool:
    """A registered player, or a bot that has a rating somewhere (bots are not registered)."""
    if who.startswith(BOT):
        return bool(tabletop.listings.rated_anywhere(who))
    return tabletop.players.get(who) is not None


ROUTES = [leaderboard, rating_history]

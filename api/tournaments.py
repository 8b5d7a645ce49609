"""Tournaments over HTTP: create, register (players, and bots by the organiser), withdraw,
start, read (rounds, tables with their games, standings, the seat spread), list, export.
(Leaderboards: api/ratings_routes.py.)"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

import anyio
import msgspec
from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.spec import SecurityRequirement
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from api.answers import REPLAYED, IdempotencyKey, replayed_header
from api.bootstrap import Shared, Tabletop
from api.conditional import IMMUTABLE
from api.errors import documented
from api.paging import LINK, decode_cursor, next_link, page
from domain.tournaments import pairing
from domain.tournaments.standings import standings
from domain.tournaments.state import CancelledReason, WithdrawnReason
from projections.tournaments import TournamentSummary
from projections.tournaments import decode as decode_summary
from service.audit import tournament_export
from service.tournament_log import Folded
from service.tournaments import Keyed, NewTournament

BEARER: list[SecurityRequirement] = [{"bearer": []}]
NDJSON = "application/x-ndjson"
_TOURNAMENTS = b"tournaments:"


class Register(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Who registers: yourself (no body), or a bot the organiser enters."""

    # organiser: a bot to register instead of yourself, one of the game type's `bots`
    # (GET /v1/game-types); its entrant id is `bot:<name>:<n>`.
    bot: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | None = None


class Withdraw(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Who withdraws: yourself (no body), or any entrant the organiser names."""

    # The entrant's id (`bot:greedy:1`), the organiser's to name; absent: yourself.
    entrant: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None


class Entrant(msgspec.Struct):
    """A player or bot registered in a tournament."""

    id: str  # a player's id, or `bot:<name>:<n>` for a bot the organiser registered
    name: str  # the player's name, or `<bot> bot <n>` for a bot
    bot: str | None  # the bot that plays for this entrant; null for a player
    # Withdrew after the start: paired no more (one who withdraws before it is removed).
    withdrawn: bool
    # Why: `requested` (they withdrew), `organiser` (the organiser withdrew them) or
    # `forfeited_twice` (the director did, after two forfeited games in a row); null while
    # playing, and for a withdrawal recorded before reasons were.
    withdrawn_reason: WithdrawnReason | None = None


class TableOut(msgspec.Struct, kw_only=True):
    """One table of a round: its game, its entrants by seat and, once over, its result."""

    table: int  # the table's number in its round, from 0
    game: str  # the game's id: GET /v1/games/{game}
    seats: list[str]  # entrants in seat order
    # Each seat's final rank (1 for the winners), in seat order, once the game has finished;
    # null until then.
    ranks: list[int] | None
    scores: list[int] | None  # each seat's final score, in seat order; null until then
    forfeited: list[int]  # the seats that forfeited the game, ascending


class RoundOut(msgspec.Struct, kw_only=True):
    """One round of a tournament."""

    round: int  # the round's number, from 1
    tables: list[TableOut]  # in table order
    # The entrants who sit this round out: each scores the mean of a full table's points.
    byes: list[str]
    complete: bool  # every table's game has finished and its result is recorded


class TournamentOut(msgspec.Struct, kw_only=True):
    """A tournament: its settings, entrants, rounds with their tables, and standings."""

    id: str  # the tournament's id (a UUID)
    status: str  # open | running | finished | cancelled
    organiser: str  # the player id of its creator
    # game, format, table_size, rounds, options, clock, points, advance, starts_at, entry,
    # ruleset (the edition of the standings' rules), ...
    config: dict[str, Any]
    entrants: list[Entrant]  # in registration order
    rounds: list[RoundOut]  # in order: the current round last
    # One line per entrant, best first: place (shared on a full tie), entrant, name, points,
    # opponents_points, score (its games' total score), games, withdrawn, withdrawn_reason.
    # A knockout's order is how far each went: the final's ranks first, then the round each
    # was knocked out in, later first. An arena's lines have `wins` and `streak` (its next
    # game counts double) instead of opponents_points (docs/tournaments.md).
    standings: list[dict[str, Any]]
    seat_counts: dict[str, list[int]]  # entrant -> games in each seat position (0: first)
    seat_spread: int  # the most uneven entrant's most minus least held seat
    # Why it was cancelled: `too_few_players` (fewer entrants than a table at `starts_at`);
    # null unless its status is `cancelled`.
    cancelled_reason: CancelledReason | None = None
    # An arena's end (RFC 3339, UTC), set when it starts; null for the other formats.
    ends_at: str | None = None
    # An arena's games still running at its end: they do not count; empty otherwise.
    uncounted: list[str] = []


class TournamentPage(msgspec.Struct):
    """A page of the tournaments list."""

    tournaments: list[TournamentSummary]  # newest first
    next_cursor: str | None  # pass as `cursor` for the next page; null on the last page


def _out(t: Folded) -> TournamentOut:
    state = t.state
    return TournamentOut(
        id=str(state.id),
        status=state.status,
        organiser=t.organiser,
        config=state.config,
        entrants=[_entrant(state, e, info) for e, info in state.entrants.items()],
        rounds=[
            RoundOut(
                round=r.number,
                byes=r.byes,
                complete=r.complete,
                tables=[
                    TableOut(
                        table=x.table,
                        game=x.game,
                        seats=x.seats,
                        ranks=x.ranks,
                        scores=x.scores,
                        forfeited=x.forfeited,
                    )
                    for x in r.tables
                ],
            )
            for r in state.rounds
        ],
        standings=state.standings or standings(state),
        seat_counts=pairing.seat_counts(state),
        seat_spread=pairing.seat_spread(state),
        cancelled_reason=state.cancelled_reason,
        ends_at=state.ends_at,
        uncounted=sorted(state.uncounted),
    )


def _entrant(state: Any, entrant: str, info: dict[str, Any]) -> Entrant:
    withdrawn, reason = entrant in state.withdrawn, state.withdrawn_reasons.get(entrant)
    return Entrant(entrant, info["name"], info.get("bot"), withdrawn, reason)


def _answer(done: Keyed) -> Response[TournamentOut]:
    return Response(_out(done.folded), headers=replayed_header(done.replayed))


def _caller_and(t: Tabletop, request: Request[Any, Any, Any]) -> Any:
    player = t.caller(request, required=True)
    assert player is not None
    return t, player


@post(
    "/v1/tournaments",
    operation_id="createTournament",
    tags=["tournaments"],
    security=BEARER,
    response_headers=[ResponseHeader(name="Location", documentation_only=True), REPLAYED],
    responses=documented(400, 401, 415, 422),
)
async def create_tournament(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    data: JSONBody[NewTournament],
    idempotency_key: IdempotencyKey = None,
) -> Response[TournamentOut]:
    """Create a tournament (you organise it): the game and its options, `format` (swiss,
    round-robin or knockout), `table_size`, `rounds` (swiss, round-robin), `points` per rank
    (default 6/4/2/0 scaled to the table size), `advance` (knockout: how many of each table
    go on), and the `clock` and `on_timeout` of its games (default: a day per decision,
    forfeit). Its games are rated. `starts_at` (UTC) starts it by itself then, or cancels it
    with fewer entrants than a table (422 `invalid_starts_at` unless ahead, within a year);
    `entry` sets conditions on the players who may register, `min_rated_games` of the game
    type and a rating range, `min_rating` to `max_rating` (the leaderboard's mu - 3 sigma;
    422 `invalid_entry_conditions` when the range is empty). The tournament is at
    `Location`. With an
    `Idempotency-Key`, a retry is answered with the same tournament
    (`Idempotent-Replayed: true`); the key sent with another request is refused (422
    `idempotency_key_reused`).

    Example: POST /v1/tournaments {"game": "puerto-rico", "format": "swiss",
    "table_size": 4, "rounds": 3}"""

    # Its own thread, not sync_to_thread: see api/lobby.py's list_games.
    def create() -> tuple[TournamentOut, bool]:
        t, player = _caller_and(tabletop, request)
        done = t.tournaments.create(player, data, idempotency_key)
        return _out(done.folded), done.replayed

    out, replayed = await anyio.to_thread.run_sync(create)
    headers = {"Location": f"/v1/tournaments/{out.id}"} | replayed_header(replayed)
    return Response(out, status_code=201, headers=headers)


@post(
    "/v1/tournaments/{tournament_id:uuid}/register",
    operation_id="registerForTournament",
    tags=["tournaments"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 403, 404, 409, 422),
)
def register(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    tournament_id: FromPath[UUID],
    data: JSONBody[Register | None] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response[TournamentOut]:
    """Register yourself; the organiser registers a bot with `{"bot": "greedy"}`. 409
    `already_registered` twice, `tournament_started` once it has started,
    `tournament_finished` once it is over, `tournament_cancelled` if it was cancelled. A
    player who does not meet the entry conditions is refused (422
    `entry_condition.min_rated_games`, `entry_condition.rating_range`; from the leaderboard,
    which trails the games by the projection lag); the organiser's bots are exempt. With an
    `Idempotency-Key`, a retry is answered again (`Idempotent-Replayed: true`); the key sent
    with another request is refused (422 `idempotency_key_reused`).

    Example: POST /v1/tournaments/{tournament_id}/register {"bot": "greedy"}"""
    t, player = _caller_and(tabletop, request)
    bot = data.bot if data else None
    ratings = t.reads.rating_of  # the entry conditions' (the primary's: the freshest)
    return _answer(t.tournaments.register(player, tournament_id, bot, idempotency_key, ratings))


@post(
    "/v1/tournaments/{tournament_id:uuid}/withdraw",
    operation_id="withdrawFromTournament",
    tags=["tournaments"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 403, 404, 409, 422),
)
def withdraw(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    tournament_id: FromPath[UUID],
    data: JSONBody[Withdraw | None] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response[TournamentOut]:
    """Withdraw from the tournament (the organiser may withdraw any `entrant`). A running
    game of theirs is forfeited, and they are paired no more. With an `Idempotency-Key`, a
    retry is answered again (`Idempotent-Replayed: true`).

    Example: POST /v1/tournaments/{tournament_id}/withdraw {"entrant": "bot:greedy:1"}"""
    t, player = _caller_and(tabletop, request)
    entrant = data.entrant if data else None
    return _answer(t.tournaments.withdraw(player, tournament_id, entrant, idempotency_key))


@post(
    "/v1/tournaments/{tournament_id:uuid}/start",
    operation_id="startTournament",
    tags=["tournaments"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 403, 404, 409, 422),
)
def start(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    tournament_id: FromPath[UUID],
    idempotency_key: IdempotencyKey = None,
) -> Response[TournamentOut]:
    """Start the tournament (its organiser only). The first round's tables become games at
    once; later rounds start by themselves when every game of a round has finished. 422
    `too_few_players` below a full table. With an `Idempotency-Key`, a retry is answered
    again (`Idempotent-Replayed: true`).

    Example: POST /v1/tournaments/{tournament_id}/start"""
    t, player = _caller_and(tabletop, request)
    return _answer(t.tournaments.start(player, tournament_id, idempotency_key))


@get(
    "/v1/tournaments/{tournament_id:uuid}",
    operation_id="getTournament",
    tags=["tournaments"],
    sync_to_thread=True,
    responses=documented(400, 404),
)
def get_tournament(tabletop: Shared, tournament_id: FromPath[UUID]) -> TournamentOut:
    """The tournament: rounds, tables with their game ids and results, the standings and
    the seat spread.

    Example: GET /v1/tournaments/{tournament_id}"""
    return _out(tabletop.tournaments.get(tournament_id))


@get(
    "/v1/tournaments",
    operation_id="listTournaments",
    tags=["tournaments"],
    sync_to_thread=True,
    response_headers=[LINK],
    responses=documented(400),
)
def list_tournaments(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    status: FromQuery[Literal["open", "running", "finished", "cancelled"] | None] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, QueryParameter(min_length=1, max_length=200)] = None,
) -> Response[TournamentPage]:
    """Tournaments newest first (from the read model: it trails by the projection lag); the
    next page is `next_cursor`, and `Link: <...>; rel="next"`.

    Example: GET /v1/tournaments?status=open"""
    before = decode_cursor(cursor, _TOURNAMENTS) if cursor is not None else None
    rows = tabletop.listings.list_tournaments(status, before, limit + 1)
    summaries, next_cursor = page(rows, limit, _TOURNAMENTS)
    body = TournamentPage([decode_summary(summary) for summary in summaries], next_cursor)
    return Response(body, headers=next_link(request, cursor=next_cursor))


@get(
    "/v1/tournaments/{tournament_id:uuid}/export",
    operation_id="exportTournament",
    tags=["tournaments"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 404),
)
def export_tournament(tabletop: Shared, tournament_id: FromPath[UUID]) -> Stream:
    """The tournament's log (`tabletop-tournament/2`): a header, its hash-chained events,
    and the final standings once finished. `tabletop verify FILE --games DIR` checks it and
    each table's result against its game's export (`DIR/<game id>.ndjson`). A finished
    tournament's never changes (`Cache-Control: immutable`).

    Example: GET /v1/tournaments/{tournament_id}/export"""
    t = tabletop
    finished = t.tournaments.get(tournament_id).state.status == "finished"  # 404 if unknown
    lines = tournament_export(t.store, tournament_id)
    body = [msgspec.json.encode(line) + b"\n" for line in lines]
    return Stream(body, media_type=NDJSON, headers=IMMUTABLE if finished else None)


ROUTES = [
    create_tournament,
    register,
    withdraw,
    start,
    get_tournament,
    list_tournaments,
    export_tournament,
]

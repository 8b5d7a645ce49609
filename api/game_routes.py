"""The games: their types, creating and joining one, playing it (moves, resignations,
aborts, leaving, rematches) and reading it as it stands (with a long poll)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Annotated, Any
from uuid import UUID

import anyio
import msgspec
from litestar import Request, Response, get, post
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from api import schemas as s
from api.answers import (
    BEARER,
    ETAG,
    LOCATION,
    OPTIONAL_BEARER,
    REPLAYED,
    IdempotencyKey,
    game_out,
    read_game,
    replayed_header,
)
from api.bootstrap import ARRIVED, Shared, Tabletop
from api.conditional import NOT_MODIFIED, IfNoneMatch, versioned
from api.errors import documented
from api.paging import LINK, next_link
from api.quotas import admitted
from service.errors import Conflict, Forbidden, Unprocessable
from service.fold import Fold
from service.games import Done, Games, game_types
from service.players import Player
from service.records import keyed_game_id

MAX_WAIT_S = 60  # the longest long poll (GET /v1/games/{id}?wait_for_version=)

# ---- games --------------------------------------------------------------------------------


@get(
    "/v1/game-types",
    operation_id="listGameTypes",
    tags=["games"],
    sync_to_thread=False,
    responses=documented(),
)
def list_game_types() -> list[s.GameType]:
    """The games this server hosts: their names, seat counts, options with defaults, bots,
    time controls and timeout policies.

    Example: GET /v1/game-types"""
    return [msgspec.convert(t, s.GameType) for t in game_types()]


@post(
    "/v1/games",
    operation_id="createGame",
    tags=["games"],
    security=BEARER,
    response_headers=[LOCATION, REPLAYED],
    responses=documented(400, 401, 409, 415, 422),
)
async def create_game(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    data: JSONBody[s.NewGame],
    idempotency_key: IdempotencyKey = None,
) -> Response[s.GameOut]:
    """Create a game; `bots` fills seats with bots by name ("random" works for every game);
    `seat` seats the creator. Quotas (429 with Retry-After): `bot_games_limited` (games with
    bots per player and minute), `too_many_open_games` (games not over a player sits in).
    With an `Idempotency-Key`, a retry of the same request gets the same game
    (`Idempotent-Replayed: true`), and the key sent with another request is refused (422
    `idempotency_key_reused`). The game is at `Location`.

    Example: POST /v1/games {"game": "puerto-rico", "seats": 3, "seat": 0,
    "bots": {"1": "random", "2": "greedy"}}"""
    t = tabletop
    bots = {int(seat): bot for seat, bot in data.bots.items()}
    clock = msgspec.to_builtins(data.clock) if data.clock is not None else None
    key = idempotency_key
    args = (data.game, data.seats, data.options, bots, data.seat, clock, data.on_timeout)
    replayed = False
    player = await t.player(request)
    try:
        async with admitted(t, player, bots=bool(bots)):
            fold = await t.games.create(player, *args, data.rated, data.client_seed, key, data.undo)
    except Conflict as exists:
        if exists.code != "game_exists" or key is None:
            raise
        fold, player = await anyio.to_thread.run_sync(_created_before, t, request, key, data)
        replayed = True
    headers = {"Location": f"/v1/games/{fold.id}"} | replayed_header(replayed)
    return Response(game_out(t, fold, player), status_code=201, headers=headers)


def _created_before(
    t: Tabletop, request: Request[Any, Any, Any], key: str, data: s.NewGame
) -> tuple[Fold, Player]:
    """The game a keyed create made before, if this request is the one that made it."""
    player = t.caller(request, required=True)
    assert player is not None
    fold = t.game(keyed_game_id(player.id, key))
    options = msgspec.to_builtins(fold.options)
    same = (
        fold.created_by == player.id
        and (fold.game.name, fold.seats, fold.rated) == (data.game, data.seats, data.rated)
        and all(options.get(k) == v for k, v in data.options.items())
        and all(fold.bots.get(int(seat)) == bot for seat, bot in data.bots.items())
        and (data.seat is None or fold.seat_of(player.id) == data.seat)
        and fold.clock_spec == (msgspec.to_builtins(data.clock) if data.clock else None)
        and (data.client_seed is None or _seed_of(fold, player) == data.client_seed)
        and (data.undo is None or fold.undo == data.undo)
    )
    if not same:
        raise Unprocessable(
            "idempotency_key_reused", "this Idempotency-Key was used for another new game"
        )
    return fold, player


def _seed_of(fold: Fold, player: Player) -> str | None:
    seat = fold.seat_of(player.id)
    return None if seat is None else fold.client_seeds[seat]


@post(
    "/v1/games/{game_id:uuid}/join",
    operation_id="joinGame",
    tags=["games"],
    status_code=200,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 404, 409, 415, 422),
)
async def join_game(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    data: JSONBody[s.JoinGame | None] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response[s.GameOut]:
    """Take a seat (the first free one if none is named; the body is optional), with your
    `client_seed` for the game's randomness; the game starts when full. 429
    `too_many_open_games` when the caller sits in its quota of games not over. With an
    `Idempotency-Key`, a retry by a player already seated there (in the seat named, if
    any) is answered with the game and `Idempotent-Replayed: true` instead of 409
    `already_seated` (or `game_not_open`, when its join started the game).

    Example: POST /v1/games/{game_id}/join {"seat": 1}"""
    t = tabletop
    seat, seed = (data.seat, data.client_seed) if data else (None, None)
    player = await t.player(request)
    try:
        async with admitted(t, player, bots=False):
            fold = await t.games.join(player, game_id, seat, seed)
    except Conflict as refused:  # a retry finds itself seated, or the game it started
        if refused.code not in ("already_seated", "game_not_open") or idempotency_key is None:
            raise
        args = (t, request, game_id, seat, refused)
        fold, player = await anyio.to_thread.run_sync(_seated_before, *args)
        return Response(game_out(t, fold, player), headers=replayed_header(True))
    return Response(game_out(t, fold, player))


def _seated_before(
    t: Tabletop, request: Request[Any, Any, Any], game_id: UUID, seat: int | None, refused: Conflict
) -> tuple[Fold, Player]:
    """The game a keyed join was answered with before, if the caller holds the seat it
    asked for (any seat, if none); else the refusal stands."""
    player = t.caller(request, required=True)
    assert player is not None
    fold = t.game(game_id)
    held = fold.seat_of(player.id)
    if held is None or seat not in (None, held):
        raise refused
    return fold, player


def _lifecycle_route(
    path: str,
    operation_id: str,
    doc: str,
    write: Callable[[Games, Player, UUID, str | None], Awaitable[Done]],
) -> Any:
    """`POST /v1/games/{id}/<path>` by a player: `write`, answered with the game, and
    `Idempotent-Replayed: true` when it was a retry of a request carried out before."""

    @post(
        f"/v1/games/{{game_id:uuid}}/{path}",
        operation_id=operation_id,
        tags=["games"],
        status_code=200,
        security=BEARER,
        response_headers=[REPLAYED],
        responses=documented(400, 401, 403, 404, 409, 422),
        description=f"{doc}\n\nExample: POST /v1/games/{{game_id}}/{path}",
    )
    async def handler(
        request: Request[Any, Any, Any],
        tabletop: Shared,
        game_id: FromPath[UUID],
        idempotency_key: IdempotencyKey = None,
    ) -> Response[s.GameOut]:
        t = tabletop
        player = await t.player(request)
        done = await write(t.games, player, game_id, idempotency_key)
        return Response(game_out(t, done.fold, player), headers=replayed_header(done.replayed))

    return handler


async def _rematch(games: Games, player: Player, game_id: UUID, _: str | None) -> Done:
    """A rematch asked again (offered or accepted before, whatever the key) answers the same
    game: the finished game shows it beforehand."""
    before = await anyio.to_thread.run_sync(games.reads.get, game_id)
    seat = before.seat_of(player.id)
    again = before.rematch is not None and seat is not None and seat in before.rematch_accepted
    return Done(await games.rematch(player, game_id), again)


KEYED = (
    " With an `Idempotency-Key`, a retry of a request carried out before is answered with "
    "the game and `Idempotent-Replayed: true`; the key sent with another request is refused "
    "(422 `idempotency_key_reused`)."
)
resign_game = _lifecycle_route(
    "resign",
    "resignGame",
    "Resign your seat: it ranks last. A two-seat game ends at once (the other seat wins); "
    "with more seats a bot plays your seat to the end. 409 `game_over` once the game is "
    "finished or aborted, `game_not_started` before it starts (leave instead)." + KEYED,
    Games.resign,
)
abort_game = _lifecycle_route(
    "abort",
    "abortGame",
    "Cancel the game (its creator only) before any player's decision: status `aborted`, "
    "no result, never rated. 409 `abort_too_late` once a player has decided." + KEYED,
    Games.abort,
)
leave_game = _lifecycle_route(
    "leave",
    "leaveGame",
    "Give up your seat in a game that has not started; the seat is free again. 409 "
    "`game_not_open` once it has started (resign instead)." + KEYED,
    Games.leave,
)
undo_game = _lifecycle_route(
    "undo",
    "requestUndo",
    "Ask to take back your last decision (docs/undo.md): every other seated player must "
    "accept (bots do at once; with no other player the game goes back now, `reverted`); "
    "your clock pauses while the request stands; a decision by anyone, or a decline, ends "
    'it. 409 `undo_not_allowed` (a rated or tournament game not created with `"undo": '
    "true`), `undo_nothing_to_take_back`, `undo_across_randomness` (something random or "
    "hidden came out since), `undo_pending` (a request stands)." + KEYED,
    Games.undo,
)
accept_undo = _lifecycle_route(
    "undo/accept",
    "acceptUndo",
    "Accept the standing takeback request; the last acceptance takes the game back to the "
    "state before the requester's last decision (`reverted`). 409 `not_asked` when none "
    "stands (or it is yours), `undo_answered` when you accepted it already." + KEYED,
    Games.undo_accept,
)
decline_undo = _lifecycle_route(
    "undo/decline",
    "declineUndo",
    "Decline the standing takeback request: it ends (the requester's own decline withdraws "
    "it). 409 `not_asked` when none stands." + KEYED,
    Games.undo_decline,
)
rematch_game = _lifecycle_route(
    "rematch",
    "rematchGame",
    "Offer a rematch of a finished game, or accept the one offered: answers the new game "
    "(same game, options and clock; each player one seat earlier; bots accept at once). "
    "It starts when every player has accepted. 409 `game_not_finished` before the end. "
    "Asking again answers the same game, with `Idempotent-Replayed: true` (with or without "
    "an `Idempotency-Key`).",
    _rematch,
)


@get(
    "/v1/games/{game_id:uuid}",
    operation_id="getGame",
    tags=["games"],
    security=OPTIONAL_BEARER,
    response_headers=[ETAG],
    responses={**NOT_MODIFIED, **documented(400, 401, 404, 409)},
)
async def get_game(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    if_none_match: IfNoneMatch = None,
    wait_for_version: Annotated[int | None, QueryParameter(ge=0, le=2**31)] = None,
    timeout_s: Annotated[float, QueryParameter(ge=0, le=MAX_WAIT_S)] = 30.0,
) -> Response[s.GameOut]:
    """The game as the caller may see it: its seat's view, the public view for spectators,
    everything once finished. `ETag` is the game's version: poll with `If-None-Match` and
    get 304 with no body until the game moves. A long poll: with `wait_for_version=N` it
    answers as soon as the game is past version N (or is over), or after `timeout_s`
    seconds with the game as it is then (at most 60; 30 by default): a client waiting for
    its turn (after a bot, say) sends its last `version` and needs no other request.

    Example: GET /v1/games/{game_id}?wait_for_version=12&timeout_s=30"""
    t = tabletop
    if wait_for_version is not None:
        await _wait_past(t, request, game_id, wait_for_version, timeout_s)
    answer: Response[s.GameOut] = await read_game(t, request, game_id, _get_game, if_none_match)
    return answer


async def _wait_past(
    t: Tabletop, request: Request[Any, Any, Any], game_id: UUID, version: int, timeout: float
) -> None:
    """Until the game is past `version` or over, or `timeout` seconds have passed: woken by
    its commits (this process's at once, other processes' through the log), never polling
    on a timer."""
    deadline = asyncio.get_running_loop().time() + timeout
    with t.live.watching(game_id) as woken:
        while True:
            woken.clear()  # before reading: a commit during the read wakes us again
            fold: Fold = await read_game(t, request, game_id, _as_it_is)
            left = deadline - asyncio.get_running_loop().time()
            if fold.version > version or fold.over or left <= 0:
                return
            with suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), left)


def _as_it_is(t: Tabletop, request: Request[Any, Any, Any], fold: Fold) -> Fold:
    return fold


def _get_game(
    t: Tabletop, request: Request[Any, Any, Any], fold: Fold, if_none_match: str | None
) -> Response[s.GameOut]:
    player = t.caller(request, required=False)
    seat = t.game_reads.seat_for(fold, player)  # the body names the caller's seat
    return versioned(if_none_match, fold.version, lambda: game_out(t, fold, player), seat)


@get(
    "/v1/games/{game_id:uuid}/legal-moves",
    operation_id="getLegalMoves",
    tags=["games"],
    security=BEARER,
    response_headers=[ETAG, LINK],
    responses={**NOT_MODIFIED, **documented(400, 401, 403, 404, 409)},
)
async def legal_moves(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    offset: Annotated[int, QueryParameter(ge=0, le=2**40)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1000,
    if_none_match: IfNoneMatch = None,
) -> Response[s.LegalMoves]:
    """Every move the caller's seat may make now, each exactly a body for POST .../moves
    (with `version` as its `expected_version`), a page at a time: `total` tells how many
    there are, and `Link: <...>; rel="next"` gives the next page. `ETag` is the game's
    version, as on GET /v1/games/{id} (304 with `If-None-Match` until the game moves).

    Example: GET /v1/games/{game_id}/legal-moves?limit=50"""
    args = (offset, limit, if_none_match)
    moves: Response[s.LegalMoves] = await read_game(tabletop, request, game_id, _legal_moves, *args)
    return moves


def _legal_moves(
    t: Tabletop,
    request: Request[Any, Any, Any],
    fold: Fold,
    offset: int,
    limit: int,
    if_none_match: str | None,
) -> Response[s.LegalMoves]:
    player = t.caller(request, required=True)
    seat = t.game_reads.seat_for(fold, player)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")

    def page() -> s.LegalMoves:
        total, moves = t.game_reads.legal_moves(fold, seat, offset, limit)
        return s.LegalMoves(
            game=fold.game.name, version=fold.version, moves=moves, total=total, offset=offset
        )

    answer = versioned(if_none_match, fold.version, page, seat)
    if isinstance(answer.content, s.LegalMoves):
        more = offset + limit < answer.content.total
        answer.headers.update(next_link(request, offset=offset + limit if more else None))
    return answer


@post(
    "/v1/games/{game_id:uuid}/moves",
    operation_id="submitMove",
    tags=["games"],
    status_code=200,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 403, 404, 409, 415, 422),
)
async def submit_move(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    data: JSONBody[s.MoveRequest],
    idempotency_key: Annotated[
        str, HeaderParameter(name="Idempotency-Key", min_length=1, max_length=200)
    ],
) -> Response[s.MoveResult]:
    """Apply a move at `expected_version`. A retry with the same Idempotency-Key gets the
    first answer (`Idempotent-Replayed: true`); the key sent with another move is refused
    (422 `idempotency_key_reused`). It answers once the move's own events are saved:
    bots awaited next move after it, on their own (`awaiting` may name their seats; wait
    for them with GET /v1/games/{id}?wait_for_version=N).

    Example: POST /v1/games/{game_id}/moves {"expected_version": 12,
    "move": {"type": "choose_role", "role": "settler"}}"""
    t = tabletop
    # The player's decision time, when the request arrived: the server's work is not theirs.
    arrived = str(request.scope.get(ARRIVED) or t.games.now())
    player = await t.player(request)
    args = (game_id, data.expected_version, data.move, idempotency_key, arrived)
    answer = await t.games.move(player, *args)
    events = [msgspec.convert(e, s.EventOut) for e in answer.events]
    legal = None
    if answer.legal is not None:
        total, moves = answer.legal
        legal = s.LegalMoves(
            game=answer.game, version=answer.version, moves=moves, total=total, offset=0
        )
    body = s.MoveResult(
        game=answer.game,
        version=answer.version,
        events=events,
        awaiting=answer.awaiting,
        status=answer.status,
        legal=legal,
    )
    return Response(body, headers=replayed_header(answer.replayed))

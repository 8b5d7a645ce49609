"""The Litestar application: API v1 (the routes are described in openapi/openapi.json).

The `eventsourcing` library is synchronous, so whatever may wait on the store runs in a
worker thread. What needs nothing from the store is answered on the event loop: reads of a
game in memory, and writes whose game and caller are in memory (decided there and saved by
the loop writer, see service/loop_writer.py).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import suppress
from typing import Annotated, Any
from uuid import UUID

import anyio
import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.config.compression import CompressionConfig
from litestar.config.cors import CORSConfig
from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import FromPath, FromQuery, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from api import schemas as s
from api import stream_tokens
from api.bodies import JsonRequest
from api.conditional import IMMUTABLE, NOT_MODIFIED, IfNoneMatch, versioned
from api.conventions import StrictStructSchemas, describe_operations
from api.errors import HANDLERS, documented
from api.game_types import get_game_type, renderers
from api.guard import GuardMiddleware
from api.head import head_as_get
from api.health import StoreWatch, health
from api.limits import admit_game, buckets
from api.live import LiveHub, ndjson_lines, stream_events
from api.lobby import get_player, list_games
from api.metrics import Metrics, metrics
from api.middleware import RequestMiddleware
from api.paging import LINK, next_link
from api.perspective import replay_out, seat_asked
from api.player_stream import player_stream
from api.tournaments import ROUTES as tournament_routes
from api.trust import ROUTES as trust_routes
from api.viewer import VIEWER
from projections.runner import GamesRunner, view_for
from service.audit import export_lines, stored_lines, verify
from service.bot_runner import BotRunner, swept
from service.chain import now_text
from service.clocks import micros, stamp
from service.current import Current
from service.errors import Conflict, Forbidden, Unauthorized, Unprocessable
from service.fold import ENDINGS, Fold
from service.games import Games, game_types
from service.history import Listings
from service.players import Player, Players
from service.reads import GameReads
from service.records import keyed_game_id
from service.settings import Limits, Settings
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from service.transparency import log_of
from service.wakeup import ring

NDJSON = "application/x-ndjson"
MAX_WAIT_S = 60  # the longest long poll (GET /v1/games/{id}?wait_for_version=)
BEARER = [{"bearer": []}]
OPTIONAL_BEARER = [{"bearer": []}, {}]  # a key is optional: with one, the caller's seat shows
_encode = msgspec.json.encode

# Headers of our answers, as the OpenAPI document declares them.
LOCATION = ResponseHeader(name="Location", description="The new resource", documentation_only=True)
REPLAYED = ResponseHeader(
    name="Idempotent-Replayed",
    description="`true` when this answers again a request made before with the same key",
    documentation_only=True,
)
ETAG = ResponseHeader(
    name="ETag", description="The game's version; send it as If-None-Match", documentation_only=True
)
IdempotencyKey = Annotated[
    str | None, HeaderParameter(name="Idempotency-Key", min_length=1, max_length=200)
]


class Tabletop:
    """What the handlers share: the store, the two services on it, the read models, the
    live-stream hub and the metrics. With `projections` settings, the app also runs the
    projection runner (otherwise another process runs it: `tabletop projections run`)."""

    def __init__(
        self,
        store: EventStoreApp,
        arbiters: frozenset[str] = frozenset(),
        projections: Settings | None = None,
        create_tables: bool = True,
        now: Callable[[], str] = now_text,
        keep_time: Settings | None = None,
        limits: Limits | None = None,
        standby: EventStoreApp | None = None,
        run_bots: bool = True,
    ) -> None:
        self.store = store
        self.standby = standby
        self.game_reads = GameReads(store, Current(store), standby)
        self.games = Games(store, self.game_reads, now)
        self.limits = limits or Limits()
        self.register = buckets(self.limits.register)  # per client address
        self.per_key = buckets(self.limits.per_key)
        self.bad_keys = buckets(self.limits.bad_keys)  # per client address
        self.bot_games = buckets(self.limits.bot_games)  # per player
        self.players = Players(store)
        self.arbiters = arbiters
        self.reads = view_for(store)
        if create_tables:
            self.reads.create_table()
        # the read models' lists, from the standby when there is one (they trail anyway)
        self.listings = self.reads
        if standby is not None:
            self.listings = Listings(self.game_reads.history, view_for(standby), self.reads)
        self.live = LiveHub(store)
        self.games.writes.listen(self._committed)
        # Plays the bots' seats (service/bot_runner.py), unless another process does.
        self.bots = BotRunner(self.games, swept(self.reads, self.games.now)) if run_bots else None
        self._bots_task: asyncio.Task[None] | None = None
        self.metrics = Metrics(self)
        self.watch = StoreWatch(store)
        self._projections = projections
        self.runner: GamesRunner | None = None
        # Applies the timeouts, in a thread of this app with `keep_time` (the store's settings):
        # its writes then reach this process's cache and live streams at once. On Postgres
        # one process of the database keeps time; the others' timekeepers stand by.
        self.timekeeper = Timekeeper(self.games, self.reads)
        self.tournaments = self.timekeeper.tournaments
        self._keep_time = keep_time
        self._time_stop = threading.Event()

    def _committed(self, game_id: UUID, version: int, fold: Fold | None) -> None:
        self.live.publish(game_id, version)
        ring()  # the runner of this process, on SQLite

    def start(self) -> None:
        """(On the event loop, at start-up) the write driver runs on this loop, and the
        bot runner, timekeeper and projection runner start."""
        loop = asyncio.get_running_loop()
        self.games.writes.attach(loop)
        if self.bots is not None:
            self._bots_task = loop.create_task(self.bots.run())
        if self._projections is not None:
            self.runner = GamesRunner(self._projections)
        if self._keep_time is not None:
            threading.Thread(
                target=self.timekeeper.keep, args=(self._keep_time, self._time_stop), daemon=True
            ).start()
            follow = log_of(self.store).follow  # ended games into the transparency log
            threading.Thread(target=follow, args=(self._time_stop,), daemon=True).start()

    async def drain(self) -> None:
        """Stop the bot runner, let the loop writer finish its saves and close its
        connections (before `stop`)."""
        if self.bots is not None and self._bots_task is not None:
            self.bots.stop()
            await asyncio.gather(self._bots_task, return_exceptions=True)
        await self.games.writes.drain()
        await self.game_reads.close()
        await self.watch.close()

    def stop(self) -> None:
        self._time_stop.set()
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        self.live.stop()
        self.store.close()
        if self.standby is not None:
            self.standby.close()

    def caller(self, request: Request[Any, Any, Any], required: bool) -> Player | None:
        token = _bearer(request)
        if token is None:
            if required:
                raise Unauthorized("unauthorized", "send Authorization: Bearer <api_key>")
            return None
        player = self.players.authenticate(token) if token else None
        if player is None:
            raise Unauthorized("unauthorized", "the API key is not valid")
        return player

    def stream_caller(
        self, request: Request[Any, Any, Any], token: str | None, required: bool
    ) -> Player | None:
        """The caller of a stream route: the player of a stream token (`?token=`, what a
        browser's EventSource can send), else as `caller`."""
        if token is None:
            return self.caller(request, required)
        return stream_tokens.check(self.players, token)

    def game(self, game_id: UUID) -> Fold:
        return self.game_reads.get(game_id)

    def in_memory(self, request: Request[Any, Any, Any], game_id: UUID) -> bool:
        """Whether a read of this game by this caller needs nothing from the store."""
        token = _bearer(request)
        return self.game_reads.in_memory(game_id) and (token is None or self.players.known(token))

    async def player(self, request: Request[Any, Any, Any]) -> Player:
        """The caller of a write: found on the event loop when its key is known in memory,
        else in a worker thread (authenticating may read the store)."""
        token = _bearer(request)
        if token and self.players.known(token):
            player = self.caller(request, required=True)
        else:
            player = await anyio.to_thread.run_sync(self.caller, request, True)
        assert player is not None
        return player


def _bearer(request: Request[Any, Any, Any]) -> str | None:
    """The API key of an `Authorization: Bearer` header; "" for any other scheme, None when
    there is no header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


async def _read(request: Request[Any, Any, Any], game_id: UUID, read: Any, *args: Any) -> Any:
    """Run `read(request, fold, ...)` on the event loop when the caller is known and the
    cached game is the store's head (asked on the loop: the usual case, a seated player
    polling a running game); otherwise in a worker thread on the game caught up from the
    store. A thread hop costs more than most reads themselves."""
    t = _app(request)
    if t.in_memory(request, game_id):
        fold = await t.game_reads.current_on_loop(game_id)
        if fold is not None:
            return read(request, fold, *args)

    def in_thread() -> Any:
        return read(request, t.game(game_id), *args)

    return await anyio.to_thread.run_sync(in_thread)


def _app(request: Request[Any, Any, Any]) -> Tabletop:
    tabletop: Tabletop = request.app.state.tabletop
    return tabletop


def _game_out(t: Tabletop, fold: Fold, player: Player | None) -> s.GameOut:
    seat = t.game_reads.seat_for(fold, player)
    shown = None if fold.over else seat
    return s.GameOut(
        id=str(fold.id),
        game=fold.game.name,
        status=fold.status,
        version=fold.version,
        seats=[
            s.SeatOut(i, fold.players[i], fold.names[i], fold.bots.get(i), fold.client_seeds[i])
            for i in range(fold.seats)
        ],
        awaiting=fold.awaiting(),
        view=t.game_reads.view(fold, shown),
        result=msgspec.to_builtins(fold.result) if fold.result else None,
        options=msgspec.to_builtins(fold.options),
        seed_commitment=fold.seed_commitment,
        your_seat=seat,
        created_at=fold.created_at,
        last_activity=fold.last_at,
        clock=_clock_out(t, fold),
        forfeited={str(s): reason for s, reason in sorted(fold.forfeited.items())},
        created_by=fold.created_by,
        rematch_of=fold.rematch_of,
        rematch=fold.rematch,
        rated=fold.rated,
        tournament=fold.tournament,
    )


def _clock_out(t: Tabletop, fold: Fold) -> s.ClockOut | None:
    if fold.clock is None or fold.clock_spec is None:
        return None
    deadline = fold.next_deadline()
    now = micros(t.games.now())
    return s.ClockOut(
        spec=fold.clock_spec,
        on_timeout=fold.on_timeout or "",
        seats=[msgspec.convert(c, s.SeatClock) for c in fold.clock.shown(fold.seats, now)],
        deadline=stamp(deadline) if deadline is not None else None,
    )


# ---- players ----------------------------------------------------------------------------


@post(
    "/v1/players",
    operation_id="createPlayer",
    tags=["players"],
    sync_to_thread=True,
    response_headers=[LOCATION],
    responses=documented(400, 415, 422),
)
def create_player(
    request: Request[Any, Any, Any], data: JSONBody[s.NewPlayer]
) -> Response[s.PlayerCreated]:
    """Register a player. The API key is shown once; only its salted hash is kept. Send it
    as `Authorization: Bearer <api_key>`; the profile is at `Location`.

    Example: POST /v1/players {"name": "ada"}"""
    player, key = _app(request).players.register(data.name)
    body = s.PlayerCreated(player.id, player.name, key)
    return Response(body, status_code=201, headers={"Location": f"/v1/players/{player.id}"})


@post(
    "/v1/stream-tokens",
    operation_id="createStreamToken",
    tags=["players"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    responses=documented(400, 401),
)
def create_stream_token(request: Request[Any, Any, Any]) -> s.StreamToken:
    """A short-lived token for the stream routes. It is for a browser's EventSource, which
    cannot send an Authorization header: open `/v1/games/{id}/stream?token=...` or
    `/v1/players/me/stream?token=...` with it before `expires_at` (it is accepted nowhere
    else; a reconnecting EventSource needs a fresh one once it expires). Never put the API
    key itself in a URL.

    Example: POST /v1/stream-tokens"""
    t = _app(request)
    player = t.caller(request, required=True)
    assert player is not None
    ttl = request.app.state.settings.stream_token_ttl_s
    token, expires_at = stream_tokens.issue(t.players, player, ttl)
    return s.StreamToken(token=token, expires_at=expires_at, expires_in=ttl)


# ---- games --------------------------------------------------------------------------------


@get("/v1/game-types", operation_id="listGameTypes", tags=["games"], sync_to_thread=False)
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
    t = _app(request)
    bots = {int(seat): bot for seat, bot in data.bots.items()}
    await admit_game(request, t, bots=bool(bots))
    clock = msgspec.to_builtins(data.clock) if data.clock is not None else None
    key = idempotency_key
    args = (data.game, data.seats, data.options, bots, data.seat, clock, data.on_timeout)
    replayed = False
    player = await t.player(request)
    try:
        fold = await t.games.create(player, *args, data.rated, data.client_seed, key)
    except Conflict as exists:
        if exists.code != "game_exists" or key is None:
            raise
        fold, player = await anyio.to_thread.run_sync(_created_before, request, key, data)
        replayed = True
    headers = {"Location": f"/v1/games/{fold.id}"} | _replayed(replayed)
    return Response(_game_out(t, fold, player), status_code=201, headers=headers)


def _created_before(
    request: Request[Any, Any, Any], key: str, data: s.NewGame
) -> tuple[Fold, Player]:
    """The game a keyed create made before, if this request is the one that made it."""
    t = _app(request)
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
    )
    if not same:
        raise Unprocessable(
            "idempotency_key_reused", "this Idempotency-Key was used for another new game"
        )
    return fold, player


def _seed_of(fold: Fold, player: Player) -> str | None:
    seat = fold.seat_of(player.id)
    return None if seat is None else fold.client_seeds[seat]


def _replayed(replayed: bool) -> dict[str, str]:
    return {"Idempotent-Replayed": "true"} if replayed else {}


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
    t = _app(request)
    await admit_game(request, t, bots=False)
    seat, seed = (data.seat, data.client_seed) if data else (None, None)
    player = await t.player(request)
    try:
        fold = await t.games.join(player, game_id, seat, seed)
    except Conflict as refused:  # a retry finds itself seated, or the game it started
        if refused.code not in ("already_seated", "game_not_open") or idempotency_key is None:
            raise
        args = (request, game_id, seat, refused)
        fold, player = await anyio.to_thread.run_sync(_seated_before, *args)
        return Response(_game_out(t, fold, player), headers=_replayed(True))
    return Response(_game_out(t, fold, player))


def _seated_before(
    request: Request[Any, Any, Any], game_id: UUID, seat: int | None, refused: Conflict
) -> tuple[Fold, Player]:
    """The game a keyed join was answered with before, if the caller holds the seat it
    asked for (any seat, if none); else the refusal stands."""
    t = _app(request)
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
    write: Callable[[Games, Player, UUID], Awaitable[Fold]],
    repeated: Callable[[Fold, Player], bool] | None = None,
) -> Any:
    """`POST /v1/games/{id}/<path>` by a player: `write`, answered with the game;
    `Idempotent-Replayed: true` when the game shows beforehand that the write was
    `repeated` (it then changes nothing)."""

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
        request: Request[Any, Any, Any], game_id: FromPath[UUID]
    ) -> Response[s.GameOut]:
        t = _app(request)
        player = await t.player(request)
        again = False
        if repeated is not None:
            before = await anyio.to_thread.run_sync(t.game, game_id)
            again = repeated(before, player)
        fold = await write(t.games, player, game_id)
        return Response(_game_out(t, fold, player), headers=_replayed(again))

    return handler


def _accepted_before(fold: Fold, player: Player) -> bool:
    seat = fold.seat_of(player.id)
    return fold.rematch is not None and seat is not None and seat in fold.rematch_accepted


resign_game = _lifecycle_route(
    "resign",
    "resignGame",
    "Resign your seat: it ranks last. A two-seat game ends at once (the other seat wins); "
    "with more seats a bot plays your seat to the end. 409 `game_over` once the game is "
    "finished or aborted, `game_not_started` before it starts (leave instead).",
    Games.resign,
)
abort_game = _lifecycle_route(
    "abort",
    "abortGame",
    "Cancel the game (its creator only) before any player's decision: status `aborted`, "
    "no result, never rated. 409 `abort_too_late` once a player has decided.",
    Games.abort,
)
leave_game = _lifecycle_route(
    "leave",
    "leaveGame",
    "Give up your seat in a game that has not started; the seat is free again. 409 "
    "`game_not_open` once it has started (resign instead).",
    Games.leave,
)
rematch_game = _lifecycle_route(
    "rematch",
    "rematchGame",
    "Offer a rematch of a finished game, or accept the one offered: answers the new game "
    "(same game, options and clock; each player one seat earlier; bots accept at once). "
    "It starts when every player has accepted. 409 `game_not_finished` before the end. "
    "Asking again answers the same game, with `Idempotent-Replayed: true`.",
    Games.rematch,
    _accepted_before,
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
    if wait_for_version is not None:
        await _wait_past(request, game_id, wait_for_version, timeout_s)
    answer: Response[s.GameOut] = await _read(request, game_id, _get_game, if_none_match)
    return answer


async def _wait_past(
    request: Request[Any, Any, Any], game_id: UUID, version: int, timeout: float
) -> None:
    """Until the game is past `version` or over, or `timeout` seconds have passed: woken by
    its commits (this process's at once, other processes' through the log), never polling
    on a timer."""
    t = _app(request)
    deadline = asyncio.get_running_loop().time() + timeout
    with t.live.watching(game_id) as woken:
        while True:
            woken.clear()  # before reading: a commit during the read wakes us again
            fold = await t.game_reads.current_on_loop(game_id)
            if fold is None:
                fold = await anyio.to_thread.run_sync(t.game, game_id)
            left = deadline - asyncio.get_running_loop().time()
            if fold.version > version or fold.over or left <= 0:
                return
            with suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), left)


def _get_game(
    request: Request[Any, Any, Any], fold: Fold, if_none_match: str | None
) -> Response[s.GameOut]:
    t = _app(request)
    player = t.caller(request, required=False)
    seat = t.game_reads.seat_for(fold, player)  # the body names the caller's seat
    return versioned(if_none_match, fold.version, lambda: _game_out(t, fold, player), seat)


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
    moves: Response[s.LegalMoves] = await _read(request, game_id, _legal_moves, *args)
    return moves


def _legal_moves(
    request: Request[Any, Any, Any],
    fold: Fold,
    offset: int,
    limit: int,
    if_none_match: str | None,
) -> Response[s.LegalMoves]:
    t = _app(request)
    player = t.caller(request, required=True)
    seat = t.game_reads.seat_for(fold, player)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")

    def page() -> s.LegalMoves:
        total, moves = t.game_reads.legal_moves(fold, seat, offset, limit)
        return s.LegalMoves(version=fold.version, moves=moves, total=total, offset=offset)

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
    t = _app(request)
    arrived = t.games.now()  # the player's decision time: the server's work is not theirs
    player = await t.player(request)
    args = (game_id, data.expected_version, data.move, idempotency_key, arrived)
    answer = await t.games.move(player, *args)
    events = [msgspec.convert(e, s.EventOut) for e in answer.events]
    legal = None
    if answer.legal is not None:
        total, moves = answer.legal
        legal = s.LegalMoves(version=answer.version, moves=moves, total=total, offset=0)
    body = s.MoveResult(answer.version, events, answer.awaiting, answer.status, legal)
    return Response(body, headers=_replayed(answer.replayed))


@get(
    "/v1/games/{game_id:uuid}/events",
    operation_id="listEvents",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    response_headers=[LINK],
    responses=documented(400, 401, 403, 404, 409, 422),
)
def list_events(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    after: Annotated[int, QueryParameter(ge=0, le=2**31)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1000,
    follow: FromQuery[bool] = False,
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> Response[Any]:
    """The events the caller may see, in order (`Accept: application/x-ndjson` streams one
    per line; with `follow=true` the stream stays open, sends each new event as it is
    appended and ends after the game's last event; `limit` applies to pages only). Each
    has a readable `text` as the caller's seat saw it; once the game is finished, `seat`
    gives the lines as that seat saw them (while it runs, only the caller's own seat). A
    full page links the next (`Link: <...>; rel="next"`, `after` its last version).

    Example: GET /v1/games/{game_id}/events?after=0&limit=100"""
    t = _app(request)
    fold = t.game(game_id)
    caller = t.game_reads.seat_for(fold, t.caller(request, required=False))
    seat = seat_asked(fold, caller, seat)
    ndjson = NDJSON in request.headers.get("accept", "")
    if ndjson and follow:
        return Stream(_headers_first(ndjson_lines(t, game_id, seat, after)), media_type=NDJSON)
    events = t.game_reads.visible_events(fold, seat, after, limit)
    if ndjson:
        return Stream(_ndjson(events), media_type=NDJSON)
    page = s.EventPage(fold.version, [msgspec.convert(e, s.EventOut) for e in events])
    full = len(events) == limit
    return Response(page, headers=next_link(request, after=events[-1]["version"] if full else None))


@get(
    "/v1/games/{game_id:uuid}/replay",
    operation_id="replayGame",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    responses=documented(400, 401, 403, 404, 409, 422),
)
def replay(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    version: Annotated[int, QueryParameter(ge=-(2**31), le=2**31)],
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> Response[s.ReplayOut]:
    """The caller's view of the game after its first `version` events. Once the game is
    finished (or aborted), `seat` shows that seat's view of the time instead, and the
    answer never changes (`Cache-Control: immutable`); while it runs, `seat` may only name
    the caller's own seat (403 `not_your_seat`).

    Example: GET /v1/games/{game_id}/replay?version=20"""
    t = _app(request)
    fold = t.game(game_id)
    caller = t.game_reads.seat_for(fold, t.caller(request, required=False))
    body = replay_out(t.game_reads, fold, caller, version, seat)
    # Finished, it shows the same to anyone: only a running game's view is the caller's.
    return Response(body, headers=IMMUTABLE if fold.over else {"Vary": "Authorization"})


@get(
    "/v1/games/{game_id:uuid}/export",
    operation_id="exportGame",
    tags=["games"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 401, 404, 409),
)
def export(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    tree_size: Annotated[int | None, QueryParameter(ge=0, le=2**62)] = None,
) -> Stream:
    """The complete log of a finished game (docs/export-format.md), one JSON per line; its
    footer signed, with the inclusion proof of its final hash against the latest signed
    tree head (or the head over `tree_size` leaves: one you saved). It never changes for
    a given `tree_size` (`Cache-Control: immutable`).

    Example: GET /v1/games/{game_id}/export"""
    t = _app(request)
    lines, seed = _log_and_seed(t, game_id, None)
    out = list(export_lines(game_id, lines, seed))
    log_of(t.store).seal(out, tree_size)
    return Stream(_ndjson(out), media_type=NDJSON, headers=IMMUTABLE if tree_size else None)


def _log_and_seed(
    t: Tabletop, game_id: UUID, arbiter: Player | None
) -> tuple[list[dict[str, Any]], str]:
    """A game's stored records (read raw) and the seed to check them with: a finished
    game's, or a running game's for an arbiter. A game whose records no longer read is
    judged on its raw records alone: the seed is the one its stored last event reveals."""
    try:
        fold = t.game(game_id)
    except Conflict as refused:
        if refused.code != "game_damaged":
            raise
        lines = stored_lines(t.store, game_id)
        revealed = [
            line["data"].get("seed")
            for line in lines
            if line.get("type") in ENDINGS and isinstance(line.get("data"), dict)
        ]
        if revealed and isinstance(revealed[-1], str):
            return lines, revealed[-1]
        if arbiter is not None and arbiter.id in t.arbiters:
            return lines, t.game_reads.seed_hex(game_id)
        raise
    seed = t.game_reads.seed_of_finished(fold)
    if seed is None:
        if arbiter is None or arbiter.id not in t.arbiters:
            raise Conflict("game_not_finished", "only finished games are exported and audited")
        seed = t.game_reads.seed_hex(game_id)
    return t.game_reads.history.lines(game_id, fold.version), seed


@get(
    "/v1/games/{game_id:uuid}/audit",
    operation_id="auditGame",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    responses=documented(400, 401, 404, 409),
)
def audit(request: Request[Any, Any, Any], game_id: FromPath[UUID]) -> s.AuditOut:
    """Verify the hash chain and re-run every recorded command from the revealed seed
    (finished games; an arbiter, named in TABLETOP_ARBITERS, may audit a running one).

    Example: GET /v1/games/{game_id}/audit"""
    t = _app(request)
    lines, seed = _log_and_seed(t, game_id, t.caller(request, required=False))
    report = verify(list(export_lines(game_id, lines, seed)), seed)
    return msgspec.convert(msgspec.to_builtins(report), s.AuditOut)


# ---- operations ---------------------------------------------------------------------------


async def _headers_first(lines: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """A followed stream that answers at once: gzip holds a response's headers until its
    first chunk, which may be the next move, minutes away; an empty chunk releases them."""
    yield b""
    async for line in lines:
        yield line


def _ndjson(items: list[Any]) -> Iterator[bytes]:
    for item in items:
        yield _encode(item) + b"\n"


async def _watch(app: Litestar) -> None:
    tabletop: Tabletop = app.state.tabletop
    tabletop.watch.attach(asyncio.get_running_loop())


async def _drain(app: Litestar) -> None:
    tabletop: Tabletop = app.state.tabletop
    await tabletop.drain()


def _cors(settings: Settings) -> CORSConfig | None:
    """Browser pages of `TABLETOP_CORS_ORIGINS` may call the API (none: same origin only)
    with the headers it reads and sends."""
    if not settings.cors_origins:
        return None
    return CORSConfig(
        allow_origins=list(settings.cors_origins),
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"],
        expose_headers=["ETag", "Link", "Location", "Idempotent-Replayed", "X-Request-Id"],
    )


def create_app(tabletop: Tabletop, settings: Settings | None = None) -> Litestar:
    settings = settings or Settings()
    app = Litestar(
        route_handlers=[
            create_player,
            create_stream_token,
            get_player,
            list_game_types,
            get_game_type,
            list_games,
            create_game,
            join_game,
            resign_game,
            abort_game,
            leave_game,
            rematch_game,
            player_stream,
            *tournament_routes,
            *trust_routes,
            get_game,
            legal_moves,
            submit_move,
            list_events,
            stream_events,
            replay,
            export,
            audit,
            health,
            metrics,
            *VIEWER,
        ],
        exception_handlers=HANDLERS,  # type: ignore[arg-type]
        middleware=[RequestMiddleware(), GuardMiddleware()],
        request_class=JsonRequest,
        plugins=[StrictStructSchemas()],
        # A Puerto Rico mayor's legal moves run to megabytes: a 778 KB page gzips to 15 KB
        # at level 5 in 42 ms (level 9: 13 KB in 177 ms). Live streams are left alone (their
        # events are small and must not wait in a buffer).
        compression_config=CompressionConfig(
            backend="gzip", minimum_size=1024, gzip_compress_level=5, exclude_opt_key="live"
        ),
        cors_config=_cors(settings),
        openapi_config=OpenAPIConfig(
            title="Tabletop",
            version="1.0.0",
            description="Turn-based board games as immutable event logs.",
            components=Components(
                security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}
            ),
            render_plugins=renderers(),
        ),
        request_max_body_size=1 << 20,
        on_startup=[_watch, lambda _: tabletop.start()],
        on_shutdown=[_drain, lambda _: tabletop.stop()],
        debug=False,
    )
    app.state.tabletop = tabletop
    app.state.settings = settings
    describe_operations(app)
    app.asgi_handler = head_as_get(app.asgi_handler)
    return app

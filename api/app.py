"""The Litestar application: API v1 (the routes are described in openapi/openapi.json).

The `eventsourcing` library is synchronous, so whatever may wait on the store runs in a
worker thread. What needs nothing from the store is answered on the event loop: reads of a
game in memory, and writes whose game and caller are in memory (decided there and saved by
the loop writer, see service/loop_writer.py).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any
from uuid import UUID

import anyio
import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import FromPath, FromQuery, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from api import schemas as s
from api.errors import HANDLERS, documented
from api.game_types import get_game_type, renderers
from api.health import StoreProbe, health
from api.live import LiveHub, ndjson_lines, stream_events
from api.lobby import get_player, list_games
from api.metrics import Metrics, metrics
from api.middleware import RequestMiddleware
from api.perspective import replay_out, seat_asked
from api.player_stream import player_stream
from api.tournaments import ROUTES as tournament_routes
from api.viewer import VIEWER
from projections.runner import GamesRunner, view_for
from projections.wakeup import ring
from service.audit import export_lines, stored_lines, verify
from service.chain import now_text
from service.clocks import micros, stamp
from service.errors import Conflict, Forbidden, Unauthorized
from service.fold import ENDINGS, Fold
from service.games import GameService, game_types
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp
from service.timekeeper import Timekeeper

NDJSON = "application/x-ndjson"
BEARER = [{"bearer": []}]
_encode = msgspec.json.encode


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
    ) -> None:
        self.store = store
        self.games = GameService(store, now)
        self.players = Players(store)
        self.arbiters = arbiters
        self.reads = view_for(store)
        if create_tables:
            self.reads.create_table()
        self.live = LiveHub(store)
        self.games.on_commit = self._committed
        self.metrics = Metrics(self)
        self.probe = StoreProbe(store)
        self._projections = projections
        self.runner: GamesRunner | None = None
        # Applies the timeouts, in a thread of this app with `keep_time` (the store's settings):
        # its writes then reach this process's cache and live streams at once. On Postgres
        # one process of the database keeps time; the others' timekeepers stand by.
        self.timekeeper = Timekeeper(self.games, self.reads)
        self.tournaments = self.timekeeper.tournaments
        self._keep_time = keep_time
        self._time_stop = threading.Event()

    def _committed(self, game_id: UUID, version: int) -> None:
        self.live.publish(game_id, version)
        ring()  # the runner of this process, on SQLite

    def start(self) -> None:
        if self._projections is not None:
            self.runner = GamesRunner(self._projections)
        if self._keep_time is not None:
            threading.Thread(
                target=self.timekeeper.keep, args=(self._keep_time, self._time_stop), daemon=True
            ).start()

    async def drain(self) -> None:
        """Let the loop writer finish its saves and close its connection (before `stop`)."""
        if self.games.loop_writer is not None:
            await self.games.loop_writer.close()
        if self.games.heads is not None:
            await self.games.heads.close()

    def stop(self) -> None:
        self._time_stop.set()
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        self.live.stop()
        self.store.close()

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

    def game(self, game_id: UUID) -> Fold:
        return self.games.get(game_id)

    def in_memory(self, request: Request[Any, Any, Any], game_id: UUID) -> bool:
        """Whether a read of this game by this caller needs nothing from the store."""
        token = _bearer(request)
        return self.games.in_memory(game_id) and (token is None or self.players.known(token))


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
        fold = await t.games.current_on_loop(game_id)
        if fold is not None:
            return read(request, fold, *args)

    def in_thread() -> Any:
        return read(request, t.game(game_id), *args)

    return await anyio.to_thread.run_sync(in_thread)


def _app(request: Request[Any, Any, Any]) -> Tabletop:
    tabletop: Tabletop = request.app.state.tabletop
    return tabletop


def _game_out(t: Tabletop, fold: Fold, player: Player | None) -> s.GameOut:
    seat = t.games.seat_for(fold, player)
    shown = None if fold.over else seat
    return s.GameOut(
        id=str(fold.id),
        game=fold.game.name,
        status=fold.status,
        version=fold.version,
        seats=[
            s.SeatOut(i, fold.players[i], fold.names[i], fold.bots.get(i))
            for i in range(fold.seats)
        ],
        awaiting=fold.awaiting(),
        view=t.games.view(fold, shown),
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
    responses=documented(400, 422),
)
def create_player(request: Request[Any, Any, Any], data: JSONBody[s.NewPlayer]) -> s.PlayerCreated:
    """Register a player. The API key is shown once; only its salted hash is kept."""
    player, key = _app(request).players.register(data.name)
    return s.PlayerCreated(player.id, player.name, key)


# ---- games --------------------------------------------------------------------------------


@get("/v1/game-types", operation_id="listGameTypes", tags=["games"], sync_to_thread=False)
def list_game_types() -> list[s.GameType]:
    return [msgspec.convert(t, s.GameType) for t in game_types()]


@post(
    "/v1/games",
    operation_id="createGame",
    tags=["games"],
    security=BEARER,
    responses=documented(400, 401, 409, 422),
)
async def create_game(request: Request[Any, Any, Any], data: JSONBody[s.NewGame]) -> s.GameOut:
    """Create a game; `bots` fills seats with bots by name ("random" works for every game);
    `seat` seats the creator."""
    t = _app(request)
    bots = {int(seat): bot for seat, bot in data.bots.items()}
    clock = msgspec.to_builtins(data.clock) if data.clock is not None else None
    args = (
        data.game,
        data.seats,
        data.options,
        bots,
        data.seat,
        clock,
        data.on_timeout,
        data.rated,
    )
    fold, player = await _write(request, t.games.create_on_loop, t.games.create, *args)
    return _game_out(t, fold, player)


@post(
    "/v1/games/{game_id:uuid}/join",
    operation_id="joinGame",
    tags=["games"],
    status_code=200,
    security=BEARER,
    responses=documented(400, 401, 404, 409, 422),
)
async def join_game(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    data: JSONBody[s.JoinGame | None] = None,
) -> s.GameOut:
    """Take a seat (the first free one if none is named); the game starts when full."""
    t = _app(request)
    seat = data.seat if data else None
    fold, player = await _write(request, t.games.join_on_loop, t.games.join, game_id, seat)
    return _game_out(t, fold, player)


def _lifecycle_route(
    path: str, operation_id: str, doc: str, write: Callable[[GameService, Player, UUID], Fold]
) -> Any:
    """`POST /v1/games/{id}/<path>` by a player: `write` done in a worker thread (it may
    wait on the store), answered with the game."""

    @post(
        f"/v1/games/{{game_id:uuid}}/{path}",
        operation_id=operation_id,
        tags=["games"],
        status_code=200,
        security=BEARER,
        responses=documented(400, 401, 403, 404, 409, 422),
        description=doc,
        sync_to_thread=True,
    )
    def handler(request: Request[Any, Any, Any], game_id: FromPath[UUID]) -> s.GameOut:
        t = _app(request)
        player = t.caller(request, required=True)
        assert player is not None
        return _game_out(t, write(t.games, player, game_id), player)

    return handler


resign_game = _lifecycle_route(
    "resign",
    "resignGame",
    "Resign your seat: it ranks last. A two-seat game ends at once (the other seat wins); "
    "with more seats a bot plays your seat to the end. 409 `game_over` once the game is "
    "finished or aborted, `game_not_started` before it starts (leave instead).",
    GameService.resign,
)
abort_game = _lifecycle_route(
    "abort",
    "abortGame",
    "Cancel the game (its creator only) before any player's decision: status `aborted`, "
    "no result, never rated. 409 `abort_too_late` once a player has decided.",
    GameService.abort,
)
leave_game = _lifecycle_route(
    "leave",
    "leaveGame",
    "Give up your seat in a game that has not started; the seat is free again. 409 "
    "`game_not_open` once it has started (resign instead).",
    GameService.leave,
)
rematch_game = _lifecycle_route(
    "rematch",
    "rematchGame",
    "Offer a rematch of a finished game, or accept the one offered: answers the new game "
    "(same game, options and clock; each player one seat earlier; bots accept at once). "
    "It starts when every player has accepted. 409 `game_not_finished` before the end.",
    GameService.rematch,
)


@get(
    "/v1/games/{game_id:uuid}",
    operation_id="getGame",
    tags=["games"],
    responses=documented(400, 401, 404, 409),
)
async def get_game(request: Request[Any, Any, Any], game_id: FromPath[UUID]) -> s.GameOut:
    """The game as the caller may see it: its seat's view, the public view for spectators,
    everything once finished."""
    game_out: s.GameOut = await _read(request, game_id, _get_game)
    return game_out


def _get_game(request: Request[Any, Any, Any], fold: Fold) -> s.GameOut:
    t = _app(request)
    return _game_out(t, fold, t.caller(request, required=False))


@get(
    "/v1/games/{game_id:uuid}/legal-moves",
    operation_id="getLegalMoves",
    tags=["games"],
    security=BEARER,
    responses=documented(400, 401, 403, 404, 409),
)
async def legal_moves(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    offset: Annotated[int, QueryParameter(ge=0, le=2**40)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1000,
) -> s.LegalMoves:
    """Every move the caller's seat may make now, each exactly a body for POST .../moves,
    a page at a time (`total` tells how many there are)."""
    moves: s.LegalMoves = await _read(request, game_id, _legal_moves, offset, limit)
    return moves


def _legal_moves(
    request: Request[Any, Any, Any], fold: Fold, offset: int, limit: int
) -> s.LegalMoves:
    t = _app(request)
    player = t.caller(request, required=True)
    seat = t.games.seat_for(fold, player)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")
    total, moves = t.games.legal_moves(fold, seat, offset, limit)
    return s.LegalMoves(version=fold.version, moves=moves, total=total, offset=offset)


@post(
    "/v1/games/{game_id:uuid}/moves",
    operation_id="submitMove",
    tags=["games"],
    status_code=200,
    security=BEARER,
    responses=documented(400, 401, 403, 404, 409, 422),
)
async def submit_move(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    data: JSONBody[s.MoveRequest],
    idempotency_key: Annotated[
        str, HeaderParameter(name="Idempotency-Key", min_length=1, max_length=200)
    ],
) -> s.MoveResult:
    """Apply a move at `expected_version`. A retry with the same Idempotency-Key gets the
    first answer; bots awaited next move in the same request, so `version` may be beyond
    the move's own events."""
    t = _app(request)
    args = (game_id, data.expected_version, data.move, idempotency_key)
    answer, _ = await _write(request, t.games.move_on_loop, t.games.move, *args)
    events = [msgspec.convert(e, s.EventOut) for e in answer.events]
    return s.MoveResult(answer.version, events, answer.awaiting, answer.status)


async def _write(
    request: Request[Any, Any, Any],
    on_loop: Callable[..., Awaitable[Any]],
    in_thread: Callable[..., Any],
    *args: Any,
) -> tuple[Any, Player]:
    """A write by the caller: decided on the event loop and saved with no thread hop when
    the caller is known in memory and the service finds all else there too; otherwise (the
    service hands it back with None) done from the start in a worker thread, where it may
    wait on the store."""
    t = _app(request)
    token = _bearer(request)
    if token and t.players.known(token):
        player = t.caller(request, required=True)
        assert player is not None
        done = await on_loop(player, *args)
        if done is not None:
            return done, player

    def in_a_thread() -> tuple[Any, Player]:
        player = t.caller(request, required=True)
        assert player is not None
        return in_thread(player, *args), player

    return await anyio.to_thread.run_sync(in_a_thread)


@get(
    "/v1/games/{game_id:uuid}/events",
    operation_id="listEvents",
    tags=["games"],
    sync_to_thread=True,
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
    gives the lines as that seat saw them (while it runs, only the caller's own seat)."""
    t = _app(request)
    fold = t.game(game_id)
    caller = t.games.seat_for(fold, t.caller(request, required=False))
    seat = seat_asked(fold, caller, seat)
    ndjson = NDJSON in request.headers.get("accept", "")
    if ndjson and follow:
        return Stream(ndjson_lines(t, game_id, seat, after), media_type=NDJSON)
    events = t.games.visible_events(fold, seat, after, limit)
    if ndjson:
        return Stream(_ndjson(events), media_type=NDJSON)
    page = s.EventPage(fold.version, [msgspec.convert(e, s.EventOut) for e in events])
    return Response(page)


@get(
    "/v1/games/{game_id:uuid}/replay",
    operation_id="replayGame",
    tags=["games"],
    sync_to_thread=True,
    responses=documented(400, 401, 403, 404, 409, 422),
)
def replay(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    version: Annotated[int, QueryParameter(ge=-(2**31), le=2**31)],
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> s.ReplayOut:
    """The caller's view of the game after its first `version` events. Once the game is
    finished (or aborted), `seat` shows that seat's view of the time instead; while it runs,
    `seat` may only name the caller's own seat (403 `not_your_seat`)."""
    t = _app(request)
    fold = t.game(game_id)
    caller = t.games.seat_for(fold, t.caller(request, required=False))
    return replay_out(t.games, fold, caller, version, seat)


@get(
    "/v1/games/{game_id:uuid}/export",
    operation_id="exportGame",
    tags=["games"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 401, 404, 409),
)
def export(request: Request[Any, Any, Any], game_id: FromPath[UUID]) -> Stream:
    """The complete log of a finished game (docs/export-format.md), one JSON per line."""
    t = _app(request)
    lines, seed = _log_and_seed(t, game_id, None)
    return Stream(_ndjson(list(export_lines(game_id, lines, seed))), media_type=NDJSON)


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
            return lines, t.games.seed_hex(game_id)
        raise
    seed = t.games.seed_of_finished(fold)
    if seed is None:
        if arbiter is None or arbiter.id not in t.arbiters:
            raise Conflict("game_not_finished", "only finished games are exported and audited")
        seed = t.games.seed_hex(game_id)
    return stored_lines(t.store, game_id), seed


@get(
    "/v1/games/{game_id:uuid}/audit",
    operation_id="auditGame",
    tags=["games"],
    sync_to_thread=True,
    responses=documented(400, 401, 404, 409),
)
def audit(request: Request[Any, Any, Any], game_id: FromPath[UUID]) -> s.AuditOut:
    """Verify the hash chain and re-run every recorded command from the revealed seed
    (finished games; an arbiter may audit a running one)."""
    t = _app(request)
    lines, seed = _log_and_seed(t, game_id, t.caller(request, required=False))
    report = verify(list(export_lines(game_id, lines, seed)), seed)
    return msgspec.convert(msgspec.to_builtins(report), s.AuditOut)


# ---- operations ---------------------------------------------------------------------------


def _ndjson(items: list[Any]) -> Iterator[bytes]:
    for item in items:
        yield _encode(item) + b"\n"


async def _drain(app: Litestar) -> None:
    tabletop: Tabletop = app.state.tabletop
    await tabletop.drain()


def create_app(tabletop: Tabletop) -> Litestar:
    app = Litestar(
        route_handlers=[
            create_player,
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
        middleware=[RequestMiddleware()],
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
        on_startup=[lambda _: tabletop.start()],
        on_shutdown=[_drain, lambda _: tabletop.stop()],
        debug=False,
    )
    app.state.tabletop = tabletop
    return app

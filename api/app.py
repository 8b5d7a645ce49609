"""The Litestar application: API v1 (the routes are described in openapi/openapi.json).

Handlers get what they share (`Tabletop`, api/bootstrap.py) by dependency injection: a
parameter named `tabletop`. The `eventsourcing` library is synchronous, so whatever may
wait on the store runs in a worker thread; what needs nothing from the store is answered on
the event loop (reads of a game in memory, and writes through the write driver,
service/writes.py, which reads and saves off the loop only when it must).
"""

from __future__ import annotations

import asyncio
from typing import cast

from litestar import Litestar
from litestar.config.compression import CompressionConfig
from litestar.config.cors import CORSConfig
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.types import ControllerRouterHandler

from api.bodies import JsonRequest
from api.bootstrap import Tabletop
from api.challenges import ROUTES as challenge_routes
from api.conventions import StrictStructSchemas, describe_operations
from api.errors import HANDLERS
from api.game_history import audit, export, list_events, replay
from api.game_routes import (
    abort_game,
    accept_undo,
    create_game,
    decline_undo,
    get_game,
    join_game,
    leave_game,
    legal_moves,
    list_game_types,
    rematch_game,
    resign_game,
    submit_move,
    undo_game,
)
from api.game_types import get_game_type
from api.guard import GuardMiddleware
from api.handoff import with_transport
from api.head import head_as_get
from api.live import stream_events
from api.lobby import get_player, list_games
from api.middleware import RequestMiddleware
from api.operations import health, metrics, ready
from api.player_routes import create_player, create_stream_token
from api.player_stream import player_stream
from api.ratings_routes import ROUTES as rating_routes
from api.tournaments import ROUTES as tournament_routes
from api.trust import ROUTES as trust_routes
from api.typed_document import renderers
from api.viewer import VIEWER
from service.settings import Settings


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
            undo_game,
            accept_undo,
            decline_undo,
            player_stream,
            *tournament_routes,
            *challenge_routes,
            *rating_routes,
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
            ready,
            metrics,
            *cast("list[ControllerRouterHandler]", VIEWER),  # Router and handlers
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
        dependencies={
            "tabletop": Provide(lambda: tabletop, use_cache=True, sync_to_thread=False),
            "settings": Provide(lambda: settings, use_cache=True, sync_to_thread=False),
        },
        on_startup=[_watch, lambda _: tabletop.start()],
        on_shutdown=[_drain, lambda _: tabletop.stop()],
        debug=False,
    )
    app.state.tabletop = tabletop
    app.state.settings = settings
    describe_operations(app)
    # outermost: the GET's own connection, for a game stream handed to the fan-out
    app.asgi_handler = with_transport(head_as_get(app.asgi_handler))
    return app

"""One middleware around every HTTP request: binds a request id to every log line of the
request, echoes it in `X-Request-Id`, logs the request once and counts it in the metrics,
while under way and once answered (one wrapper for both: it runs on every request)."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

import structlog
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from api.bootstrap import Tabletop

log = structlog.get_logger("tabletop.http")


class RequestMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        given = b""
        for name, value in scope.get("headers") or ():
            if name == b"x-request-id":
                given = value[:64]
        request_id = given.decode("latin-1") or uuid.uuid4().hex
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status: dict[str, Any] = {"code": 500}
        tabletop: Tabletop = scope["litestar_app"].state.tabletop
        method = str(scope.get("method", ""))
        route = scope.get("path_template") or "unmatched"
        tabletop.metrics.begun(method, route)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            await next_app(scope, receive, sending)
        finally:
            elapsed = time.perf_counter() - started
            log.info(
                "request",
                method=method,
                path=scope.get("path"),
                status=status["code"],
                ms=round(elapsed * 1000, 2),
            )
            structlog.contextvars.unbind_contextvars("request_id")
            tabletop.metrics.observe(method, route, status["code"], elapsed)

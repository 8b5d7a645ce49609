"""HEAD on every GET route (RFC 9110 9.3.2): the GET is run and answered with its status
and headers only. Litestar routes HEAD only to handlers of its own, so this wraps the
whole application, before routing."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Message, Receive, ReceiveMessage, Scope, Send


def head_as_get(app: ASGIApp) -> ASGIApp:
    async def handle(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "HEAD":
            await app(scope, receive, send)
            return
        answered = False

        async def headers_only(message: Message) -> None:
            nonlocal answered
            if answered:
                return
            if message["type"] == "http.response.start":
                await send(message)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                answered = True

        async def hanging_up() -> ReceiveMessage:
            # Once answered, a stream (SSE, NDJSON) hears the client leave and stops.
            if answered:
                return {"type": "http.disconnect"}
            return await receive()

        as_get: HTTPScope = {**scope, "method": "GET"}
        await app(as_get, hanging_up, headers_only)

    return handle

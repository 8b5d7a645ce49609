"""The HTTP protocol `tabletop serve` gives uvicorn: its own, with slow requests timed out
and connections bounded.

uvicorn times out only a keep-alive connection that waits between requests; a client that
opens a connection and sends half a request (or nothing at all) holds it for as long as it
likes, and a few thousand such clients hold a worker's file descriptors. Here a request must
arrive in full (head and body) within READ_TIMEOUT of its first byte, or of the connection's
opening; otherwise the connection is answered 408 (or just closed, once a response has
begun) and closed. A process keeps at most MAX_CONNECTIONS connections: the next ones are
closed at once. Both come from the environment (`tabletop serve` sets them from its options).
"""

from __future__ import annotations

import asyncio
import os

import structlog
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = structlog.get_logger("tabletop.http")

READ_TIMEOUT = float(os.environ.get("TABLETOP_READ_TIMEOUT", "10"))
MAX_CONNECTIONS = int(os.environ.get("TABLETOP_MAX_CONNECTIONS", "2048"))
_TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"


class BoundedHttp(HttpToolsProtocol):
    _reading: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            log.warning("connection_refused", connections=len(self.connections))
            transport.close()
            return
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._reading is None:
            self._reading = self.loop.call_later(READ_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def _too_slow(self) -> None:
        self._reading = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete or not cycle.response_started:
            self.transport.write(_TIMED_OUT)
        self.transport.close()

"""The HTTP protocol `tabletop serve` gives uvicorn: its own, with slow requests timed out
and connections bounded, in total and per client address.

uvicorn times out only a keep-alive connection that waits between requests; a client that
opens a connection and sends half a request (or nothing at all) holds it for as long as it
likes, and a few thousand such clients hold a worker's file descriptors. Here a request's
head must arrive within HEADER_TIMEOUT, and the whole request (head and body) within
READ_TIMEOUT, of its first byte or of the connection's opening; otherwise the connection is
answered 408 (or just closed, once a response has begun) and closed. Between requests a
connection stays open KEEP_ALIVE seconds.

A process keeps at most MAX_CONNECTIONS connections, and at most MAX_PER_ADDRESS from one
client address (an IPv6 client counts by its /64, which one host usually holds whole): one
client holding thousands of idle sockets gets its share and no more, so it cannot fill the
process and every other client is still accepted. The connections beyond either cap are
reset at once, before any byte is read. The TCP peer counts, not X-Forwarded-For: the
reverse proxies trusted to name clients (`--forwarded-allow-ips`) carry many clients each and
are held to the total only (a proxy caps its sources itself: docs/operations.md). Refusals
are logged at most once per REFUSALS_LOGGED_EVERY seconds, with how many there were: a
flood must not become a log flood.

Every setting comes from the environment (`tabletop serve` sets them from its options).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import resource
import socket
import struct
from collections import Counter
from typing import Any

import structlog
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = structlog.get_logger("tabletop.http")

HEADER_TIMEOUT = float(os.environ.get("TABLETOP_HEADER_TIMEOUT", "5"))
READ_TIMEOUT = float(os.environ.get("TABLETOP_READ_TIMEOUT", "10"))
KEEP_ALIVE = float(os.environ.get("TABLETOP_KEEP_ALIVE", "5"))
MAX_CONNECTIONS = int(os.environ.get("TABLETOP_MAX_CONNECTIONS", "2048"))
MAX_PER_ADDRESS = int(os.environ.get("TABLETOP_MAX_PER_ADDRESS", "64"))
REFUSALS_LOGGED_EVERY = 10.0
_TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
# SO_LINGER on, for 0 s: close() sends a reset and frees the socket at once, leaving no
# TIME_WAIT behind however many connections a flood makes
_RESET = struct.pack("ii", 1, 0)

# this process's open connections by client address (its key: see _address)
_open: Counter[str] = Counter()


def _address(host: str) -> str:
    """What the per-address cap counts: an IPv4 address as it is, an IPv6 one by its /64."""
    if ":" not in host:
        return host
    ip = ipaddress.IPv6Address(host.split("%", 1)[0])
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return f"{ipaddress.IPv6Address(int(ip) >> 64 << 64)}/64"


class _Proxies:
    """The addresses of `--forwarded-allow-ips`: exempt from the per-address cap. `*` trusts
    any address to name its client, but a cap that exempts everyone is no cap: under `*`
    every address is capped, so list the proxies themselves."""

    def __init__(self, allowed: list[str] | str) -> None:
        entries = allowed.split(",") if isinstance(allowed, str) else allowed
        self.hosts: set[str] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for entry in (e.strip() for e in entries):
            if not entry or entry == "*":
                continue
            try:
                if "/" in entry:
                    self.networks.append(ipaddress.ip_network(entry, strict=False))
                else:
                    self.hosts.add(str(ipaddress.ip_address(entry)))
            except ValueError:
                self.hosts.add(entry)  # as uvicorn does: a literal (a unix socket's name)

    def __contains__(self, host: str) -> bool:
        if host in self.hosts:
            return True
        if not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        return any(ip in network for network in self.networks)


class _Refusals:
    """Refused connections, logged at once and then at most once per period, with their
    count: a flood of refusals costs a line every REFUSALS_LOGGED_EVERY seconds."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.last: str | None = None
        self.window: asyncio.TimerHandle | None = None

    def add(
        self, loop: asyncio.AbstractEventLoop, reason: str, address: str | None, open_now: int
    ) -> None:
        if self.window is None:
            log.warning("connection_refused", reason=reason, address=address,
                        connections=open_now)  # fmt: skip
            self.window = loop.call_later(REFUSALS_LOGGED_EVERY, self._flush, loop)
            return
        self.counts[reason] += 1
        self.last = address

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self.counts:
            self.window = None
            return
        log.warning("connections_refused", seconds=REFUSALS_LOGGED_EVERY, **self.counts,
                    last_address=self.last)  # fmt: skip
        self.counts.clear()
        self.window = loop.call_later(REFUSALS_LOGGED_EVERY, self._flush, loop)


_refusals = _Refusals()


def open_files_for(max_connections: int) -> str | None:
    """Raise this process's soft limit on open files (its workers inherit it) to what
    `max_connections` needs, as far as the hard limit allows; what to do if it falls short.
    Past the limit accept() fails, and asyncio then stops accepting for a second each time:
    every client, /health included, is left unanswered while the process is full."""
    wanted = max_connections + 512  # the database pools, the logs, the runner's pipes
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return None
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    if raised >= wanted:
        return None
    return (
        f"open files are limited to {raised} (ulimit -Hn): lower --max-connections to "
        f"{max(1, raised - 512)} or raise the limit"
    )


class BoundedHttp(HttpToolsProtocol):
    _proxies: _Proxies | None = None
    _counted: str | None = None  # the address this connection counts against
    _refused = False
    _head: asyncio.TimerHandle | None = None
    _reading: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_keep_alive = KEEP_ALIVE  # type: ignore[assignment]  # a float will do

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # Decided before uvicorn sets anything up for the connection, and before any read.
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) else None
        if len(self.connections) >= MAX_CONNECTIONS:
            self._refuse(transport, "total", host)
            return
        trusted = self._trusted()
        if host is not None and host not in trusted and (address := _address(host)) not in trusted:
            # (the second test: an IPv4 proxy reaching a dual-stack socket, as ::ffff:a.b.c.d)
            if _open[address] >= MAX_PER_ADDRESS:
                self._refuse(transport, "per_address", address)
                return
            _open[address] += 1
            self._counted = address
        super().connection_made(transport)
        self._arm()

    def _trusted(self) -> _Proxies:
        if BoundedHttp._proxies is None:
            BoundedHttp._proxies = _Proxies(self.config.forwarded_allow_ips)
        return BoundedHttp._proxies

    def _refuse(self, transport: asyncio.Transport, reason: str, address: str | None) -> None:
        self._refused = True
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # the peer may have closed it already
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        transport.abort()
        _refusals.add(self.loop, reason, address, len(self.connections))

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Bytes between requests that begin none (blank lines) stop uvicorn's keep-alive
        # timer without starting ours: they would keep the connection forever.
        between = self.cycle is None or self.cycle.response_complete
        if between and self.timeout_keep_alive_task is None and self._head is None:
            self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        if self._head is not None:
            self._head.cancel()
            self._head = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return  # uvicorn never saw it
        if self._counted is not None:
            _open[self._counted] -= 1
            if _open[self._counted] <= 0:
                del _open[self._counted]
            self._counted = None
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._head is None:
            self._head = self.loop.call_later(HEADER_TIMEOUT, self._too_slow)
        if self._reading is None:
            self._reading = self.loop.call_later(READ_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        for timer in (self._head, self._reading):
            if timer is not None:
                timer.cancel()
        self._head = self._reading = None

    def _too_slow(self) -> None:
        self._disarm()
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete or not cycle.response_started:
            self.transport.write(_TIMED_OUT)
        self.transport.close()

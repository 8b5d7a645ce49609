"""Connection fairness (issue 27, point 3): one client holding thousands of idle sockets
must not take the server from everyone else. The audit's client held 3,000 from one
address; it got the process's 2,048, and for 10-13 s every other connection, /health
included, was closed unanswered.

Against a real `tabletop serve` on 127.0.0.1, with clients on other loopback addresses
(all of 127.0.0.0/8 is this host's): a flood from 127.0.0.2 holds and reopens 3,000 idle
sockets while 127.0.0.3 gets /health and plays games, p99 under 1 s; the per-address cap
refuses exactly the connections beyond it; a connection that sends no head, half a head, or
nothing after its response is closed within its timeout."""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import time
from collections.abc import Iterator

import pytest

from service.settings import Settings
from tests.support.flood import FLOOD, OTHER, served_beside_a_flood
from tests.support.serve import serve
from tests.support.waits import wait_until


@contextlib.contextmanager
def serving(pg_settings: Settings, **settings: str) -> Iterator[str]:
    env = {**os.environ, "DATABASE_URL": pg_settings.database_url or "", **settings}
    server, url = serve(env, timeout=120)
    try:
        yield url
    finally:
        server.terminate()
        server.wait(20)


@pytest.fixture
def served(pg_settings: Settings) -> Iterator[str]:
    """The server with its defaults: header and idle timeouts 5 s, 64 per address."""
    with serving(pg_settings) as url:
        yield url


def test_a_flood_from_one_address_leaves_the_others_served(served: str) -> None:
    served_beside_a_flood(served, "beside the flood")


def _connect(source: str, url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect((host, int(port)))
    return sock


def _health(sock: socket.socket) -> bytes:
    """Ask /health on a kept-alive connection; the answer's head and body."""
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: tabletop\r\n\r\n")
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        assert chunk, f"closed after {received!r}"
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))  # fmt: skip
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


def _refused(sock: socket.socket) -> bool:
    """Whether the server closed (reset) the connection without a byte, at once."""
    sock.settimeout(5)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False  # accepted: it waits for a request


def test_the_per_address_cap_refuses_exactly_beyond_it(pg_settings: Settings) -> None:
    settings = {"TABLETOP_HEADER_TIMEOUT": "60", "TABLETOP_KEEP_ALIVE": "60"}
    with serving(pg_settings, TABLETOP_MAX_PER_ADDRESS="8", **settings) as url:
        held = [_connect(FLOOD, url) for _ in range(8)]
        for sock in held:  # each answered: the server counts it
            assert _health(sock).startswith(b"HTTP/1.1 200"), "refused within the cap"
        ninth = _connect(FLOOD, url)
        assert _refused(ninth), "a ninth connection from one address was accepted"
        with _connect(OTHER, url) as other:  # another address is not concerned
            assert _health(other).startswith(b"HTTP/1.1 200")
        for sock in held:  # the refusal left the eight alone
            assert _health(sock).startswith(b"HTTP/1.1 200")
        held.pop().close()  # a slot frees once the server has seen the close

        def one_more() -> bool:
            sock = _connect(FLOOD, url)
            if _refused_at_once(sock):
                sock.close()
                return False
            held.append(sock)
            return True

        wait_until(one_more, 10, "a connection accepted once one of the eight closed")
        assert _health(held[-1]).startswith(b"HTTP/1.1 200")
        assert _refused(_connect(FLOOD, url)), "accepted beyond the cap after a slot freed"
        for sock in [*held, ninth]:
            sock.close()


def _refused_at_once(sock: socket.socket) -> bool:
    """As _refused, but asking /health: an accepted connection answers it at once."""
    try:
        return not _health(sock).startswith(b"HTTP/1.1 200")
    except (AssertionError, ConnectionResetError):
        return True


def test_silent_and_idle_connections_are_closed_within_their_timeouts(
    pg_settings: Settings,
) -> None:
    with serving(pg_settings, TABLETOP_HEADER_TIMEOUT="1", TABLETOP_KEEP_ALIVE="1") as url:
        opened = time.monotonic()
        silent = _connect(OTHER, url)  # opened, and never a byte
        half = _connect(OTHER, url)
        half.sendall(b"GET /health HTTP/1.1\r\nHost: tabletop\r\n")  # the head, unfinished
        idle = _connect(OTHER, url)  # answered, then idle
        assert _health(idle).startswith(b"HTTP/1.1 200")
        blank = _connect(OTHER, url)
        assert _health(blank).startswith(b"HTTP/1.1 200")
        blank.sendall(b"\r\n")  # begins no request: it must not stop every timer
        socks = {"silent": silent, "half a head": half, "idle": idle, "a blank line": blank}
        answers = {"silent": b"HTTP/1.1 408", "half a head": b"HTTP/1.1 408", "idle": b"",
                   "a blank line": b"HTTP/1.1 408"}  # fmt: skip
        for name, (at, received) in _closing(socks, 10).items():
            took = at - opened
            assert 0.9 <= took < 1 + 1.5, f"{name}: closed after {took:.2f} s (setting: 1 s)"
            assert received.startswith(answers[name]), f"{name}: {received!r}"


def _closing(socks: dict[str, socket.socket], limit: float) -> dict[str, tuple[float, bytes]]:
    """When the server closed each connection (time.monotonic()), and what it sent before."""
    received = dict.fromkeys(socks, b"")
    closed: dict[str, tuple[float, bytes]] = {}
    with selectors.DefaultSelector() as selector:
        for name, sock in socks.items():
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, name)
        deadline = time.monotonic() + limit
        while len(closed) < len(socks) and time.monotonic() < deadline:
            for key, _ in selector.select(deadline - time.monotonic()):
                name = key.data
                try:
                    chunk = socks[name].recv(4096)
                except ConnectionResetError:
                    chunk = b""
                if chunk:
                    received[name] += chunk
                    continue
                closed[name] = (time.monotonic(), received[name])
                selector.unregister(socks[name])
    for sock in socks.values():
        sock.close()
    assert closed.keys() == socks.keys(), f"still open after {limit} s: {socks.keys() - closed}"
    return closed

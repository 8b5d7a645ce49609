"""Handing a live stream's connection over to the fan-out (api/fanout.py).

The game stream's handler answers the request as before (401, 404, 406, 204; the head and
`retry:`), then passes the socket itself: a duplicate of its descriptor goes over a Unix
socket (SCM_RIGHTS) to the fan-out with the game, the seat and the last version sent, and
the API process closes its own copy (a close, not a shutdown: the connection stays open in
the fan-out). From then on the API's event loop does nothing for that stream.

The fan-out starts with the first stream that could use it: on Postgres a process of its
own, on SQLite a thread with its own event loop. Until it says it is ready, streams are
served by the API process as before, and move over at their next event (or at once, when
it becomes ready). If the process dies its streams break and their clients reconnect
(Last-Event-ID: nothing is missed); the next stream starts another.

Only what uvicorn serves can be handed over: the transport comes from uvicorn's send
callable, and a connection over TLS, HTTP/1.0 or under a test client keeps the in-process
stream.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any
from uuid import UUID

import structlog
from eventsourcing.sqlite import SQLiteApplicationRecorder
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from api.fanout import MESSAGE, FanOut, reader
from service.store import EventStoreApp

log = structlog.get_logger("tabletop.live")

TRANSPORT = "tabletop.transport"  # the scope's key for the connection's transport
# seconds before a fan-out that died is started again, doubled each time it dies before it
# was ready, up to GIVE_UP_FOR (a broken one is not restarted in a loop)
RESTART_EVERY = 1.0
GIVE_UP_FOR = 60.0
STOP_WAIT = 2.0  # seconds a stopping API process waits for its fan-out process to end
# the fan-out process's own pool: a read per view at a time and its LISTEN
POOL = {"POSTGRES_POOL_SIZE": "2", "POSTGRES_MAX_OVERFLOW": "4", "CREATE_TABLE": "n"}


def with_transport(app: ASGIApp) -> ASGIApp:
    """Notes, in the scope of a GET that could be handed over, the connection's transport:
    uvicorn's send callable is a method of the request's cycle, which holds it."""

    async def handle(scope: Scope, receive: Receive, send: Send) -> None:
        http = scope["type"] == ScopeType.HTTP
        if http and scope["method"] == "GET" and scope["http_version"] == "1.1":  # type: ignore[typeddict-item]
            # asyncio's or uvloop's (which is no asyncio.Transport, but behaves as one)
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            extra = getattr(transport, "get_extra_info", None)
            if extra is not None and extra("socket") is not None and not extra("sslcontext"):
                scope[TRANSPORT] = transport  # type: ignore[literal-required]
        await app(scope, receive, send)

    return handle


class Handoff:
    """The API process's side of the fan-out: starts it, hands it connections, notices when
    it is gone. `hub` is the process's LiveHub: it wakes the streams to move over once the
    fan-out is ready, and (on SQLite) feeds the fan-out's thread with this process's
    commits."""

    def __init__(self, store: EventStoreApp, hub: Any) -> None:
        self._store = store
        self._hub = hub
        self._lock = threading.Lock()
        self._channel: socket.socket | None = None
        self._games: frozenset[str] | None = None  # the games it knows, once ready
        self._process: subprocess.Popen[bytes] | None = None
        self._started_at = -GIVE_UP_FOR
        self._wait = RESTART_EVERY  # before the next start
        self._stopped = False
        self.given = 0  # connections handed over so far

    @property
    def in_thread(self) -> bool:
        return isinstance(self._store.recorder, SQLiteApplicationRecorder)

    @property
    def ready(self) -> bool:
        return self._games is not None

    @property
    def pid(self) -> int | None:
        """The fan-out process's id (None in a thread, or before it starts)."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def give(
        self, transport: asyncio.Transport, game: str, game_id: UUID, seat: int | None, after: int
    ) -> bool:
        """(On the event loop) Hand the connection over, the stream having sent everything
        up to version `after`; False when it cannot be now (the stream stays here)."""
        games, channel = self._games, self._channel
        if games is None or channel is None:
            self.start()
            return False
        sock = transport.get_extra_info("socket")
        if (
            game not in games
            or sock is None
            or transport.is_closing()
            or transport.get_write_buffer_size()  # the client is behind: sent, not received
        ):
            return False
        # the client address the connection counted against here (None: a trusted proxy's,
        # uncapped): the fan-out caps its streams per address as api/server.py does
        address = getattr(transport.get_protocol(), "_counted", None)
        asked = {"game": str(game_id), "seat": seat, "after": after, "address": address}
        message = json.dumps(asked).encode()
        transport.pause_reading()
        fd = os.dup(sock.fileno())
        try:
            socket.send_fds(channel, [message], [fd], socket.MSG_DONTWAIT)
        except OSError as error:
            transport.resume_reading()
            if not isinstance(error, BlockingIOError):  # busy: later; otherwise it is gone
                self._lost(channel)
            return False
        finally:
            os.close(fd)
        transport.close()  # this process's descriptor only: no shutdown, nothing written
        self.given += 1
        return True

    def start(self) -> None:
        """Start the fan-out unless it runs (or was started less than RESTART_EVERY ago)."""
        with self._lock:
            now = time.monotonic()
            if self._stopped or self._channel is not None or now - self._started_at < self._wait:
                return
            self._started_at = now
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self._channel = ours
        try:
            process = None if self.in_thread else self._spawn(ours, theirs)
            if process is None:
                threading.Thread(target=_serve_in_thread, args=(theirs, self._hub, self._store),
                                 name="fanout", daemon=True).start()  # fmt: skip
        except Exception as error:
            log.warning("fanout_not_started", error=repr(error))
            theirs.close()
            self._lost(ours)
            ours.close()
            return
        self._process = process
        threading.Thread(target=self._listen, args=(ours, process), daemon=True).start()

    def _spawn(self, ours: socket.socket, theirs: socket.socket) -> subprocess.Popen[bytes]:
        root = str(Path(__file__).resolve().parent.parent)
        path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "api.fanout_process", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env={**os.environ, "PYTHONPATH": path},
                stdin=subprocess.DEVNULL,
            )
        finally:
            theirs.close()
        env = {k: v for k, v in self._store.env.items() if os.environ.get(k) != v}
        ours.send(json.dumps(env | POOL).encode())
        return process

    def _listen(self, channel: socket.socket, process: subprocess.Popen[bytes] | None) -> None:
        """Hears the fan-out say it is ready, then waits for its end."""
        ready = False
        try:
            hello = json.loads(channel.recv(MESSAGE))
            ready = True
            with self._lock:
                if self._channel is channel:
                    self._games = frozenset(hello["games"])
                    self._wait = RESTART_EVERY
            log.info("fanout_ready", pid=process.pid if process else None)
            self._hub.wake_all()  # the streams served here meanwhile move over
            while channel.recv(MESSAGE):
                pass
        except (OSError, ValueError, KeyError, TypeError):
            pass
        with self._lock:
            stopped = self._stopped
            if not ready:
                self._wait = min(GIVE_UP_FOR, 2 * self._wait)
        if not stopped:
            log.warning("fanout_gone", pid=process.pid if process else None)
        self._lost(channel)
        channel.close()
        if process is not None:
            try:
                process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _lost(self, channel: socket.socket) -> None:
        """The fan-out behind `channel` is gone (or stops): new streams stay here, and the
        next one starts another."""
        with self._lock:
            if self._channel is channel:
                self._channel = None
                self._games = None
        with suppress(OSError):
            channel.shutdown(socket.SHUT_RDWR)  # its listener's recv ends; the fan-out's too

    def stop(self) -> None:
        """(The app stops) the fan-out ends, and the streams it serves with it."""
        with self._lock:
            self._stopped = True
            channel, process = self._channel, self._process
        if channel is not None:
            self._lost(channel)
        if process is not None:
            try:
                process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                process.kill()


def _serve_in_thread(channel: socket.socket, hub: Any, store: EventStoreApp) -> None:
    """The fan-out in a thread of the API process (SQLite), woken by `hub`."""
    from domain.registry import GAMES
    from service.current import Current
    from service.reads import GameReads

    try:
        channel.send(json.dumps({"games": sorted(GAMES)}).encode())
        fanout = FanOut(hub.watching, reader(GameReads(store, Current(store))))
        asyncio.run(fanout.serve(channel))
    except Exception as error:
        log.error("fanout_failed", error=repr(error))
    finally:
        channel.close()

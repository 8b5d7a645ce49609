"""The live fan-out: Server-Sent Events streams of games, served apart from the event loop
that answers the API's requests and writes the moves.

The API process answers a stream's request (its auth, its validation, the response's head
and `retry:`), then hands the connection's socket over (api/handoff.py). Here each (game,
seat view) is read once per burst of commits, each event is rendered once as a chunk of the
SSE body, and the same bytes are written to every socket of that view: one write per
socket per burst, however many events it holds. With 300 spectators in the API's own loop,
the loop spent most of its time passing each event through the ASGI layers 300 times and a
mover's request waited behind that; here a move costs the API process nothing per
spectator.

On Postgres this runs in a process of its own (`python -m api.fanout <fd>`, started by the
API process, at a lower CPU priority than the writers), following the log through
LISTEN/NOTIFY like the API's live hub; on SQLite, whose commits only the writing process
hears at once, in a thread of the API process with its own event loop.

A slow socket never holds the others up: its writes are buffered by its transport, and past
a high-water mark it is skipped (it falls behind; it is caught up from the store once it
drains) and dropped if it stays stuck: an EventSource then reconnects with Last-Event-ID
and misses nothing.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import os
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from typing import Any, cast
from uuid import UUID

import msgspec
import structlog

from api.live_pace import GATHER, HEARTBEAT
from service.fold import ENDINGS

log = structlog.get_logger("tabletop.fanout")

PAGE = 1000  # events per read of the store
HIGH_WATER = 256 * 1024  # bytes a socket may have unsent before it is skipped
STUCK = 60.0  # seconds a skipped socket may stay full before it is dropped
# seconds between reads of a quiet view anyway: its game's commits wake it, but a lost
# LISTEN connection (the hub then stops following) must not leave its streams stalled
RECHECK = 5.0
NICE = 5  # the fan-out process's niceness: the API's writers come first on a busy machine
MESSAGE = 4096  # the largest hand-off message (a game id, a seat, a version, an address)
# streams one client address may hold here (`serve --max-per-address`, as api/server.py)
MAX_PER_ADDRESS = int(os.environ.get("TABLETOP_MAX_PER_ADDRESS", "64"))

KEEP_ALIVE = b": keep-alive\r\n\r\n"
END = b"0\r\n\r\n"  # the chunked body's end


def chunk(payload: bytes) -> bytes:
    """A chunk of an HTTP/1.1 chunked body (the head the API process sent said chunked)."""
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def rendered(event: dict[str, Any]) -> bytes:
    """An event as a chunk of the SSE body: the bytes Litestar's ServerSentEventMessage
    gives (api/live.py), framed."""
    data = msgspec.json.encode(event)
    return chunk(b"id: %d\r\nevent: game_event\r\ndata: %s\r\n\r\n" % (event["version"], data))


Read = Callable[[UUID, int | None, int], tuple[list[dict[str, Any]], bool, int]]


class Batch:
    """Events of one read, rendered once; the bytes from any position joined once."""

    def __init__(self, events: list[dict[str, Any]], over: bool, version: int) -> None:
        self.versions = [e["version"] for e in events]
        self.chunks = [rendered(e) for e in events]
        self.ending = next((e["version"] for e in events if e["type"] in ENDINGS), None)
        self.over, self.version = over, version
        self._joined: dict[int, bytes] = {}

    def after(self, sent: int) -> tuple[bytes, int]:
        """The bytes of the events after version `sent`, and the last version in them."""
        start = bisect.bisect_right(self.versions, sent)
        if start == len(self.versions):
            return b"", sent
        joined = self._joined.get(start)
        if joined is None:
            joined = self._joined[start] = b"".join(self.chunks[start:])
        return joined, self.versions[-1]


class Stream(asyncio.Protocol):
    """One spectator's (or player's) socket: what it was sent, and whether it keeps up."""

    def __init__(
        self, view: View, sent: int, address: str | None = None, counts: Counter[str] | None = None
    ) -> None:
        self.view, self.sent = view, sent
        self._address, self._counts = address, counts  # what it counts against, if capped
        self.transport: asyncio.WriteTransport | None = None
        self.full_since: float | None = None  # when its buffer passed the high-water mark
        self.written = time.monotonic()
        self.done = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's is no asyncio.WriteTransport, but behaves as one
        self.transport = cast(asyncio.WriteTransport, transport)
        self.transport.set_write_buffer_limits(high=HIGH_WATER)
        self.view.streams.add(self)
        if self._address is not None and self._counts is not None:
            self._counts[self._address] += 1

    def data_received(self, data: bytes) -> None:
        """A client sends nothing more on a stream (a pipelined request goes unanswered)."""

    def eof_received(self) -> bool:
        return False  # the client left: close

    def connection_lost(self, exc: Exception | None) -> None:
        self.done = True
        self.view.leave(self)
        if self._address is not None and self._counts is not None:
            self._counts[self._address] -= 1
            if self._counts[self._address] <= 0:
                del self._counts[self._address]
            self._address = None

    def pause_writing(self) -> None:
        self.full_since = time.monotonic()

    def resume_writing(self) -> None:
        self.full_since = None
        self.view.wake()  # it is caught up from where it stopped

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)
        self.written = time.monotonic()

    def send(self, batch: Batch) -> None:
        data, last = batch.after(self.sent)
        if data:
            self.write(data)
            self.sent = last
        ended = batch.ending is not None and self.sent >= batch.ending
        if ended or (batch.over and self.sent >= batch.version):
            self.finish()

    def finish(self) -> None:
        """The game's last event was sent: the body ends, then the connection (its head
        said `Connection: close`)."""
        if self.transport is not None and not self.done:
            self.done = True
            self.transport.write(END)
            self.transport.close()
            self.view.leave(self)


class View:
    """A game as one seat (or a spectator, seat None) sees it, and its open streams."""

    def __init__(self, game: UUID, seat: int | None) -> None:
        self.game, self.seat = game, seat
        self.streams: set[Stream] = set()
        self.woken = asyncio.Event()

    def leave(self, stream: Stream) -> None:
        self.streams.discard(stream)

    def wake(self) -> None:
        self.woken.set()


class FanOut:
    """Serves the streams handed over through `channel` until it closes: `watching` wakes a
    view when its game's log grows (a LiveHub's), `read` reads a view's events after a
    version (with whether the game is over and its version)."""

    def __init__(self, watching: Any, read: Read) -> None:
        self._watching = watching
        self._read = read
        self.views: dict[tuple[UUID, int | None], View] = {}
        self.streams_of: Counter[str] = Counter()  # streams held, by client address
        self.refused = 0  # hand-offs refused: their address held its cap already
        self._tasks: set[asyncio.Future[None]] = set()

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def serve(self, channel: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        closed = loop.create_future()
        channel.setblocking(False)
        loop.add_reader(channel.fileno(), self._receive, channel, closed)
        ticking = asyncio.ensure_future(self._tick())
        try:
            await closed
        finally:
            loop.remove_reader(channel.fileno())
            ticking.cancel()
            for view in list(self.views.values()):
                for stream in list(view.streams):
                    if stream.transport is not None:
                        stream.transport.abort()

    def _receive(self, channel: socket.socket, closed: asyncio.Future[None]) -> None:
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(channel, MESSAGE, 1)
            except BlockingIOError:
                return
            except OSError:
                message, fds = b"", []
            if not message and not fds:  # the API process left (or stops us)
                if not closed.done():
                    closed.set_result(None)
                return
            if not fds:
                continue
            try:
                asked = json.loads(message)
                game, seat, after = UUID(asked["game"]), asked["seat"], int(asked["after"])
                address = asked.get("address")
            except (ValueError, KeyError, TypeError):
                os.close(fds[0])
                log.warning("fanout_bad_handoff", message=message[:200])
                continue
            sock = socket.socket(fileno=fds[0])
            if address is not None and self.streams_of[address] >= MAX_PER_ADDRESS:
                # streams leave the API process's count when handed over: they count here,
                # against a cap of the same size (a client holds at most both)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
                self.refused += 1
                continue
            sock.setblocking(False)
            self._spawn(self._adopt(sock, game, seat, after, address))

    async def _adopt(
        self, sock: socket.socket, game: UUID, seat: int | None, after: int, address: str | None
    ) -> None:
        loop = asyncio.get_running_loop()
        key = (game, seat)
        found = self.views.get(key)
        if found is None:
            found = self.views[key] = View(game, seat)
            self._spawn(self._follow(found))
        view = found
        try:
            await loop.connect_accepted_socket(
                lambda: Stream(view, after, address, self.streams_of), sock
            )
        except OSError:  # the client left meanwhile
            sock.close()
            return
        current = self.views.get(key)
        if current is None:  # its view ended while it connected (it had no stream left)
            self.views[key] = view
            self._spawn(self._follow(view))
        elif current is not view:  # ... and another began: the stream joins that one
            for stream in view.streams:
                stream.view = current
                current.streams.add(stream)
            view.streams.clear()
            view = current
        view.wake()

    async def _follow(self, view: View) -> None:
        """Reads what is new for the view's streams each time its game's log grows."""
        key = (view.game, view.seat)
        try:
            with self._watching(view.game) as woken:
                view.woken = woken
                while True:
                    woken.clear()  # before reading: a commit during the read wakes us again
                    await self._catch_up(view)
                    if not view.streams:
                        return
                    with suppress(TimeoutError):
                        await asyncio.wait_for(woken.wait(), RECHECK)
                        await asyncio.sleep(GATHER)  # a burst of commits: one read, one write
        except Exception as error:  # a bug: the streams end, their clients reconnect
            log.error("fanout_view_failed", game=str(view.game), error=repr(error))
            for stream in list(view.streams):
                if stream.transport is not None:
                    stream.transport.abort()
        finally:
            if self.views.get(key) is view:
                del self.views[key]

    async def _catch_up(self, view: View) -> None:
        loop = asyncio.get_running_loop()
        while True:
            ready = [s for s in view.streams if s.transport is not None and s.full_since is None]
            if not ready:
                return
            after = min(s.sent for s in ready)
            try:
                events, over, version = await loop.run_in_executor(
                    None, self._read, view.game, view.seat, after
                )
            except Exception as error:  # the store is away: try again soon, keep the streams
                log.warning("fanout_read_failed", game=str(view.game), error=repr(error))
                await asyncio.sleep(1.0)
                continue
            batch = Batch(events, over, version)
            for stream in ready:
                if not stream.done and stream.full_since is None:
                    stream.send(batch)
            if len(events) < PAGE:
                return

    async def _tick(self) -> None:
        """Keep-alives on quiet streams; streams stuck full are dropped."""
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for view in list(self.views.values()):
                for stream in list(view.streams):
                    if stream.transport is None or stream.done:
                        continue
                    if stream.full_since is not None:
                        if now - stream.full_since > STUCK:
                            stream.transport.abort()
                    elif now - stream.written >= HEARTBEAT:
                        stream.write(chunk(KEEP_ALIVE))


def reader(reads: Any) -> Read:
    """A view's read through a GameReads (service/reads.py)."""

    def read(game: UUID, seat: int | None, after: int) -> tuple[list[dict[str, Any]], bool, int]:
        fold = reads.get(game)
        return reads.visible_events(fold, seat, after, PAGE), fold.over, fold.version

    return read

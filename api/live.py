"""Live streams of a game's events: Server-Sent Events at /v1/games/{id}/stream and NDJSON
at /v1/games/{id}/events?follow=true.

A stream reads what is new when woken, not on a timer. `LiveHub` wakes the streams of a
game when its log grows: at once for commits of this process (the game service's commit
hook), and through a subscription to the log for other processes (LISTEN/NOTIFY on
Postgres). Each stream shows the events as the caller's seat may see them (redacted while
the game runs) and ends after the game's last event.

Hundreds of streams may follow one game. A commit wakes them with one call per event loop
(not one each). A woken stream gathers for one to two GATHER seconds, at random: a burst of
moves is then read once, and the streams' writes are spread out instead of queueing a
mover's request behind them all. Streams that want the same thing (the same game, seat and
position) share one read of it in one worker thread, which also encodes each event's JSON
once for all of them. So the spectators of a game cost about one read per move, not one
each, and the event loop (the writers' too) is left with little more than passing bytes on.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Annotated, Any
from uuid import UUID

import anyio
import msgspec
import structlog
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from api.errors import documented
from service.errors import Problem
from service.fold import ENDINGS
from service.store import EventStoreApp
from service.wakeup import subscribe

if TYPE_CHECKING:
    from api.app import Tabletop

log = structlog.get_logger("tabletop.live")

EVENT_STREAM = "text/event-stream"
HEARTBEAT = 15.0  # seconds between keep-alive comments on a quiet stream
GATHER = 0.1  # seconds a woken stream waits at least for more commits before it reads
RETRY_MS = 3000  # the `retry:` an EventSource waits before it reconnects
PAGE = 1000
ANY_GAME = UUID(int=0)  # watching it wakes on every game's commits (the player streams)


class NotAcceptable(Problem):
    status = 406


_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]


class LiveHub:
    """Wakes the open streams of a game. It follows the log (for other processes' commits)
    only while some stream is open: with none, a commit costs this process nothing."""

    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._waiters: dict[UUID, set[_Waiter]] = {}
        self._lock = threading.Lock()
        self._following: object | None = None  # the token of the current follower thread
        self._subscription: Any = None
        self._commits: dict[UUID, int] = {}  # per watched game: commits heard so far
        # reads in flight, by (game, seat, after): (commits heard when it began, its result)
        self._reads: dict[tuple[UUID, int | None, int], tuple[int, asyncio.Future[Any]]] = {}

    def stop(self) -> None:
        """Stop following the log (the app stops; streams still open end with it)."""
        with self._lock:
            subscription = self._unfollow()
        if subscription is not None:
            subscription.stop()

    def _unfollow(self) -> Any:
        """(lock held) Forget the follower; returns its subscription, to stop outside the
        lock. Not the subscription's __exit__, which joins threads that may be retrying a lost
        database for a minute: they end on their own once stopped."""
        self._following = None
        subscription, self._subscription = self._subscription, None
        return subscription

    def _tail(self, token: object) -> None:
        """The follower thread: subscribe from the log's end, then wake every open stream
        once (a commit may have come between a stream's first read and this start)."""
        try:
            recorder = self._store.recorder
            subscription = subscribe(recorder, recorder.max_notification_id())
            subscription.__enter__()
        except Exception as error:  # no store now: /health says 503; this process still wakes
            log.warning("live_hub_not_started", error=repr(error))
            with self._lock:
                if self._following is token:
                    self._following = None
            return
        with self._lock:
            current = self._following is token
            if current:
                self._subscription = subscription
            games = list(self._waiters)
        if not current:  # every stream closed meanwhile
            subscription.stop()
            return
        for game_id in games:
            self.publish(game_id)
        try:
            for notification in subscription:
                self.publish(notification.originator_id)
        except Exception as error:  # the store went away: in-process commits still wake
            log.warning("live_hub_stopped", error=repr(error))

    def publish(self, game_id: UUID, version: int = 0) -> None:
        with self._lock:
            if game_id in self._commits:
                self._commits[game_id] += 1
            waiters = [*self._waiters.get(game_id, ()), *self._waiters.get(ANY_GAME, ())]
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
        for loop, woken in waiters:
            by_loop.setdefault(loop, []).append(woken)
        for loop, events in by_loop.items():
            with suppress(RuntimeError):  # that loop is closed
                loop.call_soon_threadsafe(_set_all, events)

    def commits(self, game_id: UUID) -> int:
        """How many commits of a watched game this hub has heard (it only grows)."""
        with self._lock:
            return self._commits.get(game_id, 0)

    async def shared_read(
        self, key: tuple[UUID, int | None, int], since: int, read: Any, *args: Any
    ) -> Any:
        """`read(*args)` in a worker thread, shared by every stream asking for `key` while
        it runs, if it began once `since` commits of the game were heard: it then sees
        everything that woke the caller."""
        running = self._reads.get(key)
        if running is None or running[0] < since:
            future = asyncio.ensure_future(anyio.to_thread.run_sync(read, *args))
            running = self._reads[key] = (self.commits(key[0]), future)

            def forget(key: Any = key, running: Any = running) -> None:
                if self._reads.get(key) is running:
                    del self._reads[key]

            # kept for the streams woken by the same commits a little later (see `follow`)
            loop = asyncio.get_running_loop()
            future.add_done_callback(lambda _: loop.call_later(GATHER, forget))
        return await asyncio.shield(running[1])

    @contextmanager
    def watching(self, game_id: UUID) -> Iterator[asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            if self._following is None:
                self._following = token = object()
                threading.Thread(target=self._tail, args=(token,), daemon=True).start()
            self._waiters.setdefault(game_id, set()).add(entry)
            self._commits.setdefault(game_id, 0)
        try:
            yield entry[1]
        finally:
            closing = None
            with self._lock:
                waiters = self._waiters.get(game_id)
                if waiters is not None:
                    waiters.discard(entry)
                    if not waiters:
                        del self._waiters[game_id]
                        self._commits.pop(game_id, None)
                if not self._waiters:
                    closing = self._unfollow()
            if closing is not None:
                closing.stop()  # the last stream closed


def _set_all(events: list[asyncio.Event]) -> None:
    for event in events:
        event.set()


Shown = tuple[dict[str, Any], bytes]  # an event as the seat sees it, and its JSON


def _read(t: Tabletop, game_id: UUID, seat: int | None, after: int) -> tuple[list[Shown], bool]:
    fold = t.game_reads.get(game_id)
    events = t.game_reads.visible_events(fold, seat, after, PAGE)
    return [(e, msgspec.json.encode(e)) for e in events], fold.over and after >= fold.version


async def follow(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[Shown | None]:
    """The visible events after `after` (each with its JSON), then each new one as it is
    appended, until the game's last event; None now and then on a quiet stream (a
    keep-alive)."""
    with t.live.watching(game_id) as woken:
        while True:
            woken.clear()  # before reading: a commit during the read wakes us again
            since = t.live.commits(game_id)
            key = (game_id, seat, after)
            events, over = await t.live.shared_read(key, since, _read, t, game_id, seat, after)
            for shown in events:
                yield shown
                event = shown[0]
                after = event["version"]
                if event["type"] in ENDINGS:
                    return
            if over:
                return
            if not events:
                try:
                    await asyncio.wait_for(woken.wait(), HEARTBEAT)
                except TimeoutError:
                    yield None
                else:
                    # A random share of a second GATHER spreads the streams' reads and writes
                    # over it, so a mover's request never waits behind all of them at once.
                    await asyncio.sleep(GATHER * (1 + random.random()))


async def ndjson_lines(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[bytes]:
    async for shown in follow(t, game_id, seat, after):
        if shown is not None:
            yield shown[1] + b"\n"


async def _sse(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    async for shown in follow(t, game_id, seat, after):
        if shown is None:
            yield ServerSentEventMessage(comment="keep-alive")
        else:
            event, data = shown
            yield ServerSentEventMessage(
                data=data.decode(), id=event["version"], event="game_event"
            )


def opening(
    request: Request[Any, Any, Any], game_id: UUID, token: str | None, after: int
) -> tuple[Tabletop, int | None, bool]:
    """The app, the caller's seat (None for spectators) and whether the game is over with
    nothing after `after` to send; 401/404 before streaming."""
    t: Tabletop = request.app.state.tabletop
    fold = t.game(game_id)
    seat = t.game_reads.seat_for(fold, t.stream_caller(request, token, required=False))
    return t, seat, fold.over and after >= fold.version


@get(
    "/v1/games/{game_id:uuid}/stream",
    operation_id="streamEvents",
    tags=["games"],
    media_type=EVENT_STREAM,
    security=[{"bearer": []}, {}],
    opt={"live": True},
    responses={
        204: ResponseSpec(None, description="The game is over and everything was sent"),
        **documented(400, 401, 404, 406, 409),
    },
)
async def stream_events(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    after: Annotated[int, QueryParameter(ge=0, le=2**31)] = 0,
    last_event_id: Annotated[
        int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**31)
    ] = None,
    token: Annotated[str | None, QueryParameter(min_length=1, max_length=200)] = None,
) -> ServerSentEvent | Response[None]:
    """A game's events as they happen, as Server-Sent Events. Each event the caller may see
    (redacted for its seat while the game runs), from `after` or the `Last-Event-ID` a
    reconnecting EventSource sends, live as it is appended; every message is a `game_event`
    whose `id` is the event's version and whose data is the event as JSON. The stream
    ends after the game's last event; a finished game with nothing after `Last-Event-ID`
    answers 204, which tells an EventSource to stop reconnecting. Send
    `Accept: text/event-stream` (EventSource does); other clients get 406. A browser signs
    in with `?token=` (POST /v1/stream-tokens): an EventSource cannot send a header.

    Example: GET /v1/games/{game_id}/stream?after=0"""
    if EVENT_STREAM not in request.headers.get("accept", ""):
        raise NotAcceptable("not_acceptable", f"this endpoint streams {EVENT_STREAM} only")
    start = max(after, last_event_id or 0)
    t, seat, done = await anyio.to_thread.run_sync(opening, request, game_id, token, start)
    if done:
        return Response(None, status_code=204)
    return ServerSentEvent(_sse(t, game_id, seat, start), retry_duration=RETRY_MS)

"""Live streams of a game's events: Server-Sent Events at /v1/games/{id}/stream and NDJSON
at /v1/games/{id}/events?follow=true.

A stream reads what is new when woken, not on a timer. `LiveHub` wakes the streams of a
game when its log grows: at once for commits of this process (the game service's commit
hook), and through a subscription to the log for other processes (LISTEN/NOTIFY on
Postgres). Each stream shows the events as the caller's seat may see them (redacted while
the game runs) and ends after the game's last event.
"""

from __future__ import annotations

import asyncio
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
from projections.wakeup import subscribe
from service.errors import Problem
from service.fold import ENDINGS
from service.store import EventStoreApp

if TYPE_CHECKING:
    from api.app import Tabletop

log = structlog.get_logger("tabletop.live")

EVENT_STREAM = "text/event-stream"
HEARTBEAT = 15.0  # seconds between keep-alive comments on a quiet stream
RETRY_MS = 3000  # the `retry:` an EventSource waits before it reconnects
PAGE = 1000
ANY_GAME = UUID(int=0)  # watching it wakes on every game's commits (the player streams)


class NotAcceptable(Problem):
    status = 406


class LiveHub:
    """Wakes the open streams of a game. It follows the log (for other processes' commits)
    only while some stream is open: with none, a commit costs this process nothing."""

    def __init__(self, store: EventStoreApp) -> None:
        self._store = store
        self._waiters: dict[UUID, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        self._lock = threading.Lock()
        self._following: object | None = None  # the token of the current follower thread
        self._subscription: Any = None

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
            waiters = [*self._waiters.get(game_id, ()), *self._waiters.get(ANY_GAME, ())]
        for loop, woken in waiters:
            with suppress(RuntimeError):  # that stream's loop is closed
                loop.call_soon_threadsafe(woken.set)

    @contextmanager
    def watching(self, game_id: UUID) -> Iterator[asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            if self._following is None:
                self._following = token = object()
                threading.Thread(target=self._tail, args=(token,), daemon=True).start()
            self._waiters.setdefault(game_id, set()).add(entry)
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
                if not self._waiters:
                    closing = self._unfollow()
            if closing is not None:
                closing.stop()  # the last stream closed


def _read(t: Tabletop, game_id: UUID, seat: int | None, after: int) -> tuple[list[Any], bool]:
    fold = t.games.get(game_id)
    events = t.games.visible_events(fold, seat, after, PAGE)
    return events, fold.over and after >= fold.version


async def follow(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[dict[str, Any] | None]:
    """The visible events after `after`, then each new one as it is appended, until the
    game's last event; None now and then on a quiet stream (a keep-alive)."""
    with t.live.watching(game_id) as woken:
        while True:
            woken.clear()  # before reading: a commit during the read wakes us again
            events, over = await anyio.to_thread.run_sync(_read, t, game_id, seat, after)
            for event in events:
                yield event
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


async def ndjson_lines(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[bytes]:
    async for event in follow(t, game_id, seat, after):
        if event is not None:
            yield msgspec.json.encode(event) + b"\n"


async def _sse(
    t: Tabletop, game_id: UUID, seat: int | None, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    async for event in follow(t, game_id, seat, after):
        if event is None:
            yield ServerSentEventMessage(comment="keep-alive")
        else:
            data = msgspec.json.encode(event).decode()
            yield ServerSentEventMessage(data=data, id=event["version"], event="game_event")


def opening(
    request: Request[Any, Any, Any], game_id: UUID, token: str | None, after: int
) -> tuple[Tabletop, int | None, bool]:
    """The app, the caller's seat (None for spectators) and whether the game is over with
    nothing after `after` to send; 401/404 before streaming."""
    t: Tabletop = request.app.state.tabletop
    fold = t.game(game_id)
    seat = t.games.seat_for(fold, t.stream_caller(request, token, required=False))
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

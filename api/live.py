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

Even so, passing each event through the ASGI layers once per stream kept a loop with 300
spectators busy for most of every move. So an SSE stream served by uvicorn is handed over
(api/handoff.py) to the fan-out (api/fanout.py), which reads and renders each event once
per seat view and writes it to all of that view's sockets, in a process of its own on
Postgres. Its head says `Connection: close`: the connection ends with the stream. A stream
that cannot be handed over (a test client, HTTP/1.0, TLS, the fan-out not ready yet) is
served here as before, and moves over as soon as it can.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any
from uuid import UUID

import anyio
import msgspec
import structlog
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from api.bootstrap import Shared, Tabletop
from api.errors import documented
from api.handoff import TRANSPORT
from api.live_pace import GATHER, HEARTBEAT
from service.errors import Problem
from service.fold import ENDINGS

log = structlog.get_logger("tabletop.live")

EVENT_STREAM = "text/event-stream"
RETRY_MS = 3000  # the `retry:` an EventSource waits before it reconnects
PAGE = 1000


class NotAcceptable(Problem):
    status = 406


Shown = tuple[dict[str, Any], bytes]  # an event as the seat sees it, and its JSON


def _read(t: Tabletop, game_id: UUID, seat: int | None, after: int) -> tuple[list[Shown], bool]:
    fold = t.game_reads.get(game_id)
    events = t.game_reads.visible_events(fold, seat, after, PAGE)
    return [(e, msgspec.json.encode(e)) for e in events], fold.over and after >= fold.version


async def follow(
    t: Tabletop,
    game_id: UUID,
    seat: int | None,
    after: int,
    leave: Callable[[int], bool] | None = None,
) -> AsyncIterator[Shown | None]:
    """The visible events after `after` (each with its JSON), then each new one as it is
    appended, until the game's last event; None now and then on a quiet stream (a
    keep-alive). Before each read, `leave(after)`: true ends it (the stream was handed
    over, everything up to `after` sent)."""
    with t.live.watching(game_id) as woken:
        while True:
            if leave is not None and leave(after):
                return
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
    t: Tabletop,
    game_id: UUID,
    seat: int | None,
    after: int,
    leave: Callable[[int], bool] | None = None,
) -> AsyncIterator[ServerSentEventMessage]:
    async for shown in follow(t, game_id, seat, after, leave):
        if shown is None:
            yield ServerSentEventMessage(comment="keep-alive")
        else:
            event, data = shown
            yield ServerSentEventMessage(
                data=data.decode(), id=event["version"], event="game_event"
            )
    # Handed over, the transport is closing: let uvicorn hear it before the body's end,
    # which it then drops (nothing more goes out from here).
    await asyncio.sleep(0)


def opening(
    t: Tabletop, request: Request[Any, Any, Any], game_id: UUID, token: str | None, after: int
) -> tuple[int | None, bool, str]:
    """The caller's seat (None for spectators), whether the game is over with nothing
    after `after` to send, and the game's name; 401/404 before streaming."""
    fold = t.game(game_id)
    seat = t.game_reads.seat_for(fold, t.stream_caller(request, token, required=False))
    return seat, fold.over and after >= fold.version, fold.game.name


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
    tabletop: Shared,
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
    t = tabletop
    seat, done, name = await anyio.to_thread.run_sync(opening, t, request, game_id, token, start)
    if done:
        return Response(None, status_code=204)
    transport: asyncio.Transport | None = request.scope.get(TRANSPORT)  # type: ignore[assignment]
    if transport is None:
        return ServerSentEvent(_sse(t, game_id, seat, start), retry_duration=RETRY_MS)
    handoff = t.live.handoff

    def leave(after: int) -> bool:
        return handoff.give(transport, name, game_id, seat, after)

    answer = ServerSentEvent(_sse(t, game_id, seat, start, leave), retry_duration=RETRY_MS)
    answer.headers["Connection"] = "close"  # the fan-out ends the connection with the stream
    return answer

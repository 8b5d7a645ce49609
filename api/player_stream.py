"""The player event stream, `GET /v1/players/me/stream`: what a player is told across all
its games (projections/notices.py), as Server-Sent Events or NDJSON, resumable with
`Last-Event-ID` (or `after`). A bot serves every game it sits in from this stream alone.

Notices are written by the projection runner, a few milliseconds after the event that
causes them; a stream wakes on every commit the live hub hears, gives the runner a moment,
and reads what is new, and looks again at least every `LOOK_EVERY` seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Annotated, Any

import anyio
import msgspec
from litestar import Request, get
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage, Stream

from api.bootstrap import Shared, Tabletop
from api.errors import documented
from api.hub import ANY_GAME
from api.live import EVENT_STREAM, RETRY_MS, NotAcceptable
from api.live_pace import HEARTBEAT
from projections.notices import Notice

NDJSON = "application/x-ndjson"
LOOK_EVERY = 1.0  # seconds: the longest a notice waits for a stream that missed its wake
SETTLE = 0.03  # seconds a woken stream gives the projection runner before it reads


async def _notices(t: Tabletop, player_id: str, after: int) -> AsyncIterator[bytes | None]:
    """The player's notices after id `after`, then each new one; None on a quiet stream."""
    quiet = 0.0
    with t.live.watching(ANY_GAME) as woken:
        while True:
            woken.clear()
            # the games' notices and the challenges' and seeks', one table and one id space
            # (projections/notices.py, projections/competition.py)
            rows = await anyio.to_thread.run_sync(t.reads.notices_for, player_id, after)
            for row in rows:
                yield row
            if rows:
                after = _id(rows[-1])
                quiet = 0.0
                continue
            with suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), LOOK_EVERY)
                await asyncio.sleep(SETTLE)
            quiet += LOOK_EVERY
            if quiet >= HEARTBEAT:
                quiet = 0.0
                yield None


_decode = msgspec.json.Decoder(Notice).decode


def _id(row: bytes) -> int:
    return _decode(row).id


@get(
    "/v1/players/me/stream",
    operation_id="streamPlayerEvents",
    tags=["players"],
    security=[{"bearer": []}],
    media_type=EVENT_STREAM,
    opt={"live": True},
    responses=documented(400, 401, 406),
)
async def player_stream(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    after: Annotated[int, QueryParameter(ge=0, le=2**62)] = 0,
    last_event_id: Annotated[
        int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**62)
    ] = None,
    token: Annotated[str | None, QueryParameter(min_length=1, max_length=200)] = None,
) -> ServerSentEvent | Stream:
    """The caller's notices across all its games, oldest first, then live: `your_turn`
    (`seat`, `version`, `deadline`), `game_started`, `game_finished` (`rank`),
    `game_aborted`, `timed_out`, `rematch_offered` (`rematch`: the new game's id),
    `challenge_received` (`data.challenge`), `seek_matched` (`data.seek`, `data.seat`). Each
    has an `id` that grows; reconnect with `Last-Event-ID` (or `after`) to miss nothing.
    A `your_turn` may repeat while the game moves on: check `legal-moves`.
    `Accept: text/event-stream` gives Server-Sent Events (the event name is the kind);
    `Accept: application/x-ndjson` gives one JSON notice per line. A browser's
    EventSource signs in with `?token=` (POST /v1/stream-tokens) instead of a header.

    Example: GET /v1/players/me/stream?after=0"""
    t = tabletop
    accept = request.headers.get("accept", "")
    if EVENT_STREAM not in accept and NDJSON not in accept:
        raise NotAcceptable("not_acceptable", f"send Accept: {EVENT_STREAM} or {NDJSON}")
    player = await anyio.to_thread.run_sync(t.stream_caller, request, token, True)
    assert player is not None
    start = max(after, last_event_id or 0)
    rows = _notices(t, player.id, start)
    if EVENT_STREAM in accept:
        return ServerSentEvent(_sse(rows), retry_duration=RETRY_MS)
    return Stream(_lines(rows), media_type=NDJSON)


async def _sse(rows: AsyncIterator[bytes | None]) -> AsyncIterator[ServerSentEventMessage]:
    async for row in rows:
        if row is None:
            yield ServerSentEventMessage(comment="keep-alive")
        else:
            notice = _decode(row)
            yield ServerSentEventMessage(data=row.decode(), id=notice.id, event=notice.kind)


async def _lines(rows: AsyncIterator[bytes | None]) -> AsyncIterator[bytes]:
    async for row in rows:
        yield b"\n" if row is None else row + b"\n"

"""What the game routes share: the headers they declare, the game as an answer, and reading
a game on the event loop when memory can answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any
from uuid import UUID

import anyio
import msgspec
from litestar import Request
from litestar.datastructures import ResponseHeader
from litestar.openapi.spec import SecurityRequirement
from litestar.params import HeaderParameter

from api import schemas as s
from api.bootstrap import Tabletop
from service.clocks import micros, stamp
from service.fold import Fold
from service.players import Player

NDJSON = "application/x-ndjson"
BEARER: list[SecurityRequirement] = [{"bearer": []}]
# a key is optional: with one, the caller's seat shows
OPTIONAL_BEARER: list[SecurityRequirement] = [{"bearer": []}, {}]
_encode = msgspec.json.encode

# Headers of our answers, as the OpenAPI document declares them.
LOCATION = ResponseHeader(name="Location", description="The new resource", documentation_only=True)
REPLAYED = ResponseHeader(
    name="Idempotent-Replayed",
    description="`true` when this answers again a request made before with the same key",
    documentation_only=True,
)
ETAG = ResponseHeader(
    name="ETag", description="The game's version; send it as If-None-Match", documentation_only=True
)
IdempotencyKey = Annotated[
    str | None, HeaderParameter(name="Idempotency-Key", min_length=1, max_length=200)
]


async def read_game(
    t: Tabletop, request: Request[Any, Any, Any], game_id: UUID, read: Any, *args: Any
) -> Any:
    """Run `read(t, request, fold, ...)` on the event loop when the caller is known and the
    cached game is the store's head (asked on the loop: the usual case, a seated player
    polling a running game); otherwise in a worker thread on the game caught up from the
    store. A thread hop costs more than most reads themselves."""
    if t.in_memory(request, game_id):
        fold = await t.game_reads.current_on_loop(game_id)
        if fold is not None:
            return read(t, request, fold, *args)

    def in_thread() -> Any:
        return read(t, request, t.game(game_id), *args)

    return await anyio.to_thread.run_sync(in_thread)


def game_out(t: Tabletop, fold: Fold, player: Player | None) -> s.GameOut:
    seat = t.game_reads.seat_for(fold, player)
    shown = None if fold.over else seat
    return s.GameOut(
        id=str(fold.id),
        game=fold.game.name,
        status=fold.status,
        version=fold.version,
        seats=[
            s.SeatOut(i, fold.players[i], fold.names[i], fold.bots.get(i), fold.client_seeds[i])
            for i in range(fold.seats)
        ],
        awaiting=fold.awaiting(),
        view=t.game_reads.view(fold, shown),
        result=msgspec.to_builtins(fold.result) if fold.result else None,
        options=msgspec.to_builtins(fold.options),
        seed_commitment=fold.seed_commitment,
        your_seat=seat,
        created_at=fold.created_at,
        last_activity=fold.last_at,
        clock=clock_out(t, fold),
        forfeited={str(s): reason for s, reason in sorted(fold.forfeited.items())},
        created_by=fold.created_by,
        rematch_of=fold.rematch_of,
        rematch=fold.rematch,
        rated=fold.rated,
        tournament=fold.tournament,
    )


def clock_out(t: Tabletop, fold: Fold) -> s.ClockOut | None:
    if fold.clock is None or fold.clock_spec is None:
        return None
    deadline = fold.next_deadline()
    now = micros(t.games.now())
    return s.ClockOut(
        spec=fold.clock_spec,
        on_timeout=fold.on_timeout or "",
        seats=[msgspec.convert(c, s.SeatClock) for c in fold.clock.shown(fold.seats, now)],
        deadline=stamp(deadline) if deadline is not None else None,
    )


async def headers_first(lines: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """A followed stream that answers at once: gzip holds a response's headers until its
    first chunk, which may be the next move, minutes away; an empty chunk releases them."""
    yield b""
    async for line in lines:
        yield line


def ndjson(items: list[Any]) -> Iterator[bytes]:
    for item in items:
        yield _encode(item) + b"\n"


def replayed_header(replayed: bool) -> dict[str, str]:
    """The header of an answer given again to a retry (the same Idempotency-Key)."""
    return {"Idempotent-Replayed": "true"} if replayed else {}

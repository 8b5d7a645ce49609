"""Challenges and seeks over HTTP (service/challenges.py, service/seeks.py): create, act,
read, list, export. New challenges and seeks count against the caller's
`TABLETOP_LIMIT_COMPETITION` bucket (429 `competition_limited`); a retry with the same
Idempotency-Key is answered again and charged nothing."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import anyio
import msgspec
from litestar import Request, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import Stream as StreamResponse

from api.answers import BEARER, LOCATION, NDJSON, REPLAYED, IdempotencyKey, replayed_header
from api.bootstrap import Shared, Tabletop
from api.errors import documented
from api.limits import refused
from api.quotas import player_buckets
from service import challenges as ch
from service import seeks as sk
from service.challenge_log import CHALLENGE, SEEK, Stream, export
from service.competition import Competition
from service.players import Player


class ChallengeOut(msgspec.Struct, kw_only=True):
    """A challenge: who challenged whom to what, who accepted, and how it stands."""

    id: str  # the challenge's id (a UUID)
    # open (waiting for acceptances) | started (everyone accepted: `game_id` is the game) |
    # declined | cancelled (by the challenger) | expired (not accepted by `expires_at`)
    status: str
    challenger: str  # the challenger's player id (seat 0 of the game)
    players: list[str]  # the challenged players' ids, seats 1, 2, ... in this order
    accepted: list[str]  # those of `players` who have accepted, in the order they did
    declined_by: str | None  # who declined it (status `declined`); null otherwise
    game: str  # the game type, a `name` of GET /v1/game-types
    seats: int  # the game's seats: the challenger and each challenged player
    options: dict[str, Any]  # the game's options, every one spelt out
    clock: dict[str, Any] | None  # the game's time control; null: nobody times out
    on_timeout: str | None  # what a seat whose time runs out gets; null without a clock
    rated: bool  # the game's result moves its players' ratings
    created_at: str  # when it was made (the server's clock, RFC 3339 UTC)
    expires_at: str  # when it lapses unless everyone has accepted
    game_id: str | None  # the game it started (GET /v1/games/{game_id}); null until then


class ChallengeList(msgspec.Struct):
    """The caller's challenges."""

    challenges: list[ChallengeOut]  # received and sent, newest first (200 at most)


class SeekOut(msgspec.Struct, kw_only=True):
    """A seek: the table wanted, and how it stands."""

    id: str  # the seek's id (a UUID)
    status: str  # open (waiting) | matched (`game_id` is the game) | cancelled
    player: str  # the seeker's player id
    game: str  # the game type, a `name` of GET /v1/game-types
    seats: int  # the table's seats, the seeker's included
    options: dict[str, Any]  # the game's options, every one spelt out
    clock: dict[str, Any] | None  # the game's time control; null: nobody times out
    on_timeout: str | None  # what a seat whose time runs out gets; null without a clock
    rated: bool  # the game's result moves its players' ratings
    # The seeker's conservative rating (mu - 3 sigma) of the game type when the seek was made.
    rating: float
    rating_within: float | None  # how far the others' ratings may be, either way; null: any
    fill_with_bots_after_s: int | None  # seconds until bots fill the table; null: never
    fill_bot: str  # the bot that fills the seats
    fill_at: str | None  # when bots fill the table unless players have (null: never)
    created_at: str  # when it was made (the server's clock, RFC 3339 UTC)
    game_id: str | None  # the game it was seated at (GET /v1/games/{game_id}); null until then
    seat: int | None  # the seeker's seat in that game; null until matched
    # Who sits at the table, in seat order (player ids; null for a bot's seat); empty until then.
    table: list[str | None]


class SeekList(msgspec.Struct):
    """The caller's seeks."""

    seeks: list[SeekOut]  # newest first (200 at most)


def _competition(t: Tabletop) -> Competition:
    return t.timekeeper.competition


def _charge(t: Tabletop, player: Player) -> None:
    """A new challenge or seek: one token of the caller's bucket (429 when empty)."""
    bucket = player_buckets(t, t.limits.competition, "competition")
    if bucket is None:
        return
    wait = bucket.take(player.id)
    if wait:
        rate = bucket.rate
        raise refused(
            "competition_limited",
            f"at most {rate.count} challenges and seeks per {rate.seconds:g} s",
            wait,
        )


def _challenge_out(s: Stream) -> ChallengeOut:
    return ChallengeOut(**ch.summary(s))


def _seek_out(s: Stream) -> SeekOut:
    return SeekOut(**sk.summary(s))


def _caller(t: Tabletop, request: Request[Any, Any, Any]) -> Player:
    player = t.caller(request, required=True)
    assert player is not None
    return player


# ---- challenges ---------------------------------------------------------------------------


@post(
    "/v1/challenges",
    operation_id="createChallenge",
    tags=["challenges"],
    security=BEARER,
    response_headers=[LOCATION, REPLAYED],
    responses=documented(400, 401, 415, 422, 429),
)
async def create_challenge(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    data: JSONBody[ch.NewChallenge],
    idempotency_key: IdempotencyKey = None,
) -> Response[ChallengeOut]:
    """Challenge one player (or several, for a game of more seats) to a game: its type,
    options, clock, `on_timeout` and `rated`, as a new game's. You take seat 0, the players
    named seats 1, 2, ... in order. Each is told (`challenge_received` on their stream)
    and accepts or declines; when all have accepted the game starts (`game_id`). It
    expires after `expires_in_s` (default a day). 422 `unknown_player`, `invalid_players`,
    `invalid_seats`; 429 `competition_limited`. With an `Idempotency-Key`, a retry is
    answered with the same challenge (`Idempotent-Replayed: true`).

    Example: POST /v1/challenges {"players": ["{player_id}"], "game": "caylus"}"""

    def create() -> tuple[ChallengeOut, bool]:
        t = tabletop
        player = _caller(t, request)
        service = _competition(t).challenges
        # Charged before it is made (a refusal must make nothing), except a keyed retry of a
        # create already made, which is answered again for free.
        if idempotency_key is None or not service.made_with(player, idempotency_key):
            _charge(t, player)
        done = service.create(player, data, idempotency_key)
        return _challenge_out(done.stream), done.replayed

    out, replayed = await anyio.to_thread.run_sync(create)
    headers = {"Location": f"/v1/challenges/{out.id}"} | replayed_header(replayed)
    return Response(out, status_code=201, headers=headers)


def _challenge_write(name: str, path: str, verb: str, doc: str) -> Any:
    """A POST that acts on a challenge (`verb`: a ChallengeService method)."""

    @post(
        f"/v1/challenges/{{challenge_id:uuid}}/{path}",
        operation_id=name,
        name=name,
        tags=["challenges"],
        status_code=200,
        sync_to_thread=True,
        security=BEARER,
        response_headers=[REPLAYED],
        responses=documented(400, 401, 403, 404, 409, 422),
        description=doc,
    )
    def act(
        request: Request[Any, Any, Any],
        tabletop: Shared,
        challenge_id: FromPath[UUID],
        idempotency_key: IdempotencyKey = None,
    ) -> Response[ChallengeOut]:
        service = _competition(tabletop).challenges
        done = getattr(service, verb)(_caller(tabletop, request), challenge_id, idempotency_key)
        return Response(_challenge_out(done.stream), headers=replayed_header(done.replayed))

    return act


_CLOSED = (
    "409 `challenge_started`, `challenge_declined`, `challenge_cancelled` or "
    "`challenge_expired` once it is not open. With an `Idempotency-Key`, a retry is answered "
    "again (`Idempotent-Replayed: true`)."
)
accept_challenge = _challenge_write(
    "acceptChallenge",
    "accept",
    "accept",
    "Accept a challenge that names you; when everyone named has accepted, its game starts "
    "with every seat taken (`game_id`). 403 `not_challenged`, 409 `already_accepted`; "
    f"{_CLOSED}\n\nExample: POST /v1/challenges/{{challenge_id}}/accept",
)
decline_challenge = _challenge_write(
    "declineChallenge",
    "decline",
    "decline",
    "Decline a challenge that names you: it ends (status `declined`), no game is made. 403 "
    f"`not_challenged`; {_CLOSED}\n\nExample: POST /v1/challenges/{{challenge_id}}/decline",
)
cancel_challenge = _challenge_write(
    "cancelChallenge",
    "cancel",
    "cancel",
    "Cancel your challenge (status `cancelled`). 403 `not_challenger`; "
    f"{_CLOSED}\n\nExample: POST /v1/challenges/{{challenge_id}}/cancel",
)


@get(
    "/v1/challenges/{challenge_id:uuid}",
    operation_id="getChallenge",
    tags=["challenges"],
    sync_to_thread=True,
    responses=documented(400, 404),
)
def get_challenge(tabletop: Shared, challenge_id: FromPath[UUID]) -> ChallengeOut:
    """A challenge: who, what, who has accepted, its status and, once started, its game.
    An open challenge read after its `expires_at` is expired then.

    Example: GET /v1/challenges/{challenge_id}"""
    return _challenge_out(_competition(tabletop).challenges.get(challenge_id))


@get(
    "/v1/challenges",
    operation_id="listChallenges",
    tags=["challenges"],
    sync_to_thread=True,
    security=BEARER,
    responses=documented(400, 401),
)
def list_challenges(request: Request[Any, Any, Any], tabletop: Shared) -> ChallengeList:
    """Your challenges, received and sent, newest first. A list: it trails the writes by
    the read model's lag (usually milliseconds); read a challenge itself when it must be
    current.

    Example: GET /v1/challenges"""
    player = _caller(tabletop, request)
    found = _competition(tabletop).challenges.list_for(player)
    return ChallengeList([ChallengeOut(**row) for row in found])


@get(
    "/v1/challenges/{challenge_id:uuid}/export",
    operation_id="exportChallenge",
    tags=["challenges"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 404),
)
def export_challenge(tabletop: Shared, challenge_id: FromPath[UUID]) -> StreamResponse:
    """The challenge's log (`tabletop-challenge/1`): a header, then its hash-chained
    events, in the line format of a game's export.

    Example: GET /v1/challenges/{challenge_id}/export"""
    _competition(tabletop).challenges.get(challenge_id)  # 404 if unknown; expired if due
    lines = export(tabletop.store, challenge_id, CHALLENGE)
    return StreamResponse([msgspec.json.encode(x) + b"\n" for x in lines], media_type=NDJSON)


# ---- seeks --------------------------------------------------------------------------------


@post(
    "/v1/seeks",
    operation_id="createSeek",
    tags=["seeks"],
    security=BEARER,
    response_headers=[LOCATION, REPLAYED],
    responses=documented(400, 401, 409, 415, 422, 429),
)
async def create_seek(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    data: JSONBody[sk.NewSeek],
    idempotency_key: IdempotencyKey = None,
) -> Response[SeekOut]:
    """Seek a game: its type, seats, options, clock, `on_timeout`, `rated`, how far the
    others' ratings may be from yours (`rating_within`, on mu - 3 sigma) and whether bots
    fill the table after a wait (`fill_with_bots_after_s`). As soon as enough compatible
    seeks are open (the same table settings, each rating within every other's range), the
    table is seated and its game started: each seek is `matched` with its `game_id`, and
    each seeker told (`seek_matched`). 409 `seek_exists` (an open seek of yours for the
    same table); 429 `competition_limited`. With an `Idempotency-Key`, a retry is answered
    with the same seek (`Idempotent-Replayed: true`).

    Example: POST /v1/seeks {"game": "puerto-rico", "seats": 4, "rated": true,
    "rating_within": 200}"""

    def create() -> tuple[SeekOut, bool]:
        t = tabletop
        player = _caller(t, request)
        service = _competition(t).seeks
        if idempotency_key is None or not service.made_with(player, idempotency_key):
            _charge(t, player)  # (before it is made; a keyed retry is free: see above)
        done = service.create(player, data, t.reads.rating_of, idempotency_key)
        return _seek_out(done.stream), done.replayed

    out, replayed = await anyio.to_thread.run_sync(create)
    headers = {"Location": f"/v1/seeks/{out.id}"} | replayed_header(replayed)
    return Response(out, status_code=201, headers=headers)


def _cancel_seek(
    request: Request[Any, Any, Any], t: Tabletop, seek_id: UUID, key: str | None
) -> Response[SeekOut]:
    done = _competition(t).seeks.cancel(_caller(t, request), seek_id, key)
    return Response(_seek_out(done.stream), headers=replayed_header(done.replayed))


_CANCEL_DOC = (
    "Cancel your open seek (status `cancelled`). 403 `not_seeker`; 409 `seek_matched` once "
    "its game has started, `seek_cancelled` when cancelled already (without a key). With an "
    "`Idempotency-Key`, a retry is answered again (`Idempotent-Replayed: true`)."
)


@post(
    "/v1/seeks/{seek_id:uuid}/cancel",
    operation_id="cancelSeek",
    tags=["seeks"],
    status_code=200,
    sync_to_thread=True,
    security=BEARER,
    response_headers=[REPLAYED],
    responses=documented(400, 401, 403, 404, 409, 422),
    description=f"{_CANCEL_DOC}\n\nExample: POST /v1/seeks/{{seek_id}}/cancel",
)
def cancel_seek(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    seek_id: FromPath[UUID],
    idempotency_key: IdempotencyKey = None,
) -> Response[SeekOut]:
    return _cancel_seek(request, tabletop, seek_id, idempotency_key)


@get(
    "/v1/seeks/{seek_id:uuid}",
    operation_id="getSeek",
    tags=["seeks"],
    sync_to_thread=True,
    responses=documented(400, 404),
)
def get_seek(tabletop: Shared, seek_id: FromPath[UUID]) -> SeekOut:
    """A seek: the table wanted, its status and, once matched, its game and seat. An open
    seek read after its `fill_at` has its table filled with bots then.

    Example: GET /v1/seeks/{seek_id}"""
    return _seek_out(_competition(tabletop).seeks.get(seek_id))


@get(
    "/v1/seeks",
    operation_id="listSeeks",
    tags=["seeks"],
    sync_to_thread=True,
    security=BEARER,
    responses=documented(400, 401),
)
def list_seeks(
    request: Request[Any, Any, Any], tabletop: Shared, all: FromQuery[bool] = False
) -> SeekList:
    """Your open seeks, newest first (`?all=true`: matched and cancelled ones too). A
    list: it trails the writes by the read model's lag (usually milliseconds); read a seek
    itself when it must be current.

    Example: GET /v1/seeks"""
    player = _caller(tabletop, request)
    found = _competition(tabletop).seeks.list_for(player, only_open=not all)
    return SeekList([SeekOut(**row) for row in found])


@get(
    "/v1/seeks/{seek_id:uuid}/export",
    operation_id="exportSeek",
    tags=["seeks"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 404),
)
def export_seek(tabletop: Shared, seek_id: FromPath[UUID]) -> StreamResponse:
    """The seek's log (`tabletop-seek/1`): a header, then its hash-chained events, in the
    line format of a game's export.

    Example: GET /v1/seeks/{seek_id}/export"""
    _competition(tabletop).seeks.get(seek_id)  # 404 if unknown
    lines = export(tabletop.store, seek_id, SEEK)
    return StreamResponse([msgspec.json.encode(x) + b"\n" for x in lines], media_type=NDJSON)


ROUTES = [
    create_challenge,
    accept_challenge,
    decline_challenge,
    cancel_challenge,
    list_challenges,
    get_challenge,
    export_challenge,
    create_seek,
    cancel_seek,
    list_seeks,
    get_seek,
    export_seek,
]

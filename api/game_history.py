"""A game's past: its events (pages, NDJSON, followed), its replay at any version, its
signed export and its audit."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Request, Response, get
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, FromQuery, QueryParameter
from litestar.response import Stream

from api import schemas as s
from api.answers import NDJSON, OPTIONAL_BEARER, headers_first, ndjson
from api.bootstrap import Shared, Tabletop
from api.conditional import IMMUTABLE
from api.errors import documented
from api.live import ndjson_lines
from api.paging import LINK, next_link
from api.perspective import replay_out, seat_asked
from service.audit import Leaf, export_lines, stored_lines, verify
from service.errors import Conflict, NotFound
from service.fold import ENDINGS
from service.players import Player
from service.transparency import log_of


@get(
    "/v1/games/{game_id:uuid}/events",
    operation_id="listEvents",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    response_headers=[LINK],
    # A page of JSON (the NDJSON bodies are in the typed document: api/typed_document.py).
    responses={200: ResponseSpec(s.EventPage, description="The events", generate_examples=False)}
    | documented(400, 401, 403, 404, 409, 422),
)
def list_events(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    after: Annotated[int, QueryParameter(ge=0, le=2**31)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1000,
    follow: FromQuery[bool] = False,
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> Response[Any]:
    """The events the caller may see, in order (`Accept: application/x-ndjson` streams one
    per line; with `follow=true` the stream stays open, sends each new event as it is
    appended and ends after the game's last event; `limit` applies to pages only). Each
    has a readable `text` as the caller's seat saw it; once the game is finished, `seat`
    gives the lines as that seat saw them (while it runs, only the caller's own seat). A
    full page links the next (`Link: <...>; rel="next"`, `after` its last version).

    Example: GET /v1/games/{game_id}/events?after=0&limit=100"""
    t = tabletop
    fold = t.game(game_id)
    caller = t.game_reads.seat_for(fold, t.caller(request, required=False))
    seat = seat_asked(fold, caller, seat)
    as_lines = NDJSON in request.headers.get("accept", "")
    if as_lines and follow:
        return Stream(headers_first(ndjson_lines(t, game_id, seat, after)), media_type=NDJSON)
    events = t.game_reads.visible_events(fold, seat, after, limit)
    if as_lines:
        return Stream(ndjson(events), media_type=NDJSON)
    shown = [msgspec.convert(e, s.EventOut) for e in events]
    page = s.EventPage(game=fold.game.name, version=fold.version, events=shown)
    full = len(events) == limit
    return Response(page, headers=next_link(request, after=events[-1]["version"] if full else None))


@get(
    "/v1/games/{game_id:uuid}/replay",
    operation_id="replayGame",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    responses=documented(400, 401, 403, 404, 409, 422),
)
def replay(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    version: Annotated[int, QueryParameter(ge=-(2**31), le=2**31)],
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> Response[s.ReplayOut]:
    """The caller's view of the game after its first `version` events. Once the game is
    finished (or aborted), `seat` shows that seat's view of the time instead, and the
    answer never changes (`Cache-Control: immutable`); while it runs, `seat` may only name
    the caller's own seat (403 `not_your_seat`).

    Example: GET /v1/games/{game_id}/replay?version=20"""
    t = tabletop
    fold = t.game(game_id)
    caller = t.game_reads.seat_for(fold, t.caller(request, required=False))
    body = replay_out(t.game_reads, fold, caller, version, seat)
    # Finished, it shows the same to anyone: only a running game's view is the caller's.
    return Response(body, headers=IMMUTABLE if fold.over else {"Vary": "Authorization"})


@get(
    "/v1/games/{game_id:uuid}/export",
    operation_id="exportGame",
    tags=["games"],
    sync_to_thread=True,
    media_type=NDJSON,
    responses=documented(400, 401, 404, 409, 422),
)
def export(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    tree_size: Annotated[int | None, QueryParameter(ge=0, le=2**62)] = None,
) -> Stream:
    """The complete log of a finished game (docs/export-format.md), one JSON per line; its
    footer signed, with the inclusion proof of its final hash against the latest signed
    tree head (or the head over `tree_size` leaves: one you saved). It never changes for
    a given `tree_size` (`Cache-Control: immutable`).

    Example: GET /v1/games/{game_id}/export"""
    t = tabletop
    try:
        lines, seed = _log_and_seed(t, game_id, None)
    except Conflict as refused:
        if refused.code == "game_not_finished" and log_of(t.store).leaf(str(game_id)):
            raise Conflict(
                "game_tampered",
                "the transparency log holds this game's end, but its record has none: its "
                "last events were deleted (GET .../audit says which)",
            ) from None
        raise
    if not any(line.get("type") in ENDINGS for line in lines):
        # the game reads as over (this process holds it so), but its stored record has no
        # end: events were deleted under it
        raise Conflict(
            "game_tampered",
            "this game is over, but its stored record has no end: its last events were "
            "deleted (GET .../audit says which)",
        )
    out = list(export_lines(game_id, lines, seed))
    log_of(t.store).seal(out, tree_size)
    return Stream(ndjson(out), media_type=NDJSON, headers=IMMUTABLE if tree_size else None)


def _log_and_seed(
    t: Tabletop, game_id: UUID, arbiter: Player | None
) -> tuple[list[dict[str, Any]], str]:
    """A game's stored records (read raw) and the seed to check them with: a finished
    game's, or a running game's for an arbiter. A game whose records no longer read is
    judged on its raw records alone: the seed is the one its stored last event reveals."""
    try:
        fold = t.game(game_id)
    except Conflict as refused:
        if refused.code != "game_damaged":
            raise
        lines = stored_lines(t.store, game_id)
        revealed = [
            line["data"].get("seed")
            for line in lines
            if line.get("type") in ENDINGS and isinstance(line.get("data"), dict)
        ]
        if revealed and isinstance(revealed[-1], str):
            return lines, revealed[-1]
        if arbiter is not None and arbiter.id in t.arbiters:
            return lines, t.game_reads.seed_hex(game_id)
        raise
    seed = t.game_reads.seed_of_finished(fold)
    if seed is None:
        if arbiter is None or arbiter.id not in t.arbiters:
            raise Conflict("game_not_finished", "only finished games are exported and audited")
        seed = t.game_reads.seed_hex(game_id)
    return t.game_reads.history.lines(game_id, fold.version), seed


@get(
    "/v1/games/{game_id:uuid}/audit",
    operation_id="auditGame",
    tags=["games"],
    sync_to_thread=True,
    security=OPTIONAL_BEARER,
    responses=documented(400, 401, 404, 409),
)
def audit(request: Request[Any, Any, Any], tabletop: Shared, game_id: FromPath[UUID]) -> s.AuditOut:
    """Verify the hash chain and re-run every recorded command from the revealed seed.
    The record is compared with the game's leaf in the transparency log too: one that is
    not the record the log holds is `tampered` (how: `tamper`), and counts in /health and
    /metrics until it is restored. Finished games, and any game the log holds the end of;
    an arbiter, named in TABLETOP_ARBITERS, may audit a running one.

    Example: GET /v1/games/{game_id}/audit"""
    t = tabletop
    logged = log_of(t.store).leaf(str(game_id))
    leaf = Leaf(final_hash=logged.final_hash, version=logged.version or None) if logged else None
    try:
        lines, seed = _log_and_seed(t, game_id, t.caller(request, required=False))
    except (Conflict, NotFound) as refused:
        if leaf is None or refused.code not in ("game_not_finished", "game_not_found"):
            raise
        # the log holds its end, its record none: judged on what is stored (no seed revealed)
        lines, seed = stored_lines(t.store, game_id), None
    exported = list(export_lines(game_id, lines, seed)) if lines else [{"id": str(game_id)}]
    report = verify(exported, seed, leaf)
    refusal = log_of(t.store).refusal
    if report.tamper is not None:
        t.findings.found(report.tamper)
    elif leaf is not None and refusal is None:
        t.findings.matches(str(game_id))
    elif leaf is not None:  # the log's own record differs from what it signed: its leaf
        report.verified = False  # vouches for nothing, and clears no finding
        report.detail = f"the transparency log is not consistent ({refusal}): this game's "
        report.detail += "leaf cannot vouch for its record"
    return msgspec.convert(msgspec.to_builtins(report), s.AuditOut)

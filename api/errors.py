"""Every refusal as application/problem+json with a stable `code`; no input yields a 500."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import structlog
from eventsourcing.persistence import InterfaceError, OperationalError
from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec
from psycopg_pool import PoolTimeout

from api.schemas import ProblemBody
from domain.refusals import field_at
from service.errors import Problem

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger("tabletop.api")

# What each status means when a route documents it (the OpenAPI response descriptions).
_STATUS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    409: "Conflict",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
# The code of a refusal Litestar itself raises, by status.
_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}
# A problem's title says what went wrong in words, per code (RFC 9457: the same for every
# occurrence of a type); a dotted code (`illegal_move.wrong_phase`) takes its family's.
TITLES = {
    "abort_too_late": "Too late to abort",
    "already_registered": "Already registered",
    "already_seated": "Already seated",
    "bad_key_backoff": "Too many wrong keys",
    "bot_budget_too_large": "Bot budget too large",
    "bot_games_limited": "Too many bot games",
    "busy": "Game busy",
    "already_accepted": "Challenge accepted already",
    "challenge_cancelled": "Challenge cancelled",
    "challenge_declined": "Challenge declined",
    "challenge_expired": "Challenge expired",
    "challenge_not_found": "Challenge not found",
    "challenge_started": "Challenge started",
    "competition_limited": "Too many challenges and seeks",
    "invalid_players": "Invalid players",
    "not_challenged": "Not challenged",
    "not_challenger": "Not the challenger",
    "not_seeker": "Not the seeker",
    "seek_cancelled": "Seek cancelled",
    "seek_exists": "Seek open already",
    "seek_matched": "Seek matched",
    "seek_not_found": "Seek not found",
    "unknown_player": "Unknown player",
    "client_seed_unsupported": "Client seeds not supported",
    "clocks_resuming": "Clocks resuming after an outage",
    "conflict": "Conflict",
    "forbidden": "Forbidden",
    "game_aborted": "Game aborted",
    "entry_condition": "Entry condition not met",
    "invalid_duration": "Invalid arena duration",
    "invalid_entry_conditions": "Invalid entry conditions",
    "invalid_starts_at": "Invalid start time",
    "tournament_cancelled": "Tournament cancelled",
    "unknown_game_type": "Unknown game type",
    "game_damaged": "Game record damaged",
    "game_exists": "Game exists",
    "stopping": "Server stopping",
    "game_not_finished": "Game not finished",
    "game_not_found": "Game not found",
    "game_not_open": "Game not open",
    "game_not_started": "Game not started",
    "game_tampered": "Game record tampered with",
    "game_over": "Game over",
    "head_not_found": "Tree head not found",
    "idempotency_key_reused": "Idempotency key reused",
    "illegal_move": "Illegal move",
    "internal_error": "Internal error",
    "invalid_advance": "Invalid advance",
    "invalid_bot": "Invalid bot",
    "invalid_bot_seat": "Invalid bot seat",
    "invalid_client_seed": "Invalid client seed",
    "invalid_clock": "Invalid clock",
    "invalid_cursor": "Invalid cursor",
    "invalid_format": "Invalid tournament format",
    "invalid_move": "Invalid move",
    "invalid_move.unknown_field": "Unknown field in the move",
    "invalid_name": "Invalid name",
    "invalid_options": "Invalid game options",
    "invalid_points": "Invalid points",
    "invalid_request": "Invalid request",
    "invalid_request.unknown_field": "Unknown field",
    "invalid_clock.unknown_field": "Unknown field in the clock",
    "invalid_rounds": "Invalid rounds",
    "invalid_seat": "Invalid seat",
    "invalid_seats": "Invalid number of seats",
    "invalid_stream_token": "Invalid stream token",
    "invalid_table_size": "Invalid table size",
    "invalid_tree_size": "Invalid tree size",
    "invalid_version": "Invalid version",
    "log_inconsistent": "Transparency log rewritten",
    "log_not_signed": "No tree head signed yet",
    "log_signer_lost": "Transparency log's signer lost its lock",
    "method_not_allowed": "Method not allowed",
    "not_acceptable": "Not acceptable",
    "not_creator": "Not the creator",
    "not_found": "Not found",
    "not_in_log": "Not in the transparency log",
    "not_organiser": "Not the organiser",
    "not_registered": "Not registered",
    "not_seated": "Not seated",
    "not_asked": "No takeback asked",
    "undo_across_randomness": "Undo across randomness",
    "undo_answered": "Takeback answered already",
    "undo_not_allowed": "Undo not allowed",
    "undo_nothing_to_take_back": "Nothing to take back",
    "undo_pending": "Takeback pending",
    "not_your_seat": "Not your seat",
    "out_of_time": "Out of time",
    "not_ready": "Not ready",
    "overloaded": "Server overloaded",
    "player_not_found": "Player not found",
    "rate_limited": "Rate limited",
    "registration_limited": "Too many registrations",
    "seat_forfeited": "Seat forfeited",
    "seat_reserved": "Seat reserved",
    "seat_taken": "Seat taken",
    "store_unavailable": "Store unavailable",
    "too_few_players": "Too few players",
    "too_large": "Body too large",
    "too_many_open_games": "Too many open games",
    "too_many_requests": "Too many requests",
    "tournament_finished": "Tournament finished",
    "tournament_full": "Tournament full",
    "tournament_not_found": "Tournament not found",
    "tournament_started": "Tournament started",
    "unauthorized": "Not authenticated",
    "unavailable": "Service unavailable",
    "unknown_bot": "Unknown bot",
    "unknown_game": "Unknown game",
    "unprocessable": "Unprocessable request",
    "unsupported_media_type": "Unsupported media type",
    "version_conflict": "Version conflict",
}


def title(code: str) -> str:
    return TITLES.get(code) or TITLES.get(code.partition(".")[0]) or "Error"


def problem_body(
    status: int, code: str, detail: str, version: int | None = None, field: str | None = None
) -> bytes:
    return msgspec.json.encode(
        ProblemBody(
            type=f"https://tabletop.example/problems/{code}",
            title=title(code),
            status=status,
            detail=detail,
            code=code,
            version=version,
            field=field,
        )
    )


def problem(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response[bytes]:
    headers = dict(headers or {})
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if status in (429, 503):  # when to try again: the refusal's own, or a second
        headers.setdefault("Retry-After", str(extra.get("retry_after", 1)))
    return Response(
        content=problem_body(status, code, detail, extra.get("version"), extra.get("field")),
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=headers or None,
    )


def on_problem(_: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    return problem(exc.status, exc.code, exc.detail, **exc.extra)


# Fields of a new game whose malformed values are refused with a code of their own (422),
# as the service refuses their well-formed but impossible values.
_FIELD_CODES = re.compile(r"(?:^|[\s.$`'])(clock|on_timeout)\b")


def on_http(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    code = _CODES.get(status, "error")
    detail = str(exc.detail)
    extra = getattr(exc, "extra", None)
    if isinstance(extra, list) and extra:
        detail = f"{detail}: " + "; ".join(
            f"{e.get('key', '')} {e.get('message', '')}".strip()
            for e in extra
            if isinstance(e, dict)
        )
        new_game = request.method == "POST" and request.url.path.rstrip("/") == "/v1/games"
        # A field the body's type does not have, at any depth: refused by name, never
        # dropped (422, as the rules refuse a move's unknown field); a new game's clock
        # keeps its own family of codes.
        for e in extra:
            message = e.get("message") if isinstance(e, dict) else None
            if status == 400 and e.get("key") == "data" and isinstance(message, str):
                field, unknown = field_at(message, "")
                if unknown and field is not None:
                    if new_game and field.partition(".")[0] == "clock":
                        return problem(422, "invalid_clock.unknown_field", detail, field=field)
                    return problem(422, "invalid_request.unknown_field", detail, field=field)
        if new_game and status == 400 and _FIELD_CODES.search(detail.partition(": ")[2]):
            return problem(422, "invalid_clock", detail)
    headers = dict(exc.headers or {})  # such as 405's Allow, where HEAD goes with GET
    if "GET" in headers.get("allow", "").split(", "):
        headers["allow"] += ", HEAD"
    return problem(status, code, detail, headers)


def on_store_down(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    watch = request.app.state.tabletop.watch
    if isinstance(exc.__cause__, PoolTimeout) and not watch.down:
        # every pooled connection was busy for the pool's whole wait: a busy server, not a
        # lost store (the store's prober, on a connection of its own, says which)
        log.info("pool_busy", path=request.url.path)
        detail = "the server is busy with the requests before yours; try again"
        return problem(503, "overloaded", detail, {"Retry-After": "1"})
    log.warning("store_unavailable", path=request.url.path, error=repr(exc))
    watch.failed(exc)  # is it down? (api/health.py)
    return problem(503, "unavailable", "the event store does not answer; try again shortly")


def on_crash(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("unhandled", path=request.url.path, error=repr(exc))
    return problem(500, "internal_error", "an unexpected error occurred; it has been logged")


HANDLERS = {
    Problem: on_problem,
    HTTPException: on_http,
    OperationalError: on_store_down,  # the store's connection failed (after its retries)
    InterfaceError: on_store_down,
    Exception: on_crash,
}


def documented(*statuses: int, api: bool = True) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problem responses a route can give (and 429 and 503, which
    any route gives: a rate limit reached, the store down or the server overloaded; both
    with Retry-After; and 401, which every route of the API under /v1/ gives to a wrong
    key: api/guard.py)."""
    always = (401, 429, 503) if api else (429, 503)
    return {
        s: ResponseSpec(
            data_container=ProblemBody,
            media_type=PROBLEM_JSON,
            description=_STATUS[s],
            generate_examples=False,
        )
        for s in sorted({*statuses, *always})
    }

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

from api.schemas import ProblemBody
from service.errors import Problem

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger("tabletop.api")

_TITLES = {
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


def problem_body(status: int, code: str, detail: str, version: int | None = None) -> bytes:
    return msgspec.json.encode(
        ProblemBody(
            type=f"https://tabletop.example/problems/{code}",
            title=_TITLES.get(status, "Error"),
            status=status,
            detail=detail,
            code=code,
            version=version,
        )
    )


def problem(status: int, code: str, detail: str, **extra: Any) -> Response[bytes]:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if status in (429, 503):  # when to try again: the refusal's own, or a second
        headers["Retry-After"] = str(extra.get("retry_after", 1))
    return Response(
        content=problem_body(status, code, detail, extra.get("version")),
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
        if new_game and status == 400 and _FIELD_CODES.search(detail.partition(": ")[2]):
            return problem(422, "invalid_clock", detail)
    return problem(status, code, detail)


def on_store_down(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.warning("store_unavailable", path=request.url.path, error=repr(exc))
    request.app.state.tabletop.watch.failed(exc)  # is it down? (api/health.py)
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


def documented(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problem responses a route can give (and 429 and 503, which
    any route gives: a rate limit reached, the store down or the server overloaded; both
    with Retry-After)."""
    return {
        s: ResponseSpec(
            data_container=ProblemBody,
            media_type=PROBLEM_JSON,
            description=_TITLES[s],
            generate_examples=False,
        )
        for s in (*statuses, 429, 503)
    }

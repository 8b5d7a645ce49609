"""JSON request bodies, read strictly before any handler sees them.

Litestar decodes a body to plain values, then converts them to the handler's type leniently
(query strings must become ints, so "2" would pass for an int field). Every JSON route here
gets its body through `JsonRequest.json`, which refuses first, as 4xx problems: a declared
Content-Type that is not JSON (415), bytes that are not UTF-8 JSON, nesting deeper than any
request needs (a few thousand levels exhaust the decoder's stack), and any value the
handler's type would accept only by coercion (a string for an integer).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ValidationException
from litestar.types import Empty

from service.errors import Problem

MAX_DEPTH = 32  # our deepest request (a move with nested parameters) is under 6 levels


class UnsupportedMediaType(Problem):
    status = 415


def is_json(content_type: str) -> bool:
    """application/json, or any application/*+json, whatever its parameters."""
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _depth(value: Any) -> int:
    """How deeply `value` nests lists and objects (iteratively: no stack to exhaust)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in children)
    return deepest


def decode_body(body: bytes, content_type: str | None) -> Any:
    """The JSON value of a request body, or the problem that refuses it."""
    if content_type is not None and not is_json(content_type):
        raise UnsupportedMediaType(
            "unsupported_media_type", f"send the body as application/json, not {content_type}"
        )
    try:
        value = msgspec.json.decode(body or b"null")
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise Problem("invalid_request", f"the body is not UTF-8 JSON: {error}") from None
    except RecursionError:  # deeper than the decoder's stack
        raise _too_deep() from None
    if _depth(value) > MAX_DEPTH:
        raise _too_deep()
    return value


def _too_deep() -> Problem:
    return Problem("invalid_request", f"the body nests deeper than {MAX_DEPTH} levels")


class JsonRequest(Request[Any, Any, Any]):
    """A request whose JSON body is decoded by `decode_body` and checked strictly against
    the handler's `data` type (the lenient conversion that follows then changes nothing)."""

    async def json(self) -> Any:
        if self._json is Empty:
            cached = self._connection_state.json
            if cached is Empty:
                cached = decode_body(await self.body(), self.headers.get("content-type"))
                self._strict(cached)
                self._connection_state.json = cached
            self._json = cached
        return self._json

    def _strict(self, value: Any) -> None:
        field = self.route_handler.parsed_data_field
        if field is None:
            return
        try:
            msgspec.convert(value, type=field.annotation, strict=True)
        except msgspec.ValidationError as error:
            raise ValidationException(
                detail=f"Validation failed for {self.method} {self.url.path}",
                extra=[{"key": "data", "message": str(error), "source": "body"}],
            ) from None

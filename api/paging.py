"""One paging style for every list: the next page's address in a `Link: <...>; rel="next"`
header (RFC 8288), absent on the last page, beside what the body already says (a
`next_cursor`, or `total` and `offset`). A cursor is opaque to clients."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import urlencode

from litestar import Request
from litestar.datastructures import ResponseHeader

from service.errors import Problem

GAMES = b"games:"
LINK = ResponseHeader(
    name="Link", description='`<...>; rel="next"`: the next page, if any', documentation_only=True
)


def encode_cursor(seq: int, kind: bytes = GAMES) -> str:
    return base64.urlsafe_b64encode(kind + str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, kind: bytes = GAMES) -> int:
    """The position a page continues from (a creation position, or an offset in a
    ranking, by `kind`); opaque to clients."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        digits = raw[len(kind) :]
        if raw.startswith(kind) and digits.isdigit() and len(digits) <= 18:
            return int(digits)
    except (binascii.Error, ValueError):
        pass
    raise Problem("invalid_cursor", "the cursor is not one this API gave out")


def page(
    rows: list[tuple[int, bytes]], limit: int, kind: bytes = GAMES
) -> tuple[list[bytes], str | None]:
    """A page of (position, summary) rows read `limit + 1` at a time: the summaries, and
    the cursor of the next page (None on the last one)."""
    shown = rows[:limit]
    return [summary for _, summary in shown], (
        encode_cursor(shown[-1][0], kind) if len(rows) > limit else None
    )


def next_link(request: Request[Any, Any, Any], **changes: Any) -> dict[str, str]:
    """The `Link` header to the next page: this request's address with `changes` to its
    query; no header when `changes` holds a None (there is no next page)."""
    if any(value is None for value in changes.values()):
        return {}
    query = {k: v for k, v in request.query_params.items() if k not in changes}
    query |= {k: str(v) for k, v in changes.items()}
    return {"Link": f'<{request.url.path}?{urlencode(query)}>; rel="next"'}

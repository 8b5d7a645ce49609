"""HTTP caching of game reads (RFC 9110/9111). A game's version names its state: the
`ETag` of a game read is its version (weak: the clock's time left is computed at each
read), so a client polling with `If-None-Match` gets 304 and no body until the game moves.
What a finished game shows never changes: its exports and replays are cached for good."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from litestar import Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter

_T = TypeVar("_T")
IfNoneMatch = Annotated[str | None, HeaderParameter(name="If-None-Match", max_length=1000)]
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}
NOT_MODIFIED = {
    304: ResponseSpec(
        None, description="Not Modified: the game is still at the `If-None-Match` version"
    )
}


def etag(version: int) -> str:
    return f'W/"{version}"'


def _matches(if_none_match: str | None, tag: str) -> bool:
    """If-None-Match against `tag`, compared weakly (as RFC 9110 13.1.2 asks)."""
    if if_none_match is None:
        return False
    bare = tag.removeprefix("W/")
    return any(t.strip() in ("*", bare) or t.strip().removeprefix("W/") == bare
               for t in if_none_match.split(","))  # fmt: skip


def versioned(if_none_match: str | None, version: int, body: Callable[[], _T]) -> Response[_T]:
    """The read of a game at `version`: 304 when the client has it (`if_none_match`, the
    header), else `body()`; either way tagged with the version. Its body depends on the
    caller's key (`Vary`)."""
    headers = {"ETag": etag(version), "Vary": "Authorization"}
    if _matches(if_none_match, headers["ETag"]):
        return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
    return Response(body(), headers=headers)

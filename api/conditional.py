"""HTTP caching of game reads (RFC 9110/9111). A game's version names its state: the
`ETag` of a game read is its version, with the caller's seat for a seated caller (weak:
the clock's time left is computed at each read), so a client polling with `If-None-Match`
gets 304 and no body until the game moves. What a finished game shows never changes: its
exports (at a saved tree size) and replays are cached for good."""

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


def etag(version: int, seat: int | None = None) -> str:
    """The tag of a read at `version` as `seat` sees it (a seat sees more than spectators:
    one browser cache may hold both, and must not revalidate one with the other's tag)."""
    return f'W/"{version}"' if seat is None else f'W/"{version}.{seat}"'


def _matches(if_none_match: str | None, tag: str) -> bool:
    """If-None-Match against `tag`, compared weakly (as RFC 9110 13.1.2 asks)."""
    if if_none_match is None:
        return False
    bare = tag.removeprefix("W/")
    return any(t.strip() in ("*", bare) or t.strip().removeprefix("W/") == bare
               for t in if_none_match.split(","))  # fmt: skip


def versioned(
    if_none_match: str | None, version: int, body: Callable[[], _T], seat: int | None = None
) -> Response[_T]:
    """The read of a game at `version` as `seat` sees it: 304 when the client has it
    (`if_none_match`, the header), else `body()`; either way tagged with the version and
    the seat. Its body depends on the caller's key (`Vary`)."""
    headers = {"ETag": etag(version, seat), "Vary": "Authorization"}
    if _matches(if_none_match, headers["ETag"]):
        return Response(None, status_code=304, headers=headers)  # type: ignore[arg-type]
    return Response(body(), headers=headers)

"""Refusals the service answers with, each with a stable code and an HTTP status.

The API turns them into application/problem+json; nothing is changed when one is raised.
"""

from __future__ import annotations

import re
from typing import Any

# msgspec's words for a refused value: what is wrong, then where (`$`, `$.clock`, `$[2].x`).
_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`$")


class Problem(Exception):
    status = 400

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class Unauthorized(Problem):
    status = 401


class Forbidden(Problem):
    status = 403


class NotFound(Problem):
    status = 404


class Conflict(Problem):
    status = 409


class Unprocessable(Problem):
    status = 422


class Unavailable(Problem):
    status = 503


def field_at(message: str, root: str) -> tuple[str | None, bool]:
    """(the path of the value a msgspec ValidationError `message` refers to, under `root`,
    as `move.black_market.vpp`; whether it is a field the type does not have)."""
    found = _AT.match(message)
    if found is None:  # (the pattern matches any text: never)
        return None, False
    path = found["path"] or ""
    unknown = _UNKNOWN.match(found["what"].strip())
    if unknown is not None:
        path += "." + unknown["name"]
    elif not path:
        return (root or None), False
    dotted = (root + path) if root else path.removeprefix(".")
    return dotted, unknown is not None

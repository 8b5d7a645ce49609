"""Where a msgspec refusal points, as a path in the request (`move.black_market.colour`):
what the API's problems name in their `field`, for moves, options and request bodies."""

from __future__ import annotations

import re

# msgspec's words for a refused value: what is wrong, then where (`$`, `$.clock`, `$[2].x`).
_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`$")


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

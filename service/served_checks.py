"""A game as a service serves it, against its leaf in the transparency log or an export
saved before (`tabletop verify --server`, `tabletop monitor`): from the outside, the record
is what its export says, or, when the service no longer exports it (it reads as running),
how many events its game has.

The HTTP is the caller's: `Get` answers a path with its status and body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from service.tamper import Lines, Tamper, against_leaf, against_saved, ending, missing_tail

Get = Callable[[str], tuple[int, str]]  # a path of the service -> (status, body)


def events_of(lines: Lines) -> Lines:
    """An export's event lines (without its header and footer)."""
    return [line for line in lines[1:] if "version" in line]


def served_export(get: Get, game: str) -> tuple[Lines | None, int | None]:
    """The game's export as served now, or (None, the game's version) when the service
    does not export it (None when it has no such game)."""
    status, body = get(f"/v1/games/{game}/export")
    if status == 200:
        return [json.loads(x) for x in body.splitlines() if x.strip()], None
    status, body = get(f"/v1/games/{game}")
    version = json.loads(body).get("version") if status == 200 else None
    return None, version if isinstance(version, int) else None


def logged_leaf(get: Get, game: str) -> dict[str, Any] | None:
    """The game's leaf as the log lists it ({final_hash, version, ...}); None when the log
    holds no end of it."""
    status, body = get(f"/v1/transparency/inclusion/{game}")
    if status != 200:
        return None
    index = json.loads(body).get("leaf_index")
    status, body = get(f"/v1/transparency/leaves?start={index}&limit=1")
    leaves = json.loads(body).get("leaves") if status == 200 else None
    if not leaves or leaves[0].get("id") != game:
        return None
    leaf: dict[str, Any] = leaves[0]
    return leaf


def against_served_leaf(get: Get, game: str, leaf: dict[str, Any]) -> Tamper | None:
    """The game as served against its leaf."""
    lines, version = served_export(get, game)
    logged_hash, logged_version = str(leaf.get("final_hash")), leaf.get("version")
    if lines is not None:
        return against_leaf(game, events_of(lines), logged_hash, logged_version)
    stored = version or 0
    return Tamper(
        game=game,
        what="not_ended",
        first_version=stored + 1 if logged_version and stored < logged_version else None,
        stored_events=stored,
        logged_version=logged_version,
        logged_hash=logged_hash,
        stored_hash=None,
        detail=missing_tail(stored, logged_version)
        + ("" if version is not None else " (the service has no such game now)"),
    )


def against_served_export(get: Get, saved: Lines) -> Tamper | None:
    """An export saved before against the game as served now."""
    game = str((saved[0] if saved else {}).get("id"))
    kept = events_of(saved)
    lines, version = served_export(get, game)
    if lines is not None:
        return against_saved(game, kept, events_of(lines))
    stored = version or 0
    end = ending(kept)
    return Tamper(
        game=game,
        what="not_ended",
        first_version=stored + 1 if stored < len(kept) else None,
        stored_events=stored,
        logged_version=end.get("version") if end else None,
        logged_hash=end.get("hash") if end else None,
        stored_hash=None,
        detail=f"the service no longer exports it: its game has {stored} events, the saved "
        f"export {len(kept)}",
    )

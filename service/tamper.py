"""A game's recorded chain against what vouches for it: its transparency-log leaf (the hash
of its ending, and since leaves carry it, the ending's version) or an export saved before.

A chain redone after an edit passes every check of its own (docs/trust.md): only what was
fixed before the edit tells it apart. Pure functions of export lines, so that the audit
(the store), the sentinel, `tabletop verify` and `tabletop monitor` (what the service
serves) judge alike.
"""

from __future__ import annotations

from typing import Any

import msgspec

from service.chain import GENESIS, line_hash
from service.fold import ENDINGS

Lines = list[dict[str, Any]]  # a game's event lines, in version order (no header or footer)


class Tamper(msgspec.Struct, kw_only=True):
    """How a game's record differs from what vouched for it."""

    game: str
    # final_hash_differs | not_ended (its logged end and maybe more missing) | chain_broken
    what: str
    first_version: int | None  # the first version that differs or is missing, when known
    stored_events: int  # how many events the record holds now
    logged_version: int | None  # the version of the ending the log holds (null: not said)
    logged_hash: str | None  # the final hash the log holds
    stored_hash: str | None  # the hash of the record's ending, if it has one
    detail: str  # for people


def first_broken(events: Lines) -> int | None:
    """The first version whose number, prev_hash or hash is wrong; None when intact."""
    prev = GENESIS
    for expected_version, line in enumerate(events, start=1):
        if (
            line.get("version") != expected_version
            or line.get("prev_hash") != prev
            or line_hash(line) != line.get("hash")
        ):
            return expected_version
        prev = line["hash"]
    return None


def ending(events: Lines) -> dict[str, Any] | None:
    """The event that ended the game (what its leaf holds the hash of; a rematch offered
    later chains after it)."""
    return next((e for e in events if e.get("type") in ENDINGS), None)


def against_leaf(
    game: str, events: Lines, logged_hash: str, logged_version: int | None
) -> Tamper | None:
    """The record of a game with a leaf: it must be intact and end with the leaf's hash."""
    end = ending(events)
    found = Tamper(
        game=game,
        what="final_hash_differs",
        first_version=None,
        stored_events=len(events),
        logged_version=logged_version,
        logged_hash=logged_hash,
        stored_hash=end.get("hash") if end is not None else None,
        detail="",
    )
    broken = first_broken(events)
    if broken is not None:
        found.what, found.first_version = "chain_broken", broken
        found.detail = f"the hash chain breaks at version {broken}"
    elif end is None:
        found.what = "not_ended"
        found.detail = missing_tail(len(events), logged_version)
        if logged_version is not None and len(events) < logged_version:
            found.first_version = len(events) + 1
    elif end.get("hash") == logged_hash:
        return None
    elif logged_version is not None and end.get("version") != logged_version:
        found.first_version = min(int(end.get("version") or 0), logged_version)
        found.detail = (
            f"the log holds the end at version {logged_version}; the record ends at version "
            f"{end.get('version')}, with another hash"
        )
    else:
        found.detail = (
            "the final hash differs from the log's leaf: the chain was redone after an edit "
            "(which version was edited needs an export saved before: tabletop verify FILE "
            "--server URL)"
        )
    return found


def missing_tail(stored: int, logged_version: int | None) -> str:
    """What a game with a leaf and no ending in its record lost."""
    if logged_version is None:
        return f"the log holds its end, but its record ({stored} events) has none: deleted"
    if stored < logged_version:
        return (
            f"the log holds its end at version {logged_version}; its record has {stored} "
            f"events: versions {stored + 1} to {logged_version} are missing"
        )
    return f"the log holds its end at version {logged_version}; its record has none"


def against_saved(game: str, saved: Lines, current: Lines) -> Tamper | None:
    """The record now against an export of it saved before (whose signature and inclusion
    proof vouch for it): the first version whose event is not the one saved, or the events
    saved that are missing now."""
    for version, (was, now) in enumerate(zip(saved, current, strict=False), start=1):
        if was.get("hash") != now.get("hash"):
            differs = [k for k in (*was.keys(), *now.keys()) if was.get(k) != now.get(k)]
            fields = sorted(set(differs) - {"hash", "prev_hash"}) or ["prev_hash"]
            return Tamper(
                game=game,
                what="final_hash_differs",
                first_version=version,
                stored_events=len(current),
                logged_version=_version(ending(saved)),
                logged_hash=_hash(ending(saved)),
                stored_hash=_hash(ending(current)),
                detail=f"version {version} differs from the saved export in {', '.join(fields)}",
            )
    if len(current) < len(saved):
        return Tamper(
            game=game,
            what="not_ended" if ending(current) is None else "final_hash_differs",
            first_version=len(current) + 1,
            stored_events=len(current),
            logged_version=_version(ending(saved)),
            logged_hash=_hash(ending(saved)),
            stored_hash=_hash(ending(current)),
            detail=f"versions {len(current) + 1} to {len(saved)} of the saved export are missing",
        )
    return None


def _hash(line: dict[str, Any] | None) -> str | None:
    return None if line is None else line.get("hash")


def _version(line: dict[str, Any] | None) -> int | None:
    return None if line is None else line.get("version")

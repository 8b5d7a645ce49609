"""Readable lines for the service's own events (a seat taken, the game finished...), the
counterpart of each game's `describe` for its rules events. Plain text; never the seed."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import msgspec

from domain.registry import get as get_game
from service.fold import (
    CLOCK_CREDIT,
    GAME_ABORTED,
    GAME_CREATED,
    GAME_FINISHED,
    RANDOMNESS_FIXED,
    REMATCH_ACCEPTED,
    REMATCH_OFFERED,
    SEAT_FORFEITED,
    SEAT_LEFT,
    SEAT_TAKEN,
    SERVICE_EVENTS,
    TIMED_OUT,
)
from service.undo import REVERTED, UNDO_ACCEPTED, UNDO_DECLINED, UNDO_REQUESTED


def _who(seat: Any, viewer: int | None) -> str:
    return f"Seat {seat}" + (" (you)" if isinstance(seat, int) and seat == viewer else "")


def service_line(kind: str, data: Any, viewer: int | None) -> str:
    d = data if isinstance(data, dict) else {}
    seat = d.get("seat")
    if kind == GAME_CREATED:
        return f"Game of {d.get('game', '?')} created for {d.get('seats', '?')} seats."
    if kind == SEAT_TAKEN:
        taker = d.get("name") or (f"bot {d['bot']}" if d.get("bot") else "a player")
        return f"{_who(seat, viewer)} taken by {taker}."
    if kind == RANDOMNESS_FIXED:
        seeds = ", ".join(str(seed) for seed in d.get("client_seeds") or [])
        return f"Every seat is taken: the randomness is fixed with the client seeds {seeds}."
    if kind == SEAT_LEFT:
        return f"{_who(seat, viewer)} is free again."
    if kind == TIMED_OUT:
        return f"{_who(seat, viewer)} ran out of time."
    if kind == CLOCK_CREDIT:
        seats = ", ".join(_who(s, viewer).lower() for s in d.get("seats") or [])
        seconds = (d.get("ms") or 0) / 1000
        return f"The service was away: {seconds:.1f} s given back to {seats}."
    if kind == SEAT_FORFEITED:
        reason, bot = d.get("reason", "?"), d.get("bot")
        return f"{_who(seat, viewer)} forfeited ({reason}); bot {bot} plays it."
    if kind == GAME_FINISHED:
        result = d.get("result") or {}
        scores = result.get("scores") or []
        listed = ", ".join(f"{_who(s, viewer).lower()} {n}" for s, n in enumerate(scores))
        return "Game finished" + (f": {listed}." if listed else ".") + " The seed is revealed."
    if kind == GAME_ABORTED:
        return "Game aborted. The seed is revealed."
    if kind == REMATCH_OFFERED:
        return f"{_who(d.get('by'), viewer)} offered a rematch."
    if kind == REMATCH_ACCEPTED:
        return f"{_who(seat, viewer)} accepted the rematch."
    if kind == UNDO_REQUESTED:
        return f"{_who(seat, viewer)} asked to take back their last decision."
    if kind == UNDO_ACCEPTED:
        return f"{_who(seat, viewer)} accepted the takeback."
    if kind == UNDO_DECLINED:
        return f"{_who(seat, viewer)} declined the takeback."
    if kind == REVERTED:
        whose, version = _who(seat, viewer).lower(), d.get("to_version", "?")
        return f"Taken back: the game goes on from version {version}, before {whose}'s decision."
    return kind.replace("_", " ").capitalize() + "."


def spectator_lines(game_name: str, lines: list[dict[str, Any]]) -> list[str]:
    """The readable line of each export line as a spectator read it while the game ran
    (the export's footer `text`); "" for a line that no longer reads as its event."""
    game = get_game(game_name)
    out = []
    for line in lines:
        kind, data = str(line.get("type")), line.get("data")
        text = ""
        if kind in SERVICE_EVENTS:
            text = service_line(kind, data, None)
        elif game is not None and isinstance(data, dict):
            # A damaged record reads as no line: the audit says which.
            with suppress(msgspec.ValidationError, TypeError, AttributeError, KeyError, ValueError):
                text = game.describe(msgspec.convert({**data, "type": kind}, game.event_type), None)
        out.append(text)
    return out

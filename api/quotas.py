"""The quotas a new game or a join must meet before it is written (api/limits.py's buckets
and the open-games cap)."""

from __future__ import annotations

from typing import Any

import anyio
from litestar import Request

from api.bootstrap import Tabletop
from api.limits import refused
from service.errors import Problem
from service.players import Player


async def admit_game(request: Request[Any, Any, Any], t: Tabletop, bots: bool) -> None:
    """Before a new game or a join: the caller's quotas (raises TooMany). An unknown caller
    is left for the write itself to refuse (401)."""
    limits = t.limits
    if limits.bot_games is None and not limits.open_games:
        return
    player = await anyio.to_thread.run_sync(_caller, t, request)
    if player is None:
        return
    if bots and t.bot_games is not None:
        wait = t.bot_games.take(player.id)
        if wait:
            rate = limits.bot_games
            assert rate is not None
            raise refused(
                "bot_games_limited",
                f"at most {rate.count} games with bots per {rate.seconds:g} s",
                wait,
            )
    if limits.open_games:
        playing = await anyio.to_thread.run_sync(_playing, t, player.id, limits.open_games)
        if playing >= limits.open_games:
            raise refused(
                "too_many_open_games",
                f"you sit in {playing} games that are not over (at most "
                f"{limits.open_games}): finish, resign or leave some first",
                30,
            )


def _caller(t: Tabletop, request: Request[Any, Any, Any]) -> Player | None:
    try:
        return t.caller(request, required=True)
    except Problem:
        return None


def _playing(t: Tabletop, player_id: str, cap: int) -> int:
    """How many games not over (open or active) `player_id` sits in, counted up to `cap`."""
    return sum(
        len(t.reads.list_games(None, status, player_id, None, cap)) for status in ("open", "active")
    )

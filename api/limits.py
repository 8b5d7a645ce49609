"""Rate limits and quotas (the settings: service/settings.py `Limits`).

Each limit is a token bucket per key (a client address, an API key's player, a player): a
burst of `count`, refilled at `count` per `seconds`; a request finding it empty is answered
429 with `Retry-After` (the seconds until a token is back). The buckets live in this
process (with `serve --workers N` each worker keeps its own, so a client may get up to N
times the rate); a bucket table keeps at most MAX_KEYS keys, forgetting the longest idle
first (a forgotten key starts again with a full bucket, as it would after its idle time).

The quotas on new games are checked where a game is created or joined: how many games not
over a player sits in (from the read model, which trails the log by milliseconds) and how
many games with bots it created lately.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import anyio
from litestar import Request

from service.errors import Problem
from service.settings import Rate

if TYPE_CHECKING:
    from api.app import Tabletop
    from service.players import Player

MAX_KEYS = 50_000


class TooMany(Problem):
    status = 429


class Buckets:
    """Token buckets of one rate, by key. Thread-safe (quotas are charged in threads too)."""

    def __init__(self, rate: Rate, max_keys: int = MAX_KEYS) -> None:
        self.rate = rate
        self._per_second = rate.count / rate.seconds
        self._max_keys = max_keys
        self._tokens: OrderedDict[str, tuple[float, float]] = OrderedDict()  # (tokens, when)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take a token: 0 when taken, otherwise the seconds until one is back."""
        return self._use(key, take=True)

    def wait(self, key: str) -> float:
        """The seconds until the bucket holds a token (0: it holds one now); takes none."""
        return self._use(key, take=False)

    def _use(self, key: str, take: bool) -> float:
        now = time.monotonic()
        with self._lock:
            tokens, then = self._tokens.get(key, (float(self.rate.count), now))
            tokens = min(float(self.rate.count), tokens + (now - then) * self._per_second)
            if tokens < 1.0:
                self._tokens[key] = (tokens, now)
                self._tokens.move_to_end(key)
                return (1.0 - tokens) / self._per_second
            if take:
                self._tokens[key] = (tokens - 1.0, now)
                self._tokens.move_to_end(key)
                while len(self._tokens) > self._max_keys:
                    self._tokens.popitem(last=False)
            return 0.0

    def __len__(self) -> int:
        return len(self._tokens)


def buckets(rate: Rate | None) -> Buckets | None:
    return Buckets(rate) if rate is not None else None


def retry_after(seconds: float) -> str:
    """A Retry-After value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))


def refused(code: str, detail: str, seconds: float) -> TooMany:
    return TooMany(code, detail, retry_after=retry_after(seconds))


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

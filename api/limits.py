"""Rate limits and quotas (the settings: service/settings.py `Limits`).

Each limit is a token bucket per key (a client address, an API key's player, a player): a
burst of `count`, refilled at `count` per `seconds`; a request finding it empty is answered
429 with `Retry-After` (the seconds until a token is back). The buckets live in this
process (with `serve --workers N` each worker keeps its own, so a client may get up to N
times the rate); a bucket table keeps at most MAX_KEYS keys, forgetting the longest idle
first (a forgotten key starts again with a full bucket, as it would after its idle time).

These rates shed abuse per process. The per-player quotas must hold exactly wherever a
player's requests land, so they are kept elsewhere (api/quotas.py): games with bots and
challenges and seeks per player in buckets in the database (service/shared_buckets.py, on
Postgres), and the open-games cap counted under the player's lock.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict

from service.errors import Problem
from service.settings import Rate

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

"""A fake server clock for tests of time controls: time moves only when the test says."""

from __future__ import annotations

from service.clocks import micros, stamp


class FakeClock:
    """Callable like `service.chain.now_text`: the current fake time as an `at` stamp."""

    def __init__(self, start: str = "2026-01-01T00:00:00.000000Z") -> None:
        self.us = micros(start)

    def __call__(self) -> str:
        return stamp(self.us)

    def advance(self, seconds: float) -> None:
        self.us += round(seconds * 1_000_000)

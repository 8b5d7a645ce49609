"""Waiting on a condition, the one way tests wait (never a fixed sleep)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(check: Callable[[], object], seconds: float, what: str) -> None:
    """Poll `check()` every 50 ms until it is true; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(0.05)

"""Deterministic randomness from a game's secret seed: one RNG per (seed, version).

The service hands `decide` and `setup` the RNG for the version the command is applied at, so
an auditor holding the revealed seed re-runs every recorded command to the same events.
"""

from __future__ import annotations

import hashlib
import random


def rng_for(seed: bytes, version: int, purpose: str = "rules") -> random.Random:
    """`purpose` separates independent streams (rules vs. a bot's choice) at one version."""
    material = hashlib.sha256(seed + version.to_bytes(8, "big") + purpose.encode()).digest()
    return random.Random(int.from_bytes(material, "big"))


def commitment(seed: bytes) -> str:
    """The public SHA-256 (hex) of the 32 raw seed bytes, published before play."""
    return hashlib.sha256(seed).hexdigest()

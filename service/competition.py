"""Challenges and seeks together (service/challenges.py, service/seeks.py): what the
routes use, and what the timekeeper's tick runs (the seeks whose bot-fill wait is over).
Both read their lists, and the tick its due pools, from the read model (`index`:
projections/views.py), so no read scans the log.
"""

from __future__ import annotations

from typing import Protocol

from service import challenges, seeks
from service.challenges import ChallengeService
from service.games import Games
from service.seeks import SeekService


class Index(challenges.Listed, seeks.Listed, Protocol):
    """What challenges and seeks read from the read model."""


class Competition:
    def __init__(self, games: Games, index: Index) -> None:
        self.challenges = ChallengeService(games, index)
        self.seeks = SeekService(games, index)

    def tick(self) -> int:
        """(Each timekeeper tick) seat the seeks whose fill time has come, with bots; how
        many pools were due. Challenges expire when next read: no tick needed."""
        return self.seeks.tick()

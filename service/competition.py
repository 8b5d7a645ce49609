"""Challenges and seeks together (service/challenges.py, service/seeks.py): what the
routes use, and what the timekeeper's tick runs (the seeks whose bot-fill wait is over).
"""

from __future__ import annotations

from service.challenges import ChallengeService
from service.games import Games
from service.seeks import SeekService


class Competition:
    def __init__(self, games: Games) -> None:
        self.challenges = ChallengeService(games)
        self.seeks = SeekService(games)

    def tick(self) -> int:
        """(Each timekeeper tick) seat the seeks whose fill time has come, with bots; how
        many pools were due. Challenges expire when next read: no tick needed."""
        return self.seeks.tick()

"""Fixtures of the read-side tests: the app in-process with its projection runner, and
helpers to wait for the read models and to compare two builds of them."""

from __future__ import annotations

import random
from typing import Any

from service.players import Player
from tests.support.api import Api
from tests.support.games import GameService

BOTS = Player("b" * 32, "bot owner", "2026-01-01T00:00:00Z")


def caught_up(api: Api) -> None:
    """Wait until the read models hold every event appended so far."""
    api.client.app.state.tabletop.runner.caught_up(timeout=30)  # type: ignore[attr-defined]


def bot_games(games: GameService, count: int, rng: random.Random) -> list[Any]:
    """Bots-only secret-duel games, played to the end by the bot runner: all created first
    (the runner plays them side by side), then each awaited until it is over."""
    created = []
    for _ in range(count):
        seats = rng.randint(2, 4)
        bots = dict.fromkeys(range(seats), "random")
        created.append(games.create(BOTS, "secret-duel", seats, {"rounds": 3}, bots))
    folds = [games.settled(fold.id) for fold in created]
    assert all(fold.status == "finished" for fold in folds)
    return folds

"""Bots playing whole games in-process, no store: `tabletop selfplay` and bot evaluations."""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Iterator
from typing import Any

from domain.bots import resolve_bot
from domain.contract import Bot, Game, SeatInfo
from domain.simulate import play


def bot_named(game: Game[Any, Any], name: str) -> Bot:
    """The bot a spec names (`random`, `greedy`, `mcts:playouts=200`, ...): domain/bots.py
    resolves it for every runner and raises BotSpecError for a bad one."""
    return resolve_bot(game, name)


def selfplay(
    game: Game[Any, Any],
    players: int,
    games: int,
    seed: str,
    bots: list[str],
    options: Any = None,
) -> Iterator[dict[str, Any]]:
    """One summary per game. `bots` names one bot per seat (cycled if shorter)."""
    chosen = [bot_named(game, bots[s % len(bots)]) for s in range(players)]
    opts = options if options is not None else game.options_type()
    for i in range(games):
        game_seed = hashlib.sha256(f"{seed}/{i}".encode()).digest()
        started = time.perf_counter()
        played = play(game, opts, chosen, game_seed)
        result = played.result
        assert result is not None
        yield {
            "game": game.name,
            "index": i,
            "seed": game_seed.hex(),
            "players": players,
            "events": len(played.events),
            "moves": played.moves,
            "scores": result.scores,
            "ranks": result.ranks,
            "winner": result.winners,
            "ms": round((time.perf_counter() - started) * 1000, 2),
        }


class _Timed:
    """A bot that counts its decisions and the time they took."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.decisions = 0
        self.seconds = 0.0

    def __call__(self, game: Game[Any, Any], info: SeatInfo, rng: random.Random) -> Any:
        started = time.perf_counter()
        try:
            return self.bot(game, info, rng)
        finally:
            self.seconds += time.perf_counter() - started
            self.decisions += 1


def duel(
    game: Game[Any, Any],
    bot: str,
    games: int,
    players: int,
    seed: str,
    against: str = "random",
    first: int = 0,
) -> Iterator[dict[str, Any]]:
    """One `bot` against `players - 1` `against` bots, its seat rotating game by game; one
    summary per game (`won`: ranked first, ties included; `alone`: first and untied;
    `decisions` and `ms` of the measured bot). Games `first`..`first + games - 1` of the
    seed's series, so a long duel may be split among processes."""
    hero, other = bot_named(game, bot), bot_named(game, against)
    for i in range(first, first + games):
        seat = i % players
        timed = _Timed(hero)
        bots: list[Bot] = [timed if s == seat else other for s in range(players)]
        game_seed = hashlib.sha256(f"{seed}/duel/{i}".encode()).digest()
        result = play(game, game.options_type(), bots, game_seed).result
        assert result is not None
        yield {
            "index": i,
            "seat": seat,
            "seed": game_seed.hex(),
            "scores": result.scores,
            "won": result.ranks[seat] == 1,
            "alone": result.winners == [seat],
            "decisions": timed.decisions,
            "ms": round(timed.seconds * 1000, 1),
        }


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))

"""Bots playing whole games in-process, no store: `tabletop selfplay` and bot evaluations."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from typing import Any

from domain.contract import Bot, Game, random_bot
from domain.simulate import play


def bot_named(game: Game[Any, Any], name: str) -> Bot:
    if name == "random":
        return random_bot
    if name not in game.bots:
        raise KeyError(f"{game.name} has no bot {name!r} (has: random, {', '.join(game.bots)})")
    return game.bots[name]


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


def duel(
    game: Game[Any, Any], bot: str, games: int, players: int, seed: str, against: str = "random"
) -> Iterator[dict[str, Any]]:
    """One `bot` against `players - 1` `against` bots, its seat rotating game by game; one
    summary per game (`won`: ranked first, ties included; `alone`: first and untied)."""
    hero, other = bot_named(game, bot), bot_named(game, against)
    for i in range(games):
        seat = i % players
        bots = [hero if s == seat else other for s in range(players)]
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
        }

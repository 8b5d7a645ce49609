"""The hosted games by name. Adding a game: one package under domain/ and one line here."""

from __future__ import annotations

from typing import Any

from domain.contract import CAPABILITIES, Game

GAMES: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    """Host `game`. It must declare every optional capability (None or False where it has
    none), so that a plugin game that omits one fails here rather than in a bot's turn."""
    undeclared = [name for name in CAPABILITIES if name not in dir(game)]
    if undeclared:
        raise TypeError(
            f"game {game.name!r} does not declare {', '.join(undeclared)}"
            " (None or False where it has none: domain/contract.py)"
        )
    GAMES[game.name] = game
    return game


def get(name: str) -> Game[Any, Any] | None:
    return GAMES.get(name)


def _hosted() -> None:
    """The hosted games: one line each (imported here so that domain/contract stays free of
    them)."""
    from domain import caylus, plus_ultra, puerto_rico, santa_maria

    for game in (caylus.GAME, plus_ultra.GAME, puerto_rico.GAME, santa_maria.GAME):
        register(game)


_hosted()

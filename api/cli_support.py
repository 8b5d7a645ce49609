"""What the `tabletop` command's modules share: refusing a bad argument, and the games."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from domain.contract import Game


def refuse(message: str) -> NoReturn:
    """A bad argument: one line on stderr and exit code 2 (a usage error), no traceback."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


def hosted_games() -> dict[str, Game[Any, Any]]:
    """The registered games, plugins' included (TABLETOP_PLUGINS)."""
    from domain.registry import GAMES
    from service.plugins import load_plugins

    load_plugins()
    return GAMES

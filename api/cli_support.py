"""What the `tabletop` command's modules share: refusing a bad argument, the games, and
whether an address is free to serve on."""

from __future__ import annotations

import errno
import socket
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


def taken(host: str, port: int) -> str | None:
    """Why `tabletop serve` cannot listen on host:port, or None when it can: bound here as
    uvicorn binds it (SO_REUSEADDR: a server just stopped, its connections still closing,
    does not count), and let go. Checked before anything starts, so that a taken port
    stops `serve` at once, saying so, and never leaves a client talking to another server."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return (
                    f"port {port} is taken: another server listens on {host}:{port}. Stop it, "
                    f"or serve on another port (--port {port + 1}; PORT={port + 1} make run)."
                )
            return f"cannot serve on {host}:{port}: {error}"
    return None

"""The `tabletop` command: serve, selfplay, duel, bot, the background roles (projections,
bots, timekeeper), and the checks of api/cli_checks.py (README.md, "Commands")."""

from __future__ import annotations

import json
import os
import secrets
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api import cli_checks as checks
from api.cli_support import hosted_games, refuse, taken

# Everything else is imported by the command that needs it: `tabletop verify --help` starts
# in a tenth of the time it took with the rules, the store's drivers and rich imported here.
if TYPE_CHECKING:
    from rich.progress import Progress

    from domain.contract import Game

cli = typer.Typer(
    help="Tabletop: turn-based board games as immutable event logs.",
    no_args_is_help=True,
    add_completion=False,
)


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
    workers: Annotated[int, typer.Option(help="processes (Postgres only)")] = 1,
    header_timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            envvar="TABLETOP_HEADER_TIMEOUT",
            help="seconds for a request's head to arrive (then 408, closed)",
        ),
    ] = 5.0,
    read_timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            envvar="TABLETOP_READ_TIMEOUT",
            help="seconds for a request to arrive in full (then 408, closed)",
        ),
    ] = 10.0,
    keep_alive: Annotated[
        float,
        typer.Option(
            min=0.1,
            envvar="TABLETOP_KEEP_ALIVE",
            help="seconds an idle connection stays open between requests",
        ),
    ] = 5.0,
    max_connections: Annotated[
        int,
        typer.Option(min=1, envvar="TABLETOP_MAX_CONNECTIONS", help="open connections per process"),
    ] = 2048,
    max_per_address: Annotated[
        int,
        typer.Option(
            min=1,
            envvar="TABLETOP_MAX_PER_ADDRESS",
            help="open connections per process from one client address (an IPv6 /64); "
            "the --forwarded-allow-ips proxies are held to --max-connections only",
        ),
    ] = 64,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="addresses of reverse proxies whose X-Forwarded-For names the client "
            "(comma-separated, or *)"
        ),
    ] = "127.0.0.1",
) -> None:
    """Serve the API (SQLite store unless DATABASE_URL is set)."""
    import uvicorn

    from projections.beside import RunnerBeside
    from projections.runner import view_for
    from service.settings import Settings
    from service.sole import sole
    from service.store import open_store

    busy = taken(host, port)
    if busy is not None:
        refuse(busy)
    hosted_games()
    settings = Settings.from_env()
    if workers > 1 and settings.database_url is None:
        raise typer.BadParameter("several workers need Postgres (set DATABASE_URL)")
    # Create the tables once, here: workers creating them at once collide in Postgres, and
    # so do hosts starting together on an empty database (hence the lock across hosts).
    with sole(settings, "schema"):
        store = open_store(settings)
        view_for(store).create_table()
        store.close()
    os.environ["TABLETOP_CREATE_TABLES"] = "n"
    typer.echo(f"Tabletop listening on http://{host}:{port} (interactive docs: /schema)")
    # One projection runner: on Postgres in a process of its own (see projections/beside.py),
    # on SQLite inside the app (whose commits wake it at once).
    runner = None
    if settings.database_url is not None and os.environ.get("TABLETOP_PROJECTIONS", "app") == "app":
        runner = RunnerBeside(settings)
        os.environ["TABLETOP_PROJECTIONS"] = "elsewhere"
    # read by api/server.py in each worker process
    os.environ["TABLETOP_HEADER_TIMEOUT"] = str(header_timeout)
    os.environ["TABLETOP_READ_TIMEOUT"] = str(read_timeout)
    os.environ["TABLETOP_KEEP_ALIVE"] = str(keep_alive)
    os.environ["TABLETOP_MAX_CONNECTIONS"] = str(max_connections)
    os.environ["TABLETOP_MAX_PER_ADDRESS"] = str(max_per_address)
    from api.server import open_files_for  # only now: the module reads the settings above

    short = open_files_for(max_connections)
    if short is not None:
        typer.echo(short, err=True)
    try:
        uvicorn.run(
            "api.main:build",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            http="api.server:BoundedHttp",  # it applies the timeouts and caps above
            # asyncio's loop, not uvloop's: under a few hundred busy connections uvloop
            # accepted some 20 new ones a second, so that /health (and every new client)
            # waited in the listen queue for as long as the load lasted
            loop="asyncio",
            ws="none",  # no WebSocket routes: an upgrade would leave the connection uncounted
            proxy_headers=True,
            forwarded_allow_ips=forwarded_allow_ips,
            log_level="warning",
            access_log=False,
        )
    finally:
        if runner is not None:
            runner.stop()


projections = typer.Typer(help="Read models built from the event log.", no_args_is_help=True)
cli.add_typer(projections, name="projections")


@projections.command("run")
def projections_run() -> None:
    """Keep the read models current (when `tabletop serve` runs with
    TABLETOP_PROJECTIONS=elsewhere); runs until interrupted."""
    from projections.runner import run_forever
    from service.logs import configure
    from service.settings import Settings

    hosted_games()
    settings = Settings.from_env()
    configure(settings.log_json)
    run_forever(settings)


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Drop every read model and rebuild it from the event log (stop the runners first)."""
    from projections.runner import rebuild
    from service.settings import Settings

    hosted_games()
    position = rebuild(Settings.from_env())
    sys.stdout.write(json.dumps({"rebuilt": True, "position": position}) + "\n")


bots = typer.Typer(help="Bots: the seats bots hold, played.", no_args_is_help=True)
cli.add_typer(bots, name="bots")


@bots.command("run")
def bots_run() -> None:
    """Play every seat a bot holds as it becomes awaited, in a process of its own, until
    interrupted (`tabletop serve` runs a bot runner already, unless TABLETOP_BOTS=elsewhere;
    two runners never decide one seat twice: the store takes one decision)."""
    from projections.runner import view_for
    from service import bot_runner
    from service.logs import configure
    from service.plugins import load_plugins
    from service.settings import Settings

    settings = Settings.from_env()
    configure(settings.log_json)
    load_plugins()
    bot_runner.run_forever(settings, view_for)


timekeeper = typer.Typer(help="Clocks: timeouts applied when deadlines pass.", no_args_is_help=True)
cli.add_typer(timekeeper, name="timekeeper")


@timekeeper.command("run")
def timekeeper_run() -> None:
    """Apply every timeout as its deadline passes, until interrupted (`tabletop serve` runs
    one already; on Postgres a second one waits on a lock and takes over if the first ends).
    A bot runner plays beside it the bots its timeouts leave awaited, unless
    TABLETOP_BOTS=elsewhere."""
    from projections.runner import view_for
    from service import timekeeper as keeper
    from service.logs import configure
    from service.plugins import load_plugins
    from service.settings import Settings

    settings = Settings.from_env()
    configure(settings.log_json)
    load_plugins()
    keeper.run_forever(settings, view_for, bots=os.environ.get("TABLETOP_BOTS") != "elsewhere")


@cli.command()
def selfplay(
    game: Annotated[str, typer.Option(help="game name, e.g. puerto-rico")],
    players: Annotated[int, typer.Option(help="seats")] = 4,
    games: Annotated[int, typer.Option(help="how many games")] = 1,
    seed: Annotated[str | None, typer.Option(help="base seed (random if absent)")] = None,
    bots: Annotated[str, typer.Option(help="bot per seat, comma-separated, cycled")] = "random",
    options: Annotated[str, typer.Option(help="game options as JSON")] = "{}",
) -> None:
    """Bots play whole games in-process; one JSON line per game on stdout."""
    from domain.bots import BotSpecError
    from service.selfplay import selfplay as run_selfplay

    chosen = hosted_games().get(game)
    if chosen is None:
        raise typer.BadParameter(f"unknown game {game!r}; known: {', '.join(hosted_games())}")
    base = seed or secrets.token_hex(8)
    opts = _checked(chosen, players, _json(options), bots.split(","))
    lines = run_selfplay(chosen, players, games, base, bots.split(","), opts)
    with _progress() as progress:
        task = progress.add_task(f"{game} x{players}", total=games)
        try:
            for line in lines:
                sys.stdout.write(json.dumps(line) + "\n")
                sys.stdout.flush()
                progress.advance(task)
        except BotSpecError as error:
            raise typer.BadParameter(error.message) from None


@cli.command()
def duel(
    game: Annotated[str, typer.Option(help="game name, e.g. puerto-rico")],
    bot: Annotated[
        str, typer.Option(help="the bot measured (random, greedy, mcts:playouts=N,rollout=R)")
    ] = "greedy",
    against: Annotated[str, typer.Option(help="the bot in every other seat")] = "random",
    players: Annotated[int, typer.Option(help="seats")] = 4,
    games: Annotated[int, typer.Option(help="how many games")] = 500,
    seed: Annotated[str | None, typer.Option(help="base seed (random if absent)")] = None,
    first: Annotated[int, typer.Option(help="index of the first game (to split a duel)")] = 0,
    lines: Annotated[bool, typer.Option(help="also print one JSON line per game")] = False,
) -> None:
    """How often one bot wins against the others (its seat rotates); a JSON summary with the
    win rate's 95% Wilson interval and the measured bot's time per decision."""
    from domain.bots import BotSpecError
    from service.selfplay import duel as run_duel
    from service.selfplay import wilson

    chosen = hosted_games().get(game)
    if chosen is None:
        raise typer.BadParameter(f"unknown game {game!r}; known: {', '.join(hosted_games())}")
    base = seed or secrets.token_hex(8)
    _checked(chosen, players, {}, [bot, against])  # a duel plays the default options
    try:
        run = run_duel(chosen, bot, games, players, base, against, first)
        won = alone = played = decisions = 0
        ms = 0.0
        with _progress() as progress:
            task = progress.add_task(f"{bot} vs {against} ({game})", total=games)
            for line in run:
                played += 1
                won += line["won"]
                alone += line["alone"]
                decisions += line["decisions"]
                ms += line["ms"]
                if lines:
                    sys.stdout.write(json.dumps(line) + "\n")
                    sys.stdout.flush()
                progress.advance(task)
    except BotSpecError as error:
        raise typer.BadParameter(error.message) from None
    low, high = wilson(won, played)
    summary = {
        "game": game,
        "bot": bot,
        "against": against,
        "players": players,
        "games": played,
        "seed": base,
        "first": first,
        "won": won,
        "won_alone": alone,
        "win_rate": round(won / played, 4) if played else None,
        "wilson_95": [round(low, 4), round(high, 4)],
        "ms_per_decision": round(ms / decisions, 1) if decisions else None,
    }
    sys.stdout.write(json.dumps(summary) + "\n")


@cli.command()
def bot(
    key: Annotated[str, typer.Option(help="the player's API key")],
    policy: Annotated[str, typer.Option(help="random, greedy, mcts[:p=N] or module:function")],
    url: Annotated[str, typer.Option(help="the server")] = "http://127.0.0.1:8000",
    player: Annotated[str | None, typer.Option(help="the player's id (to poll)")] = None,
    games: Annotated[int, typer.Option(help="stop after this many games (0: never)")] = 0,
    seed: Annotated[int | None, typer.Option(help="the policy's random seed")] = None,
) -> None:
    """Play every game the player is seated in, with a policy (api/bot_runner.py)."""
    from tabletop_client import Client

    from api.bot_runner import PolicyError, Runner, policy_named
    from service.logs import configure

    configure(False)
    with Client(url, key, player=player) as client:
        try:
            runner = Runner(client, policy_named(policy), seed)
            runner.run(until=lambda r: 0 < games <= r.finished)
        except PolicyError as error:
            refuse(str(error))


def _json(options: str) -> Any:
    try:
        return json.loads(options)
    except json.JSONDecodeError as error:
        refuse(f"--options is not JSON: {error}")


def _checked(game: Game[Any, Any], players: int, options: Any, bots: list[str]) -> Any:
    """The options, player count and bot names, checked as the API checks a new game, before
    anything is played."""
    from domain.bots import BotSpecError
    from domain.contract import RuleError
    from domain.options import parse_options
    from service.selfplay import bot_named

    try:
        parsed = parse_options(game, options, players)
    except RuleError as error:
        refuse(f"{error.code}: {error.message}")
    for name in bots:
        try:
            bot_named(game, name)
        except BotSpecError as error:
            refuse(f"{error.code}: {error.message}")
    return parsed


def _progress() -> Progress:
    """A progress bar on the terminal's stderr; stdout stays one JSON line per game."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(
        console=console, disable=not console.is_terminal, transient=True, redirect_stdout=False
    )


# The commands that check what the service recorded (api/cli_checks.py).
cli.command("verify")(checks.verify_cmd)
cli.command()(checks.monitor)
cli.add_typer(checks.keys_cli, name="keys")
cli.add_typer(checks.ratings_cli, name="ratings")
cli.add_typer(checks.sentinel_cli, name="sentinel")
cli.command()(checks.replay)


def main() -> None:
    if not sys.argv[1:] or {"--help", "-h"} & set(sys.argv[1:]):
        # Help in click's plain form: rich alone takes longer to import than all the rest.
        for app in (
            cli, projections, bots, timekeeper, checks.keys_cli, checks.ratings_cli,
            checks.sentinel_cli,
        ):  # fmt: skip
            app.rich_markup_mode = None
    cli()


if __name__ == "__main__":
    main()

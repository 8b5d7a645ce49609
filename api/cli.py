"""The `tabletop` command: serve, selfplay, verify, monitor, replay (README.md, "Commands")."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

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
    read_timeout: Annotated[
        float, typer.Option(help="seconds for a request to arrive in full (then 408, closed)")
    ] = 10.0,
    max_connections: Annotated[int, typer.Option(help="open connections per process")] = 2048,
    keep_alive: Annotated[int, typer.Option(help="seconds an idle connection stays open")] = 5,
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
    from service.store import open_store

    _games()
    settings = Settings.from_env()
    if workers > 1 and settings.database_url is None:
        raise typer.BadParameter("several workers need Postgres (set DATABASE_URL)")
    # Create the tables once, here: workers creating them at once collide in Postgres.
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
    os.environ["TABLETOP_READ_TIMEOUT"] = str(read_timeout)
    os.environ["TABLETOP_MAX_CONNECTIONS"] = str(max_connections)
    try:
        uvicorn.run(
            "api.main:build",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            http="api.server:BoundedHttp",
            timeout_keep_alive=keep_alive,
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

    _games()
    settings = Settings.from_env()
    configure(settings.log_json)
    run_forever(settings)


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Drop every read model and rebuild it from the event log (stop the runners first)."""
    from projections.runner import rebuild
    from service.settings import Settings

    _games()
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

    chosen = _games().get(game)
    if chosen is None:
        raise typer.BadParameter(f"unknown game {game!r}; known: {', '.join(_games())}")
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

    chosen = _games().get(game)
    if chosen is None:
        raise typer.BadParameter(f"unknown game {game!r}; known: {', '.join(_games())}")
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
    from api.bot_runner import PolicyError, Runner, policy_named
    from service.logs import configure
    from tabletop.client import Client

    configure(False)
    with Client(url, key, player=player) as client:
        try:
            runner = Runner(client, policy_named(policy), seed)
            runner.run(until=lambda r: 0 < games <= r.finished)
        except PolicyError as error:
            _refuse(str(error))


def _refuse(message: str) -> NoReturn:
    """A bad argument: one line on stderr and exit code 2 (a usage error), no traceback."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


def _json(options: str) -> Any:
    try:
        return json.loads(options)
    except json.JSONDecodeError as error:
        _refuse(f"--options is not JSON: {error}")


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
        _refuse(f"{error.code}: {error.message}")
    for name in bots:
        try:
            bot_named(game, name)
        except BotSpecError as error:
            _refuse(f"{error.code}: {error.message}")
    return parsed


def _progress() -> Progress:
    """A progress bar on the terminal's stderr; stdout stays one JSON line per game."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(
        console=console, disable=not console.is_terminal, transient=True, redirect_stdout=False
    )


def _read(file: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in file.read_text("utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise typer.BadParameter(f"{file}: not an NDJSON export ({error})") from None


@cli.command("verify")
def verify_cmd(
    file: Annotated[Path, typer.Argument(help="an exported game or tournament (NDJSON)")],
    games: Annotated[
        Path | None, typer.Option(help="a tournament's game exports, as <game id>.ndjson")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            help="the service's public keys: a file (GET /v1/keys saved, or a PEM key) or "
            "the URL of /v1/keys; then the signature, the inclusion proof and its head's "
            "signature must all check"
        ),
    ] = None,
    head: Annotated[
        Path | None,
        typer.Option(
            help="a signed tree head you saved (GET /v1/transparency/head, or the state "
            "file of `tabletop monitor`): the inclusion proof must be against it"
        ),
    ] = None,
) -> None:
    """Check an export offline: hash chain, seeds and re-execution (a tournament: its
    chain, and each table's result against its game's export in --games), and its seal:
    the footer's signature and the inclusion proof of its final hash in the transparency
    log. Exit 0 only when it verifies."""
    import msgspec

    from service.audit import TOURNAMENT_FORMATS, verify, verify_tournament
    from service.seal import check_export
    from service.signing import parse_keys

    _games()
    lines = _read(file)
    keys = None
    if key is not None:
        try:
            keys = parse_keys(_fetch(key))
        except ValueError as error:
            _refuse(f"cannot check signatures: no key read from --key {key}: {error}")
    saved = _saved_head(head) if head is not None else None
    if lines and lines[0].get("format") in TOURNAMENT_FORMATS:
        found = {p.stem: _read(p) for p in sorted(games.glob("*.ndjson"))} if games else {}
        result = verify_tournament(lines, found)
        seal = check_export(lines, "tournament", keys, saved)
    else:
        result = msgspec.to_builtins(verify(lines))
        seal = check_export(lines, "game", keys, saved)
    result["verified"] = bool(result["verified"] and seal.ok)
    result["seal"] = msgspec.to_builtins(seal)
    sys.stdout.write(json.dumps(result) + "\n")
    raise typer.Exit(0 if result["verified"] else 1)


@cli.command()
def monitor(
    url: Annotated[str, typer.Argument(help="the service, e.g. http://127.0.0.1:8000")],
    state: Annotated[Path, typer.Option(help="the last head checked (JSON; made if absent)")],
) -> None:
    """Check the service's transparency log: its latest signed head must extend the head
    saved in --state (RFC 9162 consistency proof), signed by a key it served before or
    now. Saves the new head when it does (exit 0); exit 1, the state left as it was, when
    history was rewritten. Run it periodically."""
    from service.seal import check_head, consistent
    from service.signing import parse_keys

    base = url.rstrip("/")
    saved: dict[str, Any] = _saved_state(state)
    try:
        keys = parse_keys(_fetch(f"{base}/v1/keys"))
    except ValueError as error:
        _refuse(f"{base}/v1/keys: {error}")
    head = _fetch_json(f"{base}/v1/transparency/head")
    old = saved.get("head")
    problems = [
        f"key {key_id} is no longer served as it was"
        for key_id, public in (saved.get("keys") or {}).items()
        if keys.get(key_id) != public
    ]
    if check_head(head, keys) != "valid":
        problems.append("the head's signature does not verify with the service's keys")
    if isinstance(old, dict):
        first, second = old.get("tree_size"), head.get("tree_size")
        if not isinstance(first, int) or not isinstance(second, int) or second < first:
            problems.append(f"the log shrank from {first} to {second} leaves")
        else:
            asked = f"{base}/v1/transparency/consistency?first={first}&second={second}"
            if not consistent(old, head, _fetch_json(asked).get("proof") or []):
                problems.append(
                    f"the head of {second} leaves does not extend the saved head of {first}: "
                    "the log's history was rewritten"
                )
    out = {
        "consistent": not problems,
        "tree_size": head.get("tree_size"),
        "root_hash": head.get("root_hash"),
        "previous_tree_size": old.get("tree_size") if isinstance(old, dict) else None,
        "problems": problems,
    }
    if not problems:
        kept = {"url": base, "head": head, "keys": {**(saved.get("keys") or {}), **keys}}
        state.write_text(json.dumps(kept, indent=1) + "\n", "utf-8")
    sys.stdout.write(json.dumps(out) + "\n")
    raise typer.Exit(0 if not problems else 1)


keys_cli = typer.Typer(help="The service's signing keys.", no_args_is_help=True)
cli.add_typer(keys_cli, name="keys")


@keys_cli.command("rotate")
def keys_rotate() -> None:
    """Make a new signing key: it signs from now on; the older ones stay published (GET
    /v1/keys) so that what they signed still verifies."""
    from service.settings import Settings
    from service.signing import Signer
    from service.store import open_store

    store = open_store(Settings.from_env())
    try:
        key = Signer(store).rotate()
    finally:
        store.close()
    sys.stdout.write(json.dumps({"key_id": key.key_id, "public_key": key.public_key}) + "\n")


def _fetch(where: str) -> str:
    """The text of a file, or of what an http(s) URL answers; refused (exit 2) when it
    cannot be read."""
    if where.startswith(("http://", "https://")):
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(where, timeout=30) as answer:
                text: str = answer.read().decode("utf-8")
                return text
        except (urllib.error.URLError, OSError, ValueError) as error:
            _refuse(f"cannot read {where}: {error}")
    try:
        return Path(where).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        _refuse(f"cannot read {where}: {error}")


def _fetch_json(where: str) -> dict[str, Any]:
    try:
        found = json.loads(_fetch(where))
    except json.JSONDecodeError as error:
        _refuse(f"{where} did not answer JSON: {error}")
    if not isinstance(found, dict):
        _refuse(f"{where} did not answer a JSON object")
    return found


def _saved_state(state: Path) -> dict[str, Any]:
    """`tabletop monitor`'s state: {} before its first run."""
    if not state.exists():
        return {}
    return _fetch_json(str(state))


def _saved_head(file: Path) -> dict[str, Any]:
    """A saved head: the head itself, or the state file of `tabletop monitor`."""
    found = _fetch_json(str(file))
    head = found.get("head", found)
    if not isinstance(head, dict) or "root_hash" not in head:
        _refuse(f"{file} holds no signed tree head")
    return head


@cli.command()
def replay(
    file: Annotated[Path, typer.Argument(help="an exported game (NDJSON)")],
    version: Annotated[int, typer.Option(help="show the state after this many events")],
) -> None:
    """Print the game's state after its first VERSION events."""
    import msgspec

    from service.audit import fold_lines

    _games()
    lines = _read(file)
    try:
        fold = fold_lines(lines, version)
    except (ValueError, KeyError, LookupError) as error:
        raise typer.BadParameter(str(error)) from None
    out = {
        "version": fold.version,
        "status": fold.status,
        "awaiting": fold.awaiting(),
        "state": msgspec.to_builtins(fold.state),
    }
    sys.stdout.write(json.dumps(out) + "\n")


def _games() -> dict[str, Game[Any, Any]]:
    """The registered games, plugins' included (TABLETOP_PLUGINS)."""
    from domain.registry import GAMES
    from service.plugins import load_plugins

    load_plugins()
    return GAMES


def main() -> None:
    if not sys.argv[1:] or {"--help", "-h"} & set(sys.argv[1:]):
        # Help in click's plain form: rich alone takes longer to import than all the rest.
        for app in (cli, projections, bots, timekeeper, keys_cli):
            app.rich_markup_mode = None
    cli()


if __name__ == "__main__":
    main()

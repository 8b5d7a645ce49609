"""The `tabletop` commands that check what the service recorded: `verify` (an export,
offline, or a game as the service serves it), `monitor` (the transparency log and the
games it holds, against the service), `sentinel run` (the same, inside, from the store),
`replay` (an export's state at a version) and `keys rotate`. api/cli.py names them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from api.cli_support import hosted_games, refuse


def _read(file: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in file.read_text("utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise typer.BadParameter(f"{file}: not an NDJSON export ({error})") from None


def verify_cmd(
    file: Annotated[
        Path | None, typer.Argument(help="an exported game or tournament (NDJSON)")
    ] = None,
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
    server: Annotated[
        str | None,
        typer.Option(
            help="the service (e.g. http://127.0.0.1:8000): the game as it serves it now "
            "must be the export FILE (the first version that differs, or the events "
            "missing); without FILE, the game --game as it serves it is checked"
        ),
    ] = None,
    game: Annotated[
        str | None, typer.Option(help="without FILE: the id of the game to check on --server")
    ] = None,
) -> None:
    """Check an export offline: hash chain, seeds and re-execution (a tournament: its
    chain, and each table's result against its game's export in --games), its record
    against its leaf in the transparency log (`tampered`), and its seal: the footer's
    signature and the inclusion proof of its final hash. With --server, the game as the
    service serves it now too. Exit 0 only when it verifies."""
    import msgspec

    from service.audit import TOURNAMENT_FORMATS, verify, verify_tournament
    from service.seal import check_export
    from service.signing import parse_keys

    hosted_games()
    leaf = None  # the leaf the export's footer carries, unless the log is asked (--game)
    if file is None:
        if game is None or server is None:
            refuse("give an export FILE, or --game and --server")
        lines, leaf = _served_game(server.rstrip("/"), game)
    else:
        lines = _read(file)
    keys = None
    if key is not None:
        try:
            keys = parse_keys(_fetch(key))
        except ValueError as error:
            refuse(f"cannot check signatures: no key read from --key {key}: {error}")
    saved = _saved_head(head) if head is not None else None
    if lines and lines[0].get("format") in TOURNAMENT_FORMATS:
        found = {p.stem: _read(p) for p in sorted(games.glob("*.ndjson"))} if games else {}
        result = verify_tournament(lines, found)
        seal = check_export(lines, "tournament", keys, saved)
    else:
        result = msgspec.to_builtins(verify(lines, leaf=leaf))
        seal = check_export(lines, "game", keys, saved)
        if file is not None and server is not None:
            _against_served(result, server.rstrip("/"), lines)
    result["verified"] = bool(result["verified"] and seal.ok)
    result["seal"] = msgspec.to_builtins(seal)
    sys.stdout.write(json.dumps(result) + "\n")
    raise typer.Exit(0 if result["verified"] else 1)


def _served_game(base: str, game: str) -> tuple[list[dict[str, Any]], Any]:
    """The game's export as the service serves it, and its leaf in the service's log (the
    `Leaf` the audit takes; None when the log holds no end of it). When the service
    exports none though its log holds the game's end, what the log and the game say is
    printed (exit 1, tampered)."""
    import msgspec

    from service.audit import Leaf
    from service.served_checks import against_served_leaf, logged_leaf, served_export

    def get(path: str) -> tuple[int, str]:
        status, body = _get(base + path)
        if status >= 500:  # a server refusing to sign over its tree, or down: not a pass
            out = {"verified": False, "detail": f"{base}{path} answered {status}: {body}"}
            sys.stdout.write(json.dumps(out) + "\n")
            raise typer.Exit(1)
        return status, body

    lines, _ = served_export(get, game)
    leaf = logged_leaf(get, game)
    if lines is not None:
        logged = None if leaf is None else msgspec.convert(leaf, Leaf, strict=False)
        return lines, logged
    if leaf is None:
        refuse(f"{base} exports no game {game}, and its log holds no end of it")
    tamper = against_served_leaf(get, game, leaf)
    out = {"verified": False, "tampered": True, "tamper": msgspec.to_builtins(tamper)}
    out["detail"] = tamper.detail if tamper is not None else None
    sys.stdout.write(json.dumps(out) + "\n")
    raise typer.Exit(1)


def _against_served(result: dict[str, Any], base: str, lines: list[dict[str, Any]]) -> None:
    """An export saved before against the game as the service serves it now."""
    import msgspec

    from service.served_checks import against_served_export

    tamper = against_served_export(lambda path: _get(base + path), lines)
    if tamper is not None:
        result["verified"], result["tampered"] = False, True
        result["tamper"] = msgspec.to_builtins(tamper)  # (knows the version, the leaf not)
        result["detail"] = tamper.detail


def monitor(
    url: Annotated[str, typer.Argument(help="the service, e.g. http://127.0.0.1:8000")],
    state: Annotated[Path, typer.Option(help="the last head checked (JSON; made if absent)")],
    games: Annotated[
        int,
        typer.Option(
            help="games of the log checked per run against their leaves (the next ones "
            "each run, from the first again after the last)"
        ),
    ] = 100,
) -> None:
    """Check the service's transparency log: its latest signed head must extend the head
    saved in --state (RFC 9162 consistency proof), signed by a key it served before or
    now; and the games it holds must be served as their leaves say (their ending's hash;
    a logged game that reads as running lost its end). Saves the new head when all is well
    (exit 0); exit 1, the state left as it was, when history was rewritten or a game was
    tampered with. Run it periodically."""
    from service.seal import check_head, consistent
    from service.signing import parse_keys

    base = url.rstrip("/")
    saved: dict[str, Any] = _saved_state(state)
    try:
        keys = parse_keys(_fetch(f"{base}/v1/keys"))
    except ValueError as error:
        refuse(f"{base}/v1/keys: {error}")
    status, answer = _get(f"{base}/v1/transparency/head")
    if status != 200:  # a server that will not sign over its tree says why
        out = {"consistent": False, "problems": [f"no head: {status} {answer}"]}
        sys.stdout.write(json.dumps(out) + "\n")
        raise typer.Exit(1)
    head = json.loads(answer)
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
    consistent_log = not problems
    tampered, checked, next_game = _games_against_leaves(base, saved.get("next_game", 0), games)
    problems += [f"game {t['game']} tampered with: {t['detail']}" for t in tampered]
    out = {
        "consistent": consistent_log,
        "tree_size": head.get("tree_size"),
        "root_hash": head.get("root_hash"),
        "previous_tree_size": old.get("tree_size") if isinstance(old, dict) else None,
        "games_checked": checked,
        "tampered": tampered,
        "problems": problems,
    }
    if not problems:
        kept = {"url": base, "head": head, "keys": {**(saved.get("keys") or {}), **keys}}
        kept["next_game"] = next_game
        state.write_text(json.dumps(kept, indent=1) + "\n", "utf-8")
    sys.stdout.write(json.dumps(out) + "\n")
    raise typer.Exit(0 if not problems else 1)


def _games_against_leaves(
    base: str, start: int, limit: int
) -> tuple[list[dict[str, Any]], int, int]:
    """Up to `limit` game leaves from leaf `start` on, each against the game as served:
    (what differs, games checked, the leaf to start from next time)."""
    import msgspec

    from service.served_checks import against_served_leaf

    def get(path: str) -> tuple[int, str]:
        return _get(base + path)

    page = _fetch_json(f"{base}/v1/transparency/leaves?start={start}&limit={max(limit, 1)}")
    leaves = [x for x in page.get("leaves") or [] if isinstance(x, dict)][:limit]
    tampered = []
    for leaf in leaves:
        if leaf.get("kind") == "game":
            found = against_served_leaf(get, str(leaf.get("id")), leaf)
            if found is not None:
                tampered.append(msgspec.to_builtins(found))
    following = page.get("next_start")
    next_game = start + len(leaves) if isinstance(following, int) else 0  # then round again
    return tampered, sum(x.get("kind") == "game" for x in leaves), next_game


keys_cli = typer.Typer(help="The service's signing keys.", no_args_is_help=True)


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
            refuse(f"cannot read {where}: {error}")
    try:
        return Path(where).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        refuse(f"cannot read {where}: {error}")


def _get(url: str) -> tuple[int, str]:
    """The status and body a GET of an http(s) URL answers (an error status too); refused
    (exit 2) when nothing answers."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError, ValueError) as error:
        refuse(f"cannot read {url}: {error}")


def _fetch_json(where: str) -> dict[str, Any]:
    try:
        found = json.loads(_fetch(where))
    except json.JSONDecodeError as error:
        refuse(f"{where} did not answer JSON: {error}")
    if not isinstance(found, dict):
        refuse(f"{where} did not answer a JSON object")
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
        refuse(f"{file} holds no signed tree head")
    return head


def replay(
    file: Annotated[Path, typer.Argument(help="an exported game (NDJSON)")],
    version: Annotated[int, typer.Option(help="show the state after this many events")],
) -> None:
    """Print the game's state after its first VERSION events."""
    import msgspec

    from service.audit import fold_lines

    hosted_games()
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


ratings_cli = typer.Typer(help="Ratings, from public data.", no_args_is_help=True)


@ratings_cli.command("recompute")
def ratings_recompute(
    log: Annotated[
        Path,
        typer.Option(
            help="the transparency log as JSON: {head, keys, leaves}, the answers of GET "
            "/v1/transparency/head, /v1/keys and /v1/transparency/leaves (docs/ratings.md)"
        ),
    ],
    games: Annotated[
        Path, typer.Option(help="the games' exports, as <game id>.ndjson (each game leaf's)")
    ],
    key: Annotated[
        str | None,
        typer.Option(
            help="the service's public keys to check the head with, instead of the log file's "
            "`keys`: a file (GET /v1/keys saved, or a PEM key) or the URL of /v1/keys"
        ),
    ] = None,
    audit: Annotated[
        bool, typer.Option(help="also re-execute every rated game (as `tabletop verify`)")
    ] = False,
) -> None:
    """Recompute every rating from the log and the exports alone: the head's signature and
    the leaves against its root, each game's export against its leaf, then the rated games
    in leaf order. Prints {tree_size, root_hash, ratings} (exit 0), or what does not check
    (exit 1)."""
    from projections.ratings_recompute import Refused, check_log, exports_in, read_log, recompute
    from service.signing import parse_keys

    hosted_games()
    if not games.is_dir():
        refuse(f"--games {games} is not a directory")
    try:
        head, served, leaves = read_log(_fetch(str(log)))
    except Refused as refused:
        refuse(refused.problems[0])
    if key is None and served is None:
        refuse("no keys to check the head with: give --key, or `keys` in the log file")
    try:
        keys = parse_keys(_fetch(key) if key is not None else json.dumps(served))
    except ValueError as error:
        refuse(f"no key read from {key or 'the log file'}: {error}")
    try:
        problems = check_log(head, keys, leaves)
        if problems:
            raise Refused(problems)
        ratings = recompute(leaves, exports_in(games), audit)
    except Refused as refused:
        sys.stdout.write(json.dumps({"verified": False, "problems": refused.problems}) + "\n")
        raise typer.Exit(1) from None
    out = {"tree_size": head["tree_size"], "root_hash": head["root_hash"], "ratings": ratings}
    sys.stdout.write(json.dumps(out) + "\n")


sentinel_cli = typer.Typer(
    help="The sentinel: ended games re-checked against the transparency log.",
    no_args_is_help=True,
)


@sentinel_cli.command("run")
def sentinel_run(
    once: Annotated[
        bool,
        typer.Option(
            help="one pass over every logged game, at the events budget alone; prints "
            "{checked, tampered} and exits 1 if a game was tampered with"
        ),
    ] = False,
) -> None:
    """Re-check every ended game's record against its leaf in the transparency log, pass
    after pass, until interrupted (`tabletop serve` runs one already unless
    TABLETOP_SENTINEL=elsewhere; on Postgres one process acts, the others wait). Its share
    of the store: TABLETOP_SENTINEL_EVENTS_PER_S events read a second at most, a pass per
    TABLETOP_SENTINEL_PERIOD_S seconds at most. What it finds shows in /health, /metrics
    and the log."""
    import dataclasses

    import msgspec

    from service.logs import configure
    from service.sentinel import Pace, Sentinel, run_forever
    from service.settings import Settings
    from service.store import open_store

    hosted_games()
    settings = Settings.from_env()
    configure(settings.log_json)
    try:
        pace = Pace.from_env()
    except ValueError as error:
        refuse(str(error))
    if not once:
        run_forever(settings)
        return
    from service.transparency import log_of

    store = open_store(settings)
    try:
        sentinel = Sentinel(store, dataclasses.replace(pace, period_s=0))
        found = sentinel.sweep()
        refusal = log_of(store).refusal  # the log itself no longer what it signed
    finally:
        store.close()
    out = {"checked": sentinel.checked, "tampered": msgspec.to_builtins(found)}
    if refusal is not None:
        out["log_inconsistent"] = refusal
    sys.stdout.write(json.dumps(out) + "\n")
    raise typer.Exit(1 if found or refusal is not None else 0)

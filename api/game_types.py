"""Each game's types as JSON Schema: `GET /v1/game-types/{game}`, and the per-game components
of the OpenAPI document (so that a generated client types a Puerto Rico move).

The schemas come from msgspec (the same types that decode and validate every move), with
each game's component names prefixed by the game (`PuertoRicoChooseRole`): two games may
both have a `Pass`. A game's commands and events are tagged unions on `type`; the tag is
declared a `const`, which generated clients fill in by themselves.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import msgspec
from litestar import get
from litestar.params import FromPath

from api.errors import documented
from api.field_notes import described_components
from domain.contract import Game
from domain.registry import GAMES
from service.errors import NotFound

PARTS = ("options", "command", "view", "event")
OPENAPI_REF = "#/components/schemas/"
DEFS_REF = "#/$defs/"


def prefix(game: Game[Any, Any]) -> str:
    """ "puerto-rico" -> "PuertoRico": the game's component names start with it."""
    return "".join(w.capitalize() for w in re.split(r"[^A-Za-z0-9]+", game.name) if w)


def view_type(game: Game[Any, Any]) -> type:
    """The game's view Struct (the contract names no type for it: asked of an empty table)."""
    return type(game.view(game.initial(game.options_type(), game.min_players), None))


@cache
def game_components(name: str, ref: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """({part: schema}, {component: schema}) of one game, its references under `ref`: its
    components are shared, not copied (do not change them)."""
    game = GAMES[name]
    types = [game.options_type, game.command_type, view_type(game), game.event_type]
    roots, defs = described_components(types, "\0{name}")
    p = prefix(game)
    names = {n: _name(p, n) for n in defs}
    # Each part gets a component of its own name (`PuertoRicoCommand`), the unions included.
    parts: dict[str, Any] = {}
    for part, root in zip(PARTS, roots, strict=True):
        own = p + part.capitalize()
        if "$ref" in root:
            own = names[root["$ref"][1:]]
        else:
            defs[own] = root | {"title": own}
            names[own] = own
        parts[part] = {"$ref": ref + own}
    components = {names[n]: _rewrite(s, names, ref) | {"title": names[n]} for n, s in defs.items()}
    return parts, dict(sorted(components.items()))


def _name(prefix: str, name: str) -> str:
    """A component's name: the game's prefix, then the type's name ("CastleDone"), which
    msgspec qualifies when two of the game's types share it ("domain.caylus.events.CastleDone"
    -> "CastleDoneEvent")."""
    if "." in name:
        *_, module, name = name.split(".")
        name += module.removesuffix("s").capitalize()
    return name if name.startswith(prefix) else prefix + name


def _rewrite(schema: Any, names: dict[str, str], ref: str) -> Any:
    """References renamed and placed under `ref`; a union member's tag made a `const`."""
    if isinstance(schema, list):
        return [_rewrite(s, names, ref) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _rewrite(v, names, ref) for k, v in schema.items()}
    if isinstance(out.get("$ref"), str) and out["$ref"].startswith("\0"):
        out["$ref"] = ref + names[out["$ref"][1:]]
    if "mapping" in out:  # a discriminator's: tag -> component
        out["mapping"] = {t: ref + names[r[1:]] for t, r in out["mapping"].items()}
    return tag_const(out)


def tag_const(schema: dict[str, Any]) -> dict[str, Any]:
    """A tagged union member's schema with its tag (`type`, msgspec's one-value enum) as a
    `const` with that default, which generated clients fill in by themselves."""
    tag = schema.get("properties", {}).get("type")
    if isinstance(tag, dict) and len(tag.get("enum", ())) == 1:
        value = tag["enum"][0]
        const = {"type": "string", "const": value, "default": value}
        return schema | {"properties": schema["properties"] | {"type": const}}
    return schema


class GameTypeSchemas(msgspec.Struct, kw_only=True):
    """A game's types as one JSON Schema document: `options`, `command`, `view` and `event`
    refer into `$defs`."""

    name: str  # the game's type, as in GET /v1/game-types and a game's `game`
    title: str  # the game's name for people ("Puerto Rico")
    min_players: int  # the fewest seats a table of it may have
    max_players: int  # the most seats a table of it may have
    options: dict[str, str]  # `$ref` to its options' schema (the `options` of POST /v1/games)
    command: dict[str, str]  # `$ref` to its commands' union (the `move` of POST .../moves)
    view: dict[str, str]  # `$ref` to its view's schema (a game's `view`)
    event: dict[str, str]  # `$ref` to its events' union (an event's `data`)
    # Every schema those refer to, by component name (as in the OpenAPI document)
    defs: dict[str, dict[str, Any]] = msgspec.field(name="$defs")


def game_schema(name: str) -> GameTypeSchemas:
    """The body of `GET /v1/game-types/{game}`."""
    game = GAMES[name]
    parts, defs = game_components(name, DEFS_REF)
    return GameTypeSchemas(
        name=game.name,
        title=game.title,
        min_players=game.min_players,
        max_players=game.max_players,
        defs=defs,
        **parts,
    )


@get(
    "/v1/game-types/{game:str}",
    operation_id="getGameType",
    tags=["games"],
    sync_to_thread=False,
    responses=documented(400, 404),
)
def get_game_type(game: FromPath[str]) -> GameTypeSchemas:
    """A game's options, commands (the bodies of `move` in POST .../moves), view and events
    as JSON Schema: `options`, `command`, `view` and `event` refer into `$defs`, whose names
    are those of the OpenAPI document's components (`PuertoRicoCommand`). 404
    `unknown_game` for a name `GET /v1/game-types` does not list.

    Example: GET /v1/game-types/puerto-rico"""
    if game not in GAMES:
        raise NotFound("unknown_game", f"no game named {game!r}; see /v1/game-types")
    return game_schema(game)

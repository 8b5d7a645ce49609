"""The committed OpenAPI document as the client tests read it: which games it types, and the
classes (components) a game's moves, events' data and view decode into."""

from __future__ import annotations

import json
from pathlib import Path

from api.game_types import prefix
from domain.registry import GAMES

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
SCHEMAS = json.loads(DOCUMENT.read_text("utf-8"))["components"]["schemas"]
# The games the document types (the tests' own games are not in it), and their prefixes.
DOCUMENTED = sorted(g for g in GAMES if f"{prefix(GAMES[g])}GameOut" in SCHEMAS)
PREFIXES = {name: prefix(GAMES[name]) for name in DOCUMENTED}


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def _union(component: str, *path: str) -> dict[str, str]:
    """tag -> component of a discriminated union in the document, found by its path."""
    schema = SCHEMAS[component]
    for step in path:
        schema = schema[step]
    if "$ref" in schema:  # a union of its own (the game's commands)
        schema = SCHEMAS[_name(schema["$ref"])]
    return {tag: _name(ref) for tag, ref in schema["discriminator"]["mapping"].items()}


def command_classes(game: str) -> dict[str, str]:
    """A game's commands: tag -> component."""
    return _union(f"{PREFIXES[game]}LegalMoves", "properties", "moves", "items")


def event_classes(game: str) -> dict[str, str]:
    """The data of a game's events, its own and the lifecycle's: tag -> component."""
    return _union(f"{PREFIXES[game]}EventOut", "properties", "data")


def view_class(game: str) -> str:
    """The component of a game's view."""
    view = SCHEMAS[f"{PREFIXES[game]}GameOut"]["properties"]["view"]["anyOf"][0]
    return _name(view["$ref"])


def lifecycle_classes() -> set[str]:
    """The service's own events' data: the same components in every game."""
    game = DOCUMENTED[0]
    return {c for c in event_classes(game).values() if not c.startswith(PREFIXES[game])}

"""The OpenAPI document with every game typed, so that a generated client decodes a Puerto Rico
game's moves, view and events into Puerto Rico's types and nothing else.

Litestar documents what the API decodes per game (a move, a view, an event's data) as plain
objects. Here each answer that carries a game's types becomes a union over the games,
discriminated by its `game` field with a mapping (`GameOut` is `PuertoRicoGameOut | CaylusGameOut
| ...`, each member's `game` a `const`); inside a member, the game's commands and its events'
data are unions discriminated by `type`. Command types repeat across games (`pass`), so the
game has to come first: generators (openapi-python-client, openapi-typescript,
datamodel-code-generator) pick a member by the discriminator's mapping, never by trying each.
A move sent (`MoveRequest.move`) is any game's command: encoding needs no choice.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, YamlRenderPlugin
from litestar.router import Router

from api.field_notes import described_components
from api.game_types import OPENAPI_REF, game_components, prefix, tag_const
from api.lifecycle_events import LifecycleEvent
from api.schema_assets import Redoc, SwaggerUI
from domain.contract import Result
from domain.registry import GAMES

# The answers typed per game.
GAME_TYPED = ("GameOut", "LegalMoves", "EventOut", "EventPage", "MoveResult", "ReplayOut")
LINES = {  # the bodies that are not one JSON value: one per line (NDJSON) or per SSE message
    "type": "string",
    "format": "binary",
}
STREAMED = {
    "application/x-ndjson": "One JSON value per line (NDJSON); see docs/api.md.",
    "text/event-stream": "Server-sent events, each `data:` one JSON value; see docs/api.md.",
}


def typed(document: dict[str, Any]) -> dict[str, Any]:
    """The document with every game's components and its answers typed per game."""
    document = copy.deepcopy(document)
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    bases = _bases(schemas)
    lifecycle = _lifecycle(schemas)
    commands: list[Any] = []
    members: dict[str, dict[str, str]] = {}
    for name in sorted(GAMES):
        parts, components = game_components(name, OPENAPI_REF)
        schemas.update(components)
        commands.append(parts["command"])
        own_events = components[parts["event"]["$ref"].removeprefix(OPENAPI_REF)]
        for base, variant in _game_answers(name, parts, own_events, bases, lifecycle).items():
            schemas[variant_name(name, base)] = variant
            members.setdefault(base, {})[name] = OPENAPI_REF + variant_name(name, base)
    for base, by_game in members.items():
        if base == "EventOut":
            schemas.pop(base, None)  # every event is in a game's page or answer
            continue
        schemas[base] = {
            "title": base,
            "description": bases[base].get("description", "")
            + " One type per game, told apart by `game`.",
            "oneOf": [{"$ref": ref} for ref in by_game.values()],
            "discriminator": {"propertyName": "game", "mapping": by_game},
        }
    if "MoveRequest" in schemas:
        schemas["MoveRequest"]["properties"]["move"] = {
            "anyOf": commands,
            "description": "A command of the game played (GET /v1/game-types/{game}): exactly "
            "one of its legal moves.",
        }
    _bodies(document)
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    given: dict[str, Any] = _items_given(document)
    return given


def variant_name(game: str, base: str) -> str:
    """`PuertoRicoGameOut`: one game's member of the union `GameOut`."""
    return prefix(GAMES[game]) + base


def _ref(name: str) -> dict[str, str]:
    return {"$ref": OPENAPI_REF + name}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _bases(schemas: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The answers' schemas before typing, as litestar wrote them; the `Result` of a game."""
    _, defs = described_components([Result], OPENAPI_REF + "{name}")
    for name, schema in defs.items():
        schemas.setdefault(name, schema)
    return {base: schemas[base] for base in GAME_TYPED}


def _lifecycle(schemas: dict[str, Any]) -> dict[str, Any]:
    """The service's own events' data (api/lifecycle_events.py): component per type, and
    their union's members and mapping."""
    (root,), defs = described_components([LifecycleEvent], OPENAPI_REF + "{name}")
    for name, schema in defs.items():
        schemas[name] = tag_const(schema)
    return root


def _game_answers(
    name: str,
    parts: dict[str, Any],
    own_events: dict[str, Any],
    bases: dict[str, Any],
    lifecycle: dict[str, Any],
) -> dict[str, dict[str, Any]]:
    """One game's member of each typed answer."""
    game = {"type": "string", "const": name, "description": "The game's type."}
    view = _nullable(parts["view"]) | {
        "description": "What the caller may see: its seat's view while the game runs, the "
        "public view to a spectator, everything once the game is over; null before it starts."
    }
    data = {
        "oneOf": [*_members(own_events), *_members(lifecycle)],
        "discriminator": {
            "propertyName": "type",
            "mapping": own_events["discriminator"]["mapping"]
            | lifecycle["discriminator"]["mapping"],
        },
        "description": "The event's data: one of the game's events, or of its lifecycle's "
        "(the service's own: `game_created`, `seat_taken`, ...); `type` tells which.",
    }
    events = {"type": "array", "items": _ref(variant_name(name, "EventOut"))}
    legal = _ref(variant_name(name, "LegalMoves"))

    def variant(base: str, **fields: Any) -> dict[str, Any]:
        schema = copy.deepcopy(bases[base])
        props = schema["properties"]
        for field, typed_field in fields.items():
            note = props.get(field, {}).get("description")
            props[field] = typed_field | (
                {"description": note} if note and "description" not in typed_field else {}
            )
        if "game" in props:
            props["game"] = game
        if base != "EventOut":  # the others are encoded whole: every field is always there
            schema["required"] = sorted(props)
        titled: dict[str, Any] = schema | {"title": variant_name(name, base)}
        return titled

    return {
        "GameOut": variant(
            "GameOut",
            view=view,
            options=parts["options"],
            result=_nullable(_ref("Result")),
        ),
        "LegalMoves": variant("LegalMoves", moves={"type": "array", "items": parts["command"]}),
        "EventOut": variant("EventOut", data=data),
        "EventPage": variant("EventPage", events=events),
        "MoveResult": variant("MoveResult", events=events, legal=_nullable(legal)),
        "ReplayOut": variant("ReplayOut", view=view),
    }


def _members(union: dict[str, Any]) -> list[Any]:
    members: list[Any] = union.get("oneOf") or union["anyOf"]
    return members


def _bodies(document: dict[str, Any]) -> None:
    """Each operation's answers: the typed unions, and streamed bodies as what they are."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for answer in operation.get("responses", {}).values():
                content = answer.get("content", {})
                for media, body in content.items():
                    if media in STREAMED:
                        body["schema"] = LINES | {"description": STREAMED[media]}
                if operation.get("operationId") == "listEvents" and "application/json" in content:
                    content.setdefault(
                        "application/x-ndjson",
                        {"schema": LINES | {"description": STREAMED["application/x-ndjson"]}},
                    )


def _items_given(schema: Any) -> Any:
    """Every array says what it holds (`items: {}` for anything): generators refuse an array
    schema without `items` (msgspec writes none for `list[Any]`)."""
    if isinstance(schema, list):
        return [_items_given(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _items_given(v) for k, v in schema.items()}
    kinds = out.get("type")
    is_array = kinds == "array" or (isinstance(kinds, list) and "array" in kinds)
    if is_array and "items" not in out and "prefixItems" not in out:
        out["items"] = {}
    return out


class TypedDocument:
    """`typed(document)`, made once (on the first request for it) for every renderer."""

    def __init__(self) -> None:
        self._document: dict[str, Any] | None = None

    def of(self, openapi_schema: dict[str, Any]) -> dict[str, Any]:
        if self._document is None:
            self._document = typed(msgspec.to_builtins(openapi_schema))
        return self._document


class Typed(OpenAPIRenderPlugin):
    """A render plugin that serves the typed document through another one, so that
    `/schema` serves what `openapi/openapi.json` holds."""

    def __init__(self, inner: OpenAPIRenderPlugin, document: TypedDocument) -> None:
        super().__init__(path=list(inner.paths), media_type=inner.media_type)
        self.inner = inner
        self.document = document

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return self.inner.render(request, self.document.of(openapi_schema))

    def receive_router(self, router: Router) -> None:
        self.inner.receive_router(router)


def renderers() -> list[OpenAPIRenderPlugin]:
    """`/schema` and `/schema/swagger` (Swagger UI, interactive), `/schema/redoc`,
    `/schema/openapi.json` and `/schema/openapi.yaml`, all of the typed document. The pages
    load nothing from another host: their files are served at `/schema/assets/...`
    (api/schema_assets.py)."""
    document = TypedDocument()
    inner = [SwaggerUI(), Redoc(), JsonRenderPlugin(), YamlRenderPlugin()]
    return [Typed(plugin, document) for plugin in inner]

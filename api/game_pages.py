"""docs/games/<game>.md, generated from the game's package: its rules summary (the package's
docstring), its rulings (rulings.py), its data tables (data.py, with their comments), and
every option, command, view field and event with its JSON Schema type, its docstring and a
JSON example taken from games its bots play (seeded, so the page is the same at every run).
`python -m api.openapi` writes the pages and `--check` fails when one differs from the code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, cast

import msgspec

from api.game_types import game_schema, view_type
from domain.contract import Game, random_bot
from domain.simulate import play

PAGES = Path(__file__).resolve().parent.parent / "docs" / "games"
# Options whose games show commands and events the printed defaults never reach.
SHOWCASE: dict[str, list[dict[str, Any]]] = {
    "caylus": [{"jeweller": True, "favours": "simplified"}],
    "plus-ultra": [{"common_actions_per_turn": 2}],
    "puerto-rico": [{"expansion": "new-buildings", "auto_forced": False}],
    "santa-maria": [{"colony_boards": "draft"}],
}
SEEDS = 4  # games per seat count and options, at most, while an example is missing
EXAMPLE_WIDTH = 70  # characters of a view field's example in its table


def page(game: Game[Any, Any]) -> str:
    package = inspect.getmodule(type(game))
    assert package is not None
    root = package.__name__
    schema = msgspec.to_builtins(game_schema(game.name))
    defs = schema["$defs"]
    commands, events, view = _examples(game)
    out = [
        f"# {game.title}",
        "",
        f"<!-- Generated from `{root.replace('.', '/')}/` by `make openapi`: edit the package,"
        " not this page. -->",
        "",
        f"`{game.name}`: {game.min_players} to {game.max_players} players; bots "
        + ", ".join(f"`{b}`" for b in ["random", *sorted(game.bots), "mcts"])
        + f". Its JSON Schemas: `GET /v1/game-types/{game.name}`; in the OpenAPI document, the"
        f" components named `{_prefix(schema)}…`.",
        "",
        "## Rules",
        "",
        inspect.cleandoc(package.__doc__ or ""),
        "",
        *_rulings(root),
        "## Options",
        "",
        *_options(game, defs[_ref(schema["options"])]),
        "## Data tables",
        "",
        *_data(importlib.import_module(f"{root}.data")),
        "## Commands",
        "",
        "The `move` of `POST /v1/games/{id}/moves`; `GET /v1/games/{id}/legal-moves` lists "
        "exactly those the seat may send now.",
        "",
        *_union(game.command_type, schema["command"], defs, commands, None),
        "## View",
        "",
        *_view(game, defs, view),
        "## Events",
        "",
        "As `GET /v1/games/{id}/events` and the streams give them to a spectator once the game"
        " is over (while it runs, each seat sees them redacted, and `text` is the line shown"
        " here, as that seat may read it).",
        "",
        *_union(game.event_type, schema["event"], defs, events, game),
    ]
    return "\n".join(out).rstrip() + "\n"


def _prefix(schema: dict[str, Any]) -> str:
    return _ref(schema["command"]).removesuffix("Command")


def _ref(schema: dict[str, Any]) -> str:
    return str(schema["$ref"]).rsplit("/", 1)[1]


# ---- examples from played games -------------------------------------------------------------


def _examples(game: Game[Any, Any]) -> tuple[dict[type, Any], dict[type, Any], Any]:
    """The first command and event of each type in seeded games of random bots, and a seat's
    view a third into the first game."""
    wanted_commands = set(typing.get_args(game.command_type))
    wanted_events = set(typing.get_args(game.event_type))
    commands: dict[type, Any] = {}
    events: dict[type, Any] = {}
    view: Any = None
    for options in [{}, *SHOWCASE.get(game.name, [])]:
        for seats in range(game.min_players, game.max_players + 1):
            for seed in range(SEEDS):
                if wanted_commands <= set(commands) and wanted_events <= set(events):
                    return commands, events, view
                decided: list[Any] = []

                def record(state: Any, seat: int, command: Any, d: list[Any] = decided) -> None:
                    d.append(command)

                played = play(
                    game,
                    msgspec.convert(options, game.options_type),
                    [random_bot] * seats,
                    f"docs/{game.name}/{seats}/{seed}".encode(),
                    on_decision=record,
                )
                for command in decided:
                    commands.setdefault(type(command), command)
                for event in played.events:
                    events.setdefault(type(event), event)
                if view is None:
                    view = _view_at(game, msgspec.convert(options, game.options_type), seats)
    return commands, events, view


def _view_at(game: Game[Any, Any], options: Any, seats: int) -> Any:
    """Seat 0's view a third into a seeded game."""
    played = play(game, options, [random_bot] * seats, f"docs/{game.name}/view".encode())
    state = game.initial(options, seats)
    for event in played.events[: len(played.events) // 3]:
        state = game.evolve(state, event)
    return msgspec.to_builtins(game.view(state, 0))


# ---- sections ------------------------------------------------------------------------------


def _options(game: Game[Any, Any], schema: dict[str, Any]) -> list[str]:
    rows = [
        [f"`{name}`", _type(prop), f"`{_json(prop.get('default'))}`", _what(prop)]
        for name, prop in schema.get("properties", {}).items()
    ]
    intro = [schema["description"], ""] if schema.get("description") else []
    return [*intro, *_table(["option", "type", "default", "what"], rows), ""]


def _union(
    union: Any,
    ref: dict[str, Any],
    defs: dict[str, Any],
    examples: dict[type, Any],
    game: Game[Any, Any] | None,
) -> Iterator[str]:
    """A section per member of a tagged union, in the union's order."""
    mapping = defs[_ref(ref)]["discriminator"]["mapping"]
    for cls in typing.get_args(union):
        tag = cls.__struct_config__.tag
        schema = defs[_ref({"$ref": mapping[tag]})]
        yield f"### `{tag}`"
        yield ""
        if doc := _doc(cls):
            yield doc
            yield ""
        rows = [
            [
                f"`{f}`",
                _type(p),
                "yes" if f in schema.get("required", []) else "no",
                _what(p),
            ]
            for f, p in schema["properties"].items()
            if f != "type"
        ]
        if rows:
            yield from _table(["field", "type", "required", "what"], rows)
            yield ""
        example = examples.get(cls)
        if example is None:
            yield "No seeded game made one; its shape:"
            yield ""
            body = _shape(schema)
        else:
            body = msgspec.to_builtins(example)
        yield "```json"
        yield json.dumps(body, ensure_ascii=False)
        yield "```"
        yield ""
        if game is not None and example is not None:
            yield f"Read by a spectator: “{game.describe(example, None)}”"
            yield ""


def _view(game: Game[Any, Any], defs: dict[str, Any], example: Any) -> list[str]:
    top = view_type(game)
    name = next(n for n, s in defs.items() if s.get("title") == n and n.endswith(top.__name__))
    lines = [_doc(top) or "What a seat (or a spectator) sees.", ""]
    lines += [
        "`GET /v1/games/{id}` gives it as `view`: a seat's own while the game runs, the "
        "public one to a spectator, everything once the game is over. The examples are seat "
        "0's view a third into a seeded game.",
        "",
    ]
    rows = [
        [f"`{f}`", _type(p), _what(p), f"`{_short(example.get(f))}`"]
        for f, p in defs[name]["properties"].items()
    ]
    lines += [*_table(["field", "type", "what", "example"], rows), ""]
    for part, schema in defs.items():
        nested = _struct_named(top, part)
        if part == name or nested is None or "properties" not in schema:
            continue
        lines += [f"### `{part}`", ""]
        if doc := _doc(nested):
            lines += [doc, ""]
        rows = [[f"`{f}`", _type(p), _what(p)] for f, p in schema["properties"].items()]
        lines += [*_table(["field", "type", "what"], rows), ""]
    return lines


def _struct_named(top: type, component: str) -> type | None:
    """The Struct of the view's module whose name ends the component's name."""
    module = inspect.getmodule(top)
    for name, value in vars(module).items():
        if (
            isinstance(value, type)
            and issubclass(value, msgspec.Struct)
            and component.endswith(name)
            and value.__module__ == top.__module__
        ):
            return value
    return None


def _rulings(root: str) -> list[str]:
    """The package's rulings (rulings.py), one list item each, its id in bold."""
    try:
        module = importlib.import_module(f"{root}.rulings")
    except ModuleNotFoundError as missing:
        if missing.name != f"{root}.rulings":
            raise
        return []
    rulings: dict[str, str] = module.RULINGS
    return [
        "## Rulings",
        "",
        inspect.cleandoc(module.__doc__ or ""),
        "",
        *(f"- **{key}.** {' '.join(text.split())}" for key, text in rulings.items()),
        "",
    ]


# ---- data tables ---------------------------------------------------------------------------


def _data(module: ModuleType) -> list[str]:
    """Each public constant of data.py in source order, with the comment beside or above it."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    constants: list[list[str]] = []
    out: list[str] = []
    for node in ast.parse(source).body:
        target = _assigned(node)
        if target is None or not target.isupper() or target.startswith("_"):
            continue
        value = getattr(module, target)
        note = _comment(lines, node.lineno, node.end_lineno or node.lineno)
        if isinstance(value, (int, float, str, bool)):
            constants.append([f"`{target}`", f"`{_json(value)}`", note])
            continue
        out += [f"### `{target}`", ""]
        if note:
            out += [note, ""]
        out += [*_value(value), ""]
    if constants:
        out = ["### Constants", "", *_table(["name", "value", "what"], constants), "", *out]
    intro = [inspect.cleandoc(module.__doc__), ""] if module.__doc__ else []
    return intro + out


def _assigned(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id if node.value is not None else None
    return None


def _comment(lines: list[str], first: int, last: int) -> str:
    """The comment at the end of the assignment's first line, or the comments just above."""
    own = lines[first - 1].partition("  # ")[2].strip()
    if own:
        return _sentence(own)
    above: list[str] = []
    i = first - 2
    while (
        i >= 0 and lines[i].lstrip().startswith("#") and not lines[i].lstrip().startswith("# ---")
    ):
        above.insert(0, lines[i].lstrip()[1:].strip())
        i -= 1
    return _sentence(" ".join(above))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else ""


def _value(value: Any) -> list[str]:
    if isinstance(value, Mapping) and value:
        rows = list(value.items())
        first = rows[0][1]
        if isinstance(first, tuple) and hasattr(first, "_fields"):  # NamedTuples
            fields = list(first._fields)
            return _table(
                ["", *fields],
                [[f"`{k}`", *(_cell(getattr(v, f)) for f in fields)] for k, v in rows],
            )
        return _table(["key", "value"], [[f"`{k}`", _cell(v)] for k, v in rows])
    if isinstance(value, (tuple, list, frozenset, set, range)):
        items = sorted(value) if isinstance(value, (frozenset, set)) else list(value)
        return [", ".join(f"`{_json(i)}`" for i in items) if items else "(none)"]
    return [f"`{_json(value)}`"]


def _cell(value: Any) -> str:
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        value = cast(NamedTuple, value)._asdict()
    return f"`{_json(value)}`"


# ---- small helpers -------------------------------------------------------------------------


def _doc(cls: type) -> str:
    doc = cls.__doc__
    if not doc or doc.startswith(cls.__name__ + "("):  # msgspec's generated signature
        return ""
    return " ".join(inspect.cleandoc(doc).split())


def _what(prop: dict[str, Any]) -> str:
    """A field's "what": its description (the comment beside it: api/field_notes.py)."""
    return " ".join(str(prop.get("description", "")).split())


def _type(schema: dict[str, Any]) -> str:
    """A short type of a JSON Schema: `string`, `integer[]`, `PuertoRicoBlackMarket | null`."""
    if "$ref" in schema:
        return f"`{_ref(schema)}`"
    if "anyOf" in schema:
        return " \\| ".join(_type(s) for s in schema["anyOf"])
    if "const" in schema:
        return f"`{_json(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{_json(v)}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items") or (schema.get("prefixItems") or [{}])[0]
        return _type(items) + "[]"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return "map of " + (_type(extra) if isinstance(extra, dict) and extra else "any")
    return f"`{kind}`" if isinstance(kind, str) else " \\| ".join(f"`{k}`" for k in kind)


def _shape(schema: dict[str, Any]) -> dict[str, Any]:
    """A placeholder body of a struct no game made: each required field's type's zero."""
    zero = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
    body: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        body[name] = prop["const"] if "const" in prop else zero.get(prop.get("type", ""))
    return body


def _json(value: Any) -> str:
    return json.dumps(msgspec.to_builtins(value), ensure_ascii=False, separators=(", ", ": "))


def _short(value: Any) -> str:
    text = _json(value)
    return text if len(text) <= EXAMPLE_WIDTH else text[: EXAMPLE_WIDTH - 1] + "…"


def _escaped(cell: str) -> str:
    """A table cell's text, its pipes escaped once (types escape their own)."""
    return re.sub(r"(?<!\\)\|", r"\\|", cell)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(_escaped(cell) for cell in row) + " |" for row in rows),
    ]

"""Each field's description is the comment beside it, or the comment lines just above it, in
its Struct's source: the one text that the JSON Schemas (`description`), the OpenAPI document
and docs/games/*.md all show. `undescribed(...)` names the fields that have none (a docs test
fails on any)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import msgspec

_TRAILING = re.compile(r"^\s+(\w+)\s*:[^#]*#\s*(.+)$")
_FIELD = re.compile(r"^\s+(\w+)\s*:")
_COMMENT = re.compile(r"^\s+#\s?(.*)$")


@cache
def notes(cls: type) -> dict[str, str]:
    """field (its Python name) -> its comment in the class's source."""
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):
        return {}
    found: dict[str, str] = {}
    above: list[str] = []
    for line in lines:
        if m := _COMMENT.match(line):
            above.append(m[1].strip())
            continue
        if m := _TRAILING.match(line):
            found[m[1]] = " ".join([*above, m[2].strip()])
        elif (m := _FIELD.match(line)) and above:
            found[m[1]] = " ".join(above)
        above = []
    return found


def structs(types: Iterable[Any]) -> dict[str, type]:
    """Every Struct reachable from `types`, by the name msgspec gives its JSON Schema
    component: the class's name, or module and name where two classes share one."""
    found: dict[type, None] = {}
    seen: set[int] = set()

    def walk(info: Any) -> None:
        if id(info) in seen:
            return
        seen.add(id(info))
        if isinstance(info, msgspec.inspect.StructType):
            found.setdefault(info.cls)
        for value in _children(info):
            walk(value)

    for info in msgspec.inspect.multi_type_info(list(types)):
        walk(info)
    counts: dict[str, int] = {}
    for cls in found:
        counts[cls.__name__] = counts.get(cls.__name__, 0) + 1
    return {
        cls.__name__ if counts[cls.__name__] == 1 else f"{cls.__module__}.{cls.__qualname__}": cls
        for cls in found
    }


def _children(info: Any) -> Iterator[Any]:
    if isinstance(info, msgspec.inspect.StructType):
        yield from (f.type for f in info.fields)
        return
    for name in getattr(info, "__struct_fields__", ()):
        value = getattr(info, name)
        if isinstance(value, msgspec.inspect.Type):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, msgspec.inspect.Type))


def wire_notes(cls: type) -> dict[str, str]:
    """field (as it is sent: its encode name) -> its comment in the class's source."""
    mine = notes(cls)
    return {f.encode_name: mine[f.name] for f in msgspec.structs.fields(cls) if f.name in mine}


def described(schema: dict[str, Any], cls: type) -> dict[str, Any]:
    """A Struct's component with each property's comment as its `description`."""
    props = schema.get("properties")
    if not props:
        return schema
    text = wire_notes(cls)
    out = dict(props)
    for wire, prop in props.items():
        note = text.get(wire)
        if note and "description" not in prop:
            out[wire] = prop | {"description": note}  # beside a `$ref` too (OpenAPI 3.1)
    return schema | {"properties": out}


def described_components(
    types: list[Any], ref_template: str
) -> tuple[tuple[dict[str, Any], ...], dict[str, dict[str, Any]]]:
    """msgspec's JSON Schema components of `types` (their roots, and each component by name),
    every Struct's properties described."""
    roots, defs = msgspec.json.schema_components(types, ref_template=ref_template)
    classes = structs(types)
    return roots, {n: described(d, classes[n]) if n in classes else d for n, d in defs.items()}


def undescribed(components: dict[str, dict[str, Any]]) -> list[str]:
    """`Component.field` of every property without a description (a union's tag excepted:
    its `const` says all there is)."""
    return [
        f"{name}.{field}"
        for name, schema in sorted(components.items())
        for field, prop in schema.get("properties", {}).items()
        if not prop.get("description") and "const" not in prop
    ]

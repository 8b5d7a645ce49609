"""What the OpenAPI document says about every route and body, beyond what Litestar infers:

- request bodies declare `additionalProperties: false` (they refuse unknown fields);
- timestamps are `format: date-time` (RFC 3339 in UTC, `2026-11-25T14:27:58.294757Z`,
  everywhere in the API);
- each operation's summary is the first sentence of its handler's docstring and its
  description the whole; a docstring's last paragraph, `Example: METHOD /path [JSON]`,
  becomes a request example (a curl command in the description, and the body's example).

The curl command runs as shown once `$KEY` holds an API key and the path's `{game_id}` (or
other placeholder) is an id: it sends what the operation declares it needs (the
Authorization header where the operation has security, a fresh `Idempotency-Key` where it
takes one, `Accept: text/event-stream` for a stream, the body's content type).
tests/http/test_examples_run.py runs every one against a live server.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import TYPE_CHECKING

import msgspec
from litestar import Litestar
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.enums import ParamType
from litestar.openapi.spec import (
    Example,
    OpenAPIResponse,
    Operation,
    Parameter,
    Reference,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.typing import FieldDefinition

from api.field_notes import wire_notes

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator

# The fields that hold a timestamp, in every body of the API.
TIMESTAMPS = frozenset(
    {
        "at",
        "created_at",
        "last_activity",
        "deadline",
        "expires_at",
        "starts_at",
        "ended_at",
        "ends_at",
    }
)
_EXAMPLE = re.compile(r"\n\s*Example:\s*(?P<method>[A-Z]+)\s+(?P<path>\S+)(?P<body>.*)\Z", re.S)
_SENTENCE = re.compile(r"^(.+?\.)(?:\s|$)", re.S)
_CLAUSE = re.compile(r"[:;] | \(")  # a summary is the sentence's first clause
# A fresh Idempotency-Key each time the command runs, made as the README's walk-through does.
FRESH_KEY = "$(python3 -c 'import uuid; print(uuid.uuid4())')"


class StrictStructSchemas(StructSchemaPlugin):
    """Litestar's msgspec Struct schemas, with the two declarations above."""

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType) and info.forbid_unknown_fields:
            schema.additional_properties = False
        kind = field_definition.type_
        own_doc = kind.__dict__.get("__doc__") if isinstance(kind, type) else None
        if own_doc and not schema.description:  # the Struct's own docstring, not its base's
            schema.description = " ".join(inspect.cleandoc(own_doc).split())
        is_struct = isinstance(kind, type) and issubclass(kind, msgspec.Struct)
        text = wire_notes(kind) if is_struct else {}
        for name, prop in (schema.properties or {}).items():
            if name in TIMESTAMPS and isinstance(prop, Schema):
                _date_time(prop)
            if text.get(name) and not getattr(prop, "description", None):
                prop.description = text[name]  # the comment beside the field (api/field_notes.py)
        return schema


def _date_time(schema: Schema) -> None:
    for arm in schema.one_of or [schema]:
        if isinstance(arm, Schema) and arm.type == OpenAPIType.STRING:
            arm.format = OpenAPIFormat.DATE_TIME


def describe_operations(app: Litestar) -> None:
    """Summaries, descriptions and examples from the handlers' docstrings (see above)."""
    paths = app.openapi_schema.paths or {}
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            item = paths.get(route.path_format)
            if item is None or handler.include_in_schema is False:
                continue
            fn = handler.fn
            while hasattr(fn, "func"):  # under sync_to_thread wrappers
                fn = fn.func
            doc = handler.description or inspect.getdoc(fn) or ""
            for method in handler.http_methods:
                operation: Operation | None = getattr(item, method.lower(), None)
                if operation is not None:
                    _describe(operation, doc)


def _describe(operation: Operation, doc: str) -> None:
    text = doc.strip()
    example = _EXAMPLE.search(text)
    if example is not None:
        text = text[: example.start()].strip()
    first = _SENTENCE.match(text)
    summary = " ".join((first.group(1) if first else text).split()).rstrip(".")
    operation.summary = _CLAUSE.split(summary, maxsplit=1)[0]
    operation.description = " ".join(text.split()) or None
    if example is not None:
        curl = _example(operation, example["method"], example["path"], example["body"].strip())
        operation.description = f"{operation.description}\n\nExample:\n\n```sh\n{curl}\n```"


def _example(operation: Operation, method: str, target: str, body: str) -> str:
    """The example as a curl command; its JSON body becomes the request body's example."""
    curl = f"curl -s -X {method} 'http://127.0.0.1:8000{target}'"
    if any(operation.security or ()):  # a key is needed, or may be sent
        curl += ' -H "Authorization: Bearer $KEY"'
    if _answers(operation) == {"text/event-stream"}:  # 406 without it; -N: each event at once
        curl += " -N -H 'Accept: text/event-stream'"
    if any(p.name == "Idempotency-Key" for p in _headers(operation)):
        curl += f' \\\n  -H "Idempotency-Key: {FRESH_KEY}"'
    if body:
        value = json.loads(body)  # a docstring's example must be valid JSON (the check fails)
        curl += f" \\\n  -H 'Content-Type: application/json' -d {_quoted(body)}"
        request = operation.request_body
        if request is not None and not isinstance(request, Reference):
            for media in request.content.values():
                media.examples = {"example": Example(value=value)}
    return curl


def _headers(operation: Operation) -> list[Parameter]:
    """The header parameters the operation declares."""
    params = operation.parameters or ()
    return [p for p in params if isinstance(p, Parameter) and p.param_in == ParamType.HEADER]


def _answers(operation: Operation) -> set[str]:
    """The media types of the operation's successful answers that have a body."""
    return {
        media
        for status, response in (operation.responses or {}).items()
        if status.startswith("2") and isinstance(response, OpenAPIResponse)
        for media in response.content or ()
    }


def _quoted(text: str) -> str:
    """`text` as one word of a POSIX shell, in single quotes."""
    return "'" + text.replace("'", "'\\''") + "'"

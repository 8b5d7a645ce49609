"""What the OpenAPI document says about every route and body, beyond what Litestar infers:

- request bodies declare `additionalProperties: false` (they refuse unknown fields);
- timestamps are `format: date-time` (RFC 3339 in UTC, `2026-11-25T14:27:58.294757Z`,
  everywhere in the API);
- each operation's summary is the first sentence of its handler's docstring and its
  description the whole; a docstring's last paragraph, `Example: METHOD /path [JSON]`,
  becomes a request example (a curl command in the description, and the body's example).
"""

from __future__ import annotations

import inspect
import json
import re
from typing import TYPE_CHECKING

import msgspec
from litestar import Litestar
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi.spec import Example, Operation, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.typing import FieldDefinition

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator

# The fields that hold a timestamp, in every body of the API.
TIMESTAMPS = frozenset({"at", "created_at", "last_activity", "deadline", "expires_at"})
_EXAMPLE = re.compile(r"\n\s*Example:\s*(?P<method>[A-Z]+)\s+(?P<path>\S+)(?P<body>.*)\Z", re.S)
_SENTENCE = re.compile(r"^(.+?\.)(?:\s|$)", re.S)
_CLAUSE = re.compile(r"[:;] | \(")  # a summary is the sentence's first clause


class StrictStructSchemas(StructSchemaPlugin):
    """Litestar's msgspec Struct schemas, with the two declarations above."""

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType) and info.forbid_unknown_fields:
            schema.additional_properties = False
        for name, prop in (schema.properties or {}).items():
            if name in TIMESTAMPS and isinstance(prop, Schema):
                _date_time(prop)
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
    if body:
        value = json.loads(body)  # a docstring's example must be valid JSON (the check fails)
        curl += f" \\\n  -H 'Content-Type: application/json' -d '{body}'"
        request = operation.request_body
        if request is not None and not isinstance(request, Reference):
            for media in request.content.values():
                media.examples = {"example": Example(value=value)}
    return curl

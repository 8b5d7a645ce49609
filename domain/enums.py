"""A JSON Schema `enum` for a field whose values come from a fixed set (roles, goods, phases):
`role: Annotated[str, one_of(ROLES)]`. The schemas and generated clients list the values;
decoding does not check them (a command naming another value is refused by the rules, as
any illegal move is), and the Python type stays `str`."""

from __future__ import annotations

from collections.abc import Iterable

from msgspec import Meta


def one_of(values: Iterable[str | int]) -> Meta:
    """The field holds one of `values` (in their given order, duplicates dropped)."""
    return Meta(extra_json_schema={"enum": list(dict.fromkeys(values))})

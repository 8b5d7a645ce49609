"""Every field a client reads or sends is described, in the committed OpenAPI document and on
the generated game pages alike (both from the comment beside the field: api/field_notes.py),
and fields of a fixed set of values list them (`enum`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec

from api.field_notes import notes, undescribed
from api.game_types import prefix
from domain.puerto_rico import data as puerto_rico
from domain.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text("utf-8"))
SCHEMAS = DOCUMENT["components"]["schemas"]


def test_every_field_of_the_document_has_a_description() -> None:
    assert undescribed(SCHEMAS) == []


def test_every_body_of_the_api_has_a_description() -> None:
    """The API's own bodies (a game's types are described field by field)."""
    games = tuple(prefix(game) for game in GAMES.values())
    bare = [n for n, s in SCHEMAS.items() if not s.get("description") and not n.startswith(games)]
    assert bare == []


def test_no_game_page_has_an_empty_what_cell() -> None:
    empty = []
    for page in sorted((ROOT / "docs" / "games").glob("*.md")):
        header: list[str] = []
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
            if not line.startswith("|"):
                header = []
                continue
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not header:
                header = cells
            elif (
                "what" in header and not set(line) <= set("|-") and not cells[header.index("what")]
            ):
                empty.append(f"{page.name}:{number}: {cells[0]}")
    assert empty == []


def test_fixed_sets_of_values_are_enums() -> None:
    role = SCHEMAS["PuertoRicoChooseRole"]["properties"]["role"]
    assert set(role["enum"]) == set(puerto_rico.ROLES), role
    goods = SCHEMAS["PuertoRicoSell"]["properties"]["good"]
    assert set(goods["enum"]) == set(puerto_rico.GOODS)
    status = SCHEMAS["PuertoRicoGameOut"]["properties"]["status"]
    assert set(status["enum"]) == {"open", "active", "finished", "aborted"}


def test_a_comment_beside_or_above_a_field_is_its_description() -> None:
    class Sample(msgspec.Struct):
        a: int  # beside
        # above,
        # on two lines
        b: str
        c: bool

    assert notes(Sample) == {"a": "beside", "b": "above, on two lines"}

"""What the OpenAPI document tells a client developer, and problem titles: every operation
has a summary, a description and an example (request bodies' examples valid against their
schemas), optional auth is declared as such, timestamps are date-time in one format,
creates answer 201 with Location, request bodies refuse unknown fields; every problem code
the code raises has a title of its own."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from litestar.testing import TestClient

from api.errors import TITLES, title
from api.main import build
from service.settings import Settings
from tests.support.api import Api

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text("utf-8"))
OPERATIONS = [
    (path, method, operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
]
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose `#/components/...` references resolve, for a JSON Schema validator."""
    return {**schema, "components": DOCUMENT["components"]}


@pytest.mark.parametrize(("path", "method", "operation"), OPERATIONS)
def test_every_operation_is_described_with_an_example(
    path: str, method: str, operation: dict[str, Any]
) -> None:
    summary = operation.get("summary", "")
    assert summary and len(summary) <= 120 and "callable" not in summary.lower()
    assert operation["description"].startswith(summary)
    assert "\nExample:\n\n```sh\ncurl " in operation["description"]
    assert (
        f"{method.upper()} 'http://127.0.0.1:8000{path.split('{')[0]}" in (operation["description"])
    )
    body = operation.get("requestBody")
    if body is not None:
        media = body["content"]["application/json"]
        example = media["examples"]["example"]["value"]
        jsonschema_rs.validate(_resolve(media["schema"]), example)


def test_auth_is_declared_required_or_optional() -> None:
    security = {(p, m): op.get("security") for p, m, op in OPERATIONS}
    optional = [{"bearer": []}, {}]
    for read in ("/v1/games/{game_id}", "/v1/games/{game_id}/events",
                 "/v1/games/{game_id}/replay", "/v1/games/{game_id}/stream"):  # fmt: skip
        assert security[(read, "get")] == optional, read
    for write in ("/v1/games", "/v1/games/{game_id}/moves", "/v1/stream-tokens"):
        assert security[(write, "post")] == [{"bearer": []}], write
    assert security[("/v1/game-types", "get")] is None


def test_request_bodies_refuse_unknown_fields_and_timestamps_are_date_time() -> None:
    schemas = DOCUMENT["components"]["schemas"]
    for _, _, operation in OPERATIONS:
        if "requestBody" in operation:
            ref = operation["requestBody"]["content"]["application/json"]["schema"]
            for name in re.findall(r"#/components/schemas/(\w+)", json.dumps(ref)):
                assert schemas[name]["additionalProperties"] is False, name
    stamps = {
        (name, field)
        for name, schema in schemas.items()
        for field, prop in schema.get("properties", {}).items()
        if "date-time" in json.dumps(prop)
    }
    assert {("CaylusGameOut", "created_at"), ("CaylusGameOut", "last_activity"),
            ("CaylusEventOut", "at"),
            ("GameSummary", "deadline"), ("PlayerProfile", "created_at"),
            ("SeatClock", "deadline"), ("StreamToken", "expires_at")} <= stamps  # fmt: skip


def test_creates_answer_201_with_location() -> None:
    for path in ("/v1/players", "/v1/games", "/v1/tournaments"):
        created = DOCUMENT["paths"][path]["post"]["responses"]["201"]
        assert "Location" in created["headers"], path


def test_timestamps_have_one_format(sqlite_settings: Settings) -> None:
    with TestClient(build(sqlite_settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)
        profile = client.get(f"/v1/players/{ada['id']}").json()
        events = client.get(f"/v1/games/{game['id']}/events").json()["events"]
        token = client.post("/v1/stream-tokens", headers=Api.auth(ada)).json()
    stamps = [game["created_at"], game["last_activity"], profile["created_at"],
              token["expires_at"], *(e["at"] for e in events)]  # fmt: skip
    assert all(STAMP.match(stamp) for stamp in stamps), stamps


def _raised_codes() -> set[str]:
    """Every problem code our code raises: the first string argument of a refusal."""
    refusals = {"Problem", "Unauthorized", "Forbidden", "NotFound", "Conflict",
                "Unprocessable", "Unavailable", "NotAcceptable", "UnsupportedMediaType",
                "RuleError", "BotSpecError", "problem"}  # fmt: skip
    codes: set[str] = set()
    for package in ("api", "service", "domain", "projections"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                first = node.args[1] if name == "problem" and len(node.args) > 1 else node.args[0]
                if name in refusals and isinstance(first, ast.Constant):
                    codes.add(str(first.value))
                elif name in refusals and isinstance(first, ast.JoinedStr):
                    prefix = first.values[0]
                    assert isinstance(prefix, ast.Constant), ast.unparse(first)
                    codes.add(f"{prefix.value}*")
    return codes


def test_every_problem_code_has_a_title_of_its_own() -> None:
    codes = _raised_codes()
    assert {"version_conflict", "illegal_move.*", "invalid_options.*", "not_seated"} <= codes
    for code in codes:
        assert title(code.rstrip("*")) != "Error", f"no title for {code}"
    assert title("illegal_move.wrong_phase") == "Illegal move"
    assert len(set(TITLES.values())) == len(TITLES), "two codes share a title"


def test_problems_carry_their_codes_title(sqlite_settings: Settings) -> None:
    with TestClient(build(sqlite_settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        gone = client.get("/v1/games/00000000-0000-4000-8000-000000000000")
        seated = client.get(f"/v1/games/{api.create(ada, 'secret-duel', 2)['id']}/legal-moves",
                            headers=Api.auth(api.player("bob")))  # fmt: skip
    assert gone.json()["title"] == "Game not found"
    assert seated.json()["title"] == "Not seated"

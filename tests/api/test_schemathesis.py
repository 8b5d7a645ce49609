"""Schemathesis over the whole committed OpenAPI document against the running app (uvicorn
on Postgres): no server error, no response outside the document (status, content type,
schema, headers)."""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
schema = schemathesis.openapi.from_path(DOCUMENT)
TURNS = itertools.count()
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@pytest.fixture(scope="module")
def live(pg_url: str) -> Iterator[dict[str, Any]]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        with LiveServer(Settings(database_url=f"{pg_url}?schema={name}")) as server:
            with httpx.Client(base_url=server.url) as client:
                api = Api(client)
                fuzz = api.player("fuzz")
                # A hosted game (the document types the moves of those only, not of the
                # tests' Secret Duel): one running, awaiting the fuzzer once its bot has
                # moved, and one finished.
                bots = {1: "random"}
                active = api.create(fuzz, "caylus", 2, bots, seat=0)["id"]
                finished = api.create(fuzz, "caylus", 2, bots, seat=0)["id"]
                api.play_out(finished, {0: fuzz}, random.Random(0))
            yield {"url": server.url, "headers": Api.auth(fuzz), "games": [active, finished]}
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_document(case: schemathesis.Case, live: dict[str, Any]) -> None:
    turn = next(TURNS)
    if case.headers and "Authorization" in case.headers and turn % 4:
        del case.headers["Authorization"]  # mostly a valid key, sometimes the fuzzer's own
    headers = None if case.headers and "Authorization" in case.headers else live["headers"]
    if "game_id" in (case.path_parameters or {}) and turn % 3 < 2:
        # Mostly real games (active, finished), so that the fuzzer reaches past the 404s.
        case.path_parameters["game_id"] = live["games"][turn % 3]
    query = case.query or {}
    if "wait_for_version" in query and _waits(query.get("timeout_s", 30.0)):
        # a long poll of a game that does not move answers at its timeout (30 s unless
        # asked): a short one, within the fuzzer's time per request
        case.query = {**query, "timeout_s": 0.5}
    case.call_and_validate(base_url=live["url"], headers=headers, checks=CHECKS)


def _waits(timeout_s: Any) -> bool:
    """Whether a valid `timeout_s` (a number, or its text) makes a long poll wait more than
    half a second."""
    if isinstance(timeout_s, bool):
        return False
    try:
        seconds = float(timeout_s)
    except (TypeError, ValueError):
        return False
    return 0.5 < seconds <= 60

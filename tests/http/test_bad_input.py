"""No input yields a 500: every JSON route (every operation of the committed document with a
request body) gets each bad body and answers a 4xx problem, logs no error or traceback, and
stores nothing. Also: HEAD on every GET, Allow on 405, and a join with no body."""

from __future__ import annotations

import io
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api.bodies import MAX_DEPTH
from api.main import build
from service.logs import configure
from service.settings import Settings
from tests.support.api import Api, stored_events

DOCUMENT = json.loads(
    (Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text("utf-8")
)
JSON_ROUTES = sorted(
    (path, method)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if "requestBody" in operation
)
GET_ROUTES = sorted(path for path, item in DOCUMENT["paths"].items() if "get" in item)


def _deep(levels: int) -> bytes:
    return b'{"a":' * levels + b"1" + b"}" * levels


# (what, body, content type, status): each is sent to every JSON route.
BAD_BODIES = [
    ("nested 965 deep", b"[" * 965 + b"]" * 965, "application/json", 400),
    ("nested 3000 deep", _deep(3000), "application/json", 400),
    ("nested 500000 deep", b"[" * 500_000 + b"]" * 500_000, "application/json", 400),
    ("nested past the limit", _deep(MAX_DEPTH + 1), "application/json", 400),
    ("invalid UTF-8", b'{"name": "a\xff", "seat": 1}', "application/json", 400),
    ("lone surrogate", b'{"name": "\\ud800"}', "application/json", 400),
    ("not JSON", b"{not json", "application/json", 400),
    ("a form", b"name=ada", "application/x-www-form-urlencoded", 415),
    ("text", b'{"name": "ada"}', "text/plain", 415),
]


@pytest.fixture
def world(any_settings: Settings) -> Iterator[dict[str, Any]]:
    """An app with a player, an open game, a finished one and a tournament; its log lines
    are captured."""
    buffer = io.StringIO()
    with TestClient(build(any_settings)) as client:
        configure(json=True, stream=buffer)
        try:
            api = Api(client)
            ada = api.player("ada")
            open_game = api.create(ada, "secret-duel", 2, seat=0)["id"]
            tournament = client.post(
                "/v1/tournaments",
                json={"game": "secret-duel", "format": "swiss", "table_size": 2, "rounds": 1},
                headers=Api.auth(ada),
            ).json()["id"]
            bob = api.player("bob")
            challenged = {"players": [bob["id"]], "game": "secret-duel"}
            challenge = client.post("/v1/challenges", json=challenged, headers=Api.auth(ada))
            sought = {"game": "secret-duel", "seats": 2}
            seek = client.post("/v1/seeks", json=sought, headers=Api.auth(ada)).json()["id"]
            yield {
                "api": api,
                "ada": ada,
                "params": {"game_id": open_game, "tournament_id": tournament,
                           "challenge_id": challenge.json()["id"], "seek_id": seek},
                "log": buffer,
            }
        finally:
            configure()


def _url(path: str, params: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: params.get(m[1], "x"), path)


def _posted_and_refused(world: dict[str, Any], path: str, body: Any, status: int) -> Any:
    """`body` posted to `path` by a keyed player: refused with `status`, nothing stored."""
    api = world["api"]
    before = stored_events(api)
    url = _url(path, world["params"])
    answer = api.client.post(url, json=body, headers=Api.auth(world["ada"], uuid.uuid4().hex))
    _refused(answer, status)
    assert stored_events(api) == before
    return answer


def _refused(response: Any, status: int) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status and body["code"] and body["title"]


def test_bad_bodies_on_every_json_route(world: dict[str, Any]) -> None:
    api, ada = world["api"], world["ada"]
    # players, games, join, moves, tournaments and 2 of theirs, challenges, seeks
    assert len(JSON_ROUTES) == 9
    before = stored_events(api)
    for path, method in JSON_ROUTES:
        url = _url(path, world["params"])
        for what, body, content_type, status in BAD_BODIES:
            headers = {**Api.auth(ada, "key-1"), "Content-Type": content_type}
            answer = api.client.request(method.upper(), url, content=body, headers=headers)
            assert answer.status_code == status, f"{what} to {method} {path}: {answer.text}"
            _refused(answer, status)
    assert stored_events(api) == before
    logged = [json.loads(line) for line in world["log"].getvalue().splitlines()]
    assert not [line for line in logged if line["level"] in ("error", "critical")]
    assert not [line for line in logged if "exception" in line]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/players", {"name": 7}),
        ("/v1/games", {"game": "secret-duel", "seats": "2"}),
        ("/v1/games", {"game": "secret-duel", "seats": 2.0}),
        ("/v1/games", {"game": "secret-duel", "seats": 2, "seat": "0"}),
        ("/v1/games", {"game": "secret-duel", "seats": 2, "rated": "true"}),
        ("/v1/games/{game_id}/join", {"seat": "1"}),
        ("/v1/games/{game_id}/moves", {"expected_version": "2", "move": {"type": "pass"}}),
        ("/v1/tournaments", {"game": "secret-duel", "format": "swiss", "table_size": "2"}),
        ("/v1/challenges", {"players": ["x"], "game": "secret-duel", "rated": "false"}),
        ("/v1/seeks", {"game": "secret-duel", "seats": "2"}),
    ],
)
def test_no_coercion(world: dict[str, Any], path: str, body: dict[str, Any]) -> None:
    """A string (or a float) for an integer, a string for a boolean: 400."""
    _posted_and_refused(world, path, body, 400)


UNKNOWN = "invalid_request.unknown_field"
# A field no body has, at every depth of every JSON route: (path, body, code, field named).
UNKNOWN_FIELDS = [
    ("/v1/players", {"name": "bob", "colour": "red"}, UNKNOWN, "colour"),
    ("/v1/games", {"game": "secret-duel", "seats": 2, "colour": "red"}, UNKNOWN, "colour"),
    (
        "/v1/games",
        {"game": "secret-duel", "seats": 2, "clock": {"kind": "deadline", "per_decision_s": 9,
                                                      "colour": "red"}},
        "invalid_clock.unknown_field",
        "clock.colour",
    ),
    (
        "/v1/games",
        {"game": "secret-duel", "seats": 2, "options": {"colour": "red"}},
        "invalid_options.unknown",
        "options.colour",
    ),
    ("/v1/games/{game_id}/join", {"seat": 1, "colour": "red"}, UNKNOWN, "colour"),
    (
        "/v1/games/{game_id}/moves",
        {"expected_version": 2, "move": {"type": "pass"}, "colour": "red"},
        UNKNOWN,
        "colour",
    ),
    (
        "/v1/tournaments",
        {"game": "secret-duel", "format": "swiss", "table_size": 2, "colour": "red"},
        UNKNOWN,
        "colour",
    ),
    ("/v1/tournaments/{tournament_id}/register", {"bot": "greedy", "colour": "red"}, UNKNOWN,
     "colour"),
    ("/v1/tournaments/{tournament_id}/withdraw", {"entrant": "x", "colour": "red"}, UNKNOWN,
     "colour"),
    ("/v1/challenges", {"players": ["x"], "game": "secret-duel", "colour": "red"}, UNKNOWN,
     "colour"),
    (
        "/v1/challenges",
        {"players": ["x"], "game": "secret-duel", "clock": {"kind": "fischer", "initial_s": 60,
                                                            "colour": "red"}},
        UNKNOWN,  # (a challenge's clock is typed in its body: refused as the body is read)
        "clock.colour",
    ),
    ("/v1/seeks", {"game": "secret-duel", "seats": 2, "colour": "red"}, UNKNOWN, "colour"),
]  # fmt: skip


def test_every_json_route_is_tried_with_an_unknown_field() -> None:
    assert {path for path, _ in JSON_ROUTES} == {path for path, *_ in UNKNOWN_FIELDS}


@pytest.mark.parametrize(("path", "body", "code", "field"), UNKNOWN_FIELDS)
def test_an_unknown_field_is_refused_by_name_at_every_depth(
    world: dict[str, Any], path: str, body: dict[str, Any], code: str, field: str
) -> None:
    """Never dropped: 422 with a code saying so and the field's path (`clock.colour`)."""
    answer = _posted_and_refused(world, path, body, 422)
    assert (answer.json()["code"], answer.json()["field"]) == (code, field)


def test_json_with_parameters_or_no_content_type_is_json(world: dict[str, Any]) -> None:
    client = world["api"].client
    for headers in (
        {"Content-Type": "application/json; charset=utf-8"},
        {"Content-Type": "application/merge-patch+json"},
        {},
    ):
        answer = client.post("/v1/players", content=b'{"name": "bob"}', headers=headers)
        assert answer.status_code == 201, answer.text


def test_join_without_a_body(world: dict[str, Any]) -> None:
    api = world["api"]
    bob = api.player("bob")
    game = world["params"]["game_id"]
    answer = api.client.post(f"/v1/games/{game}/join", headers=Api.auth(bob))
    assert answer.status_code == 200, answer.text
    assert answer.json()["your_seat"] == 1 and answer.json()["status"] == "active"


def test_head_on_every_get(sqlite_settings: Settings) -> None:
    with TestClient(build(sqlite_settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
        params = {"game_id": game, "player_id": ada["id"], "game": "secret-duel"}
        streams = {"/v1/games/{game_id}/stream", "/v1/players/me/stream"}
        for path in GET_ROUTES:
            if path in streams:
                continue  # endless: see tests/http/test_streams.py
            url = _url(path, params) + ("?version=1" if path.endswith("/replay") else "")
            got, head = (client.request(m, url, headers=Api.auth(ada)) for m in ("GET", "HEAD"))
            assert head.status_code == got.status_code, path
            assert head.content == b"", path
            for name in ("content-type", "etag", "link", "cache-control"):
                assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_405_says_what_is_allowed(sqlite_settings: Settings) -> None:
    with TestClient(build(sqlite_settings)) as client:
        answer = client.delete("/v1/game-types")
        _refused(answer, 405)
        assert set(answer.headers["allow"].split(", ")) >= {"GET", "HEAD"}
        answer = client.put("/v1/players", json={"name": "x"})
        _refused(answer, 405)
        assert "POST" in answer.headers["allow"].split(", ")
        assert "HEAD" not in answer.headers["allow"]


# What a wrong key is sent as: a forged key, a key of the right shape that no player has,
# another scheme, and a bearer with nothing after it.
WRONG_KEYS = (
    "Bearer tt_nope",
    "Bearer tt_" + "0" * 32 + "_" + "x" * 24,
    "Basic YWRhOmFkYQ==",
    "Bearer ",
)


def test_a_wrong_key_is_401_on_every_route_of_the_api(world: dict[str, Any]) -> None:
    """Every operation of the document under /v1/, the public reads included: a wrong key is
    refused (401, `WWW-Authenticate: Bearer`), never served as if no key had been sent, and
    changes nothing."""
    api = world["api"]
    before = stored_events(api)
    tried = 0
    for path, item in DOCUMENT["paths"].items():
        if not path.startswith("/v1/"):
            continue
        ids = world["params"]
        url = _url(path, {**ids, "game": "secret-duel", "subject_id": ids["game_id"]})
        for method, operation in item.items():
            assert "401" in operation["responses"], (method, path)  # and the document says so
            for key in WRONG_KEYS:
                answer = api.client.request(method.upper(), url, headers={"Authorization": key})
                _refused(answer, 401)
                assert answer.json()["code"] == "unauthorized", (method, path, key)
                assert answer.headers["www-authenticate"] == "Bearer"
                tried += 1
    assert tried >= 4 * 30
    assert stored_events(api) == before
    assert api.client.get("/v1/games").status_code == 200  # no key at all: a public read


def test_an_unknown_name_in_a_path_is_404(world: dict[str, Any]) -> None:
    for name in ("%2e%2e%2f", "%2E%2E", "nope", "puerto-rico%00"):
        answer = world["api"].client.get(f"/v1/leaderboards/{name}")
        _refused(answer, 404)
        assert answer.json()["code"] == "unknown_game"

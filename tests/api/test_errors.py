"""Bad input gets a 4xx application/problem+json with a stable code and changes nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Settings
from tests.support.api import Api, stored_events


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code and body["status"] == status
    assert {"type", "title", "detail"} <= set(body)


def test_identity_errors(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    game = api.create(ada, "secret-duel", 2, seat=0)["id"]
    c = api.client
    _problem(c.post("/v1/games", json={"game": "secret-duel", "seats": 2}), 401, "unauthorized")
    _problem(
        c.post(
            "/v1/games",
            json={"game": "secret-duel", "seats": 2},
            headers={"Authorization": "Bearer tt_nope"},
        ),
        401,
        "unauthorized",
    )
    _problem(
        c.get(f"/v1/games/{game}", headers={"Authorization": "Basic abc"}), 401, "unauthorized"
    )
    _problem(c.get(f"/v1/games/{game}/legal-moves", headers=Api.auth(bob)), 403, "not_seated")
    c.post(f"/v1/games/{game}/join", headers=Api.auth(bob))
    carol = api.player("carol")
    _problem(api.move(game, carol, 4, {"type": "pass"}), 403, "not_seated")
    _problem(c.get(f"/v1/games/{uuid.uuid4()}"), 404, "game_not_found")
    _problem(c.get("/v1/players/0123"), 404, "player_not_found")


@pytest.mark.parametrize("humans", [False, True], ids=["with-a-bot", "two-humans"])
def test_game_errors_change_nothing(api: Api, humans: bool) -> None:
    """Every refusal, on a game with a bot (its decisions written by the bot runner, after
    the request that leaves it awaited) and on one of two players."""
    ada = api.player("ada")
    c, auth = api.client, Api.auth(ada)
    for body, status, code in [
        ({"game": "chess", "seats": 2}, 422, "unknown_game"),
        ({"game": "secret-duel", "seats": 9}, 422, "invalid_seats"),
        (
            {"game": "secret-duel", "seats": 2, "options": {"rounds": 0}},
            422,
            "invalid_options.rounds",
        ),
        (
            {"game": "secret-duel", "seats": 2, "options": {"colour": 1}},
            422,
            "invalid_options.unknown",
        ),
        ({"game": "secret-duel", "seats": 2, "options": {"rounds": "3"}}, 422, "invalid_options"),
        ({"game": "secret-duel", "seats": 2, "bots": {"5": "random"}}, 422, "invalid_bot_seat"),
        ({"game": "secret-duel", "seats": 2, "bots": {"1": "genius"}}, 422, "unknown_bot"),
        ({"game": "secret-duel"}, 400, "invalid_request"),
        ({"game": "secret-duel", "seats": "two"}, 400, "invalid_request"),
    ]:
        _problem(c.post("/v1/games", json=body, headers=auth), status, code)
    _problem(c.post("/v1/games", content=b"{not json", headers=auth), 400, "invalid_request")
    before = stored_events(api)
    for body, status, code in [  # the creator's seat is checked before anything is saved
        ({"game": "secret-duel", "seats": 2, "seat": 2}, 422, "invalid_seat"),
        (
            {"game": "secret-duel", "seats": 2, "seat": 1, "bots": {"1": "random"}},
            409,
            "seat_taken",
        ),
    ]:
        _problem(c.post("/v1/games", json=body, headers=auth), status, code)
    assert stored_events(api) == before
    if humans:
        game = api.create(ada, "secret-duel", 2, seat=0)
        bob = api.player("bob")
        game = c.post(f"/v1/games/{game['id']}/join", headers=Api.auth(bob)).json()
    else:
        created = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)
        game = api.settled(created["id"], ada)  # the bot has committed its card
    gid, version = game["id"], game["version"]
    stored = stored_events(api)
    events_before = c.get(f"/v1/games/{gid}/events").json()["events"]
    _problem(c.post(f"/v1/games/{gid}/join", headers=auth), 409, "game_not_open")
    _problem(api.move(gid, ada, version - 1, {"type": "pass"}), 409, "version_conflict")
    conflict = api.move(gid, ada, version + 5, {"type": "pass"})
    _problem(conflict, 409, "version_conflict")
    assert conflict.json()["version"] == version
    _problem(api.move(gid, ada, version, {"type": "draw"}), 422, "illegal_move.wrong_phase")
    _problem(api.move(gid, ada, version, {"type": "teleport"}), 422, "invalid_move")
    _problem(api.move(gid, ada, version, {"type": "commit", "card": "ace"}), 422, "invalid_move")
    _problem(
        api.move(gid, ada, version, {"type": "commit", "card": 10**6}),
        422,
        "illegal_move.not_in_hand",
    )
    no_key = c.post(
        f"/v1/games/{gid}/moves", json={"expected_version": version, "move": {}}, headers=auth
    )
    _problem(no_key, 400, "invalid_request")
    for params in ({"version": 0}, {"version": 10**6}):
        _problem(c.get(f"/v1/games/{gid}/replay", params=params), 422, "invalid_version")
    _problem(c.get(f"/v1/games/{gid}/replay", params={"version": "x"}), 400, "invalid_request")
    _problem(c.get(f"/v1/games/{gid}/export"), 409, "game_not_finished")
    _problem(c.get(f"/v1/games/{gid}/audit"), 409, "game_not_finished")
    assert c.get(f"/v1/games/{gid}/events").json()["events"] == events_before
    assert stored_events(api) == stored


# Options that do not exist, or cannot apply to the seats or the expansion chosen
# (each game's rules): refused with a stable code, never silently ignored.
REFUSED_OPTIONS = [
    ("puerto-rico", 4, {"expansions": "new_buildings"}, "invalid_options.unknown"),
    ("caylus", 3, {"favors": "simplified"}, "invalid_options.unknown"),
    ("plus-ultra", 3, {"common_actions": 2}, "invalid_options.unknown"),
    ("santa-maria", 2, {"colony_board": "draft"}, "invalid_options.unknown"),
    (
        "puerto-rico",
        4,
        {"expansion": "none", "forest_house_with_hacienda": "exclusive"},
        "invalid_options.forest_house_with_hacienda",
    ),
    (
        "puerto-rico",
        3,
        {"library_craftsman_goods": "different"},
        "invalid_options.library_craftsman_goods",
    ),
    (
        "puerto-rico",
        4,
        {"expansion": "new-buildings", "library_2p_once_per_round": True},
        "invalid_options.library_2p_once_per_round",
    ),
    (
        "puerto-rico",
        2,
        {"library_2p_once_per_round": True},
        "invalid_options.library_2p_once_per_round",
    ),
    ("puerto-rico", 4, {"vp_pool_5p": 126}, "invalid_options.vp_pool_5p"),
    ("puerto-rico", 4, {"vp_pool_5p": "126"}, "invalid_options"),
    ("caylus", 2, {"lawyer_prestige": 5}, "invalid_options.lawyer_prestige"),
]


def test_options_must_exist_and_apply(api: Api) -> None:
    ada = api.player("ada")
    before = stored_events(api)
    for game, seats, options, code in REFUSED_OPTIONS:
        body = {"game": game, "seats": seats, "options": options}
        _problem(api.client.post("/v1/games", json=body, headers=Api.auth(ada)), 422, code)
    assert stored_events(api) == before


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("puerto-rico", 2, {"expansion": "new-buildings", "library_2p_once_per_round": True}),
        ("puerto-rico", 5, {"vp_pool_5p": 126}),
        (
            "puerto-rico",
            3,
            {"expansion": "new-buildings", "forest_house_with_hacienda": "exclusive"},
        ),
        # Defaults ask for the printed rules: naming them is never refused.
        ("puerto-rico", 4, {"forest_house_with_hacienda": "allowed", "vp_pool_5p": 122}),
    ],
)
def test_options_that_apply_are_kept(api: Api, game: str, seats: int, options: Any) -> None:
    ada = api.player("ada")
    created = api.create(ada, game, seats, options=options)
    for name, value in options.items():
        assert created["options"][name] == value


@pytest.fixture
def arbiter_api(sqlite_settings: Settings) -> Any:
    with TestClient(build(sqlite_settings)) as client:
        api = Api(client)
        judge = api.player("judge")
        client.app.state.tabletop.arbiters = frozenset({judge["id"]})  # type: ignore[attr-defined]
        yield api, judge


def test_an_arbiter_audits_a_running_game(arbiter_api: Any) -> None:
    api, judge = arbiter_api
    ada = api.player("ada")
    game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    api.settled(game, ada)
    legal = api.legal(game, ada)
    assert api.move(game, ada, legal["version"], legal["moves"][0]).status_code == 200
    _problem(
        api.client.get(f"/v1/games/{game}/audit", headers=Api.auth(ada)), 409, "game_not_finished"
    )
    report = api.client.get(f"/v1/games/{game}/audit", headers=Api.auth(judge)).json()
    assert report["verified"] is True and report["chain_intact"] is True

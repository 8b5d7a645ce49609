"""Takebacks over HTTP: the routes, their Idempotency-Key, their problems, and the events
a reader lists (docs/undo.md)."""

from __future__ import annotations

from typing import Any

from tests.support.api import Api


def _moved(api: Api, ada: dict[str, str], game_id: str) -> dict[str, Any]:
    """Ada's first legal move, the game once the bot has answered it."""
    api.settled(game_id, ada)
    legal = api.client.get(f"/v1/games/{game_id}/legal-moves", headers=Api.auth(ada)).json()
    body = {"expected_version": legal["version"], "move": legal["moves"][0]}
    r = api.client.post(f"/v1/games/{game_id}/moves", json=body, headers=Api.auth(ada, "m1"))
    assert r.status_code == 200, r.text
    return api.settled(game_id, ada)


def test_undo_over_http(pg_api: Api) -> None:
    api = pg_api
    ada = api.player("ada")
    game = api.create(ada, "caylus", 2, {1: "random"}, seat=0)
    game = api.settled(game["id"], ada)
    before = api.client.get(f"/v1/games/{game['id']}/legal-moves", headers=Api.auth(ada)).json()
    moved = _moved(api, ada, game["id"])
    url = f"/v1/games/{game['id']}/undo"
    r = api.client.post(url, headers=Api.auth(ada, "u1"))
    assert r.status_code == 200, r.text
    assert "idempotent-replayed" not in r.headers
    again = api.client.post(url, headers=Api.auth(ada, "u1"))
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["version"] == r.json()["version"] > moved["version"]
    after = api.client.get(f"/v1/games/{game['id']}/legal-moves", headers=Api.auth(ada)).json()
    assert after["moves"] == before["moves"]
    events = api.client.get(f"/v1/games/{game['id']}/events", params={"after": moved["version"]})
    listed = [(e["type"], e["text"]) for e in events.json()["events"]]
    assert [t for t, _ in listed] == ["undo_requested", "undo_accepted", "reverted"]
    assert listed[-1][1].startswith("Taken back")
    # Refusals: nothing asked, the key of another request, no seat, bad input.
    no = api.client.post(f"{url}/accept", headers=Api.auth(ada))
    assert no.status_code == 409 and no.json()["code"] == "not_asked"
    reused = api.client.post(f"{url}/decline", headers=Api.auth(ada, "u1"))
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    bob = api.player("bob")
    assert api.client.post(url, headers=Api.auth(bob)).status_code == 403
    assert api.client.post(url).status_code == 401
    assert api.client.post(url, headers=Api.auth(ada, "")).status_code == 400
    nowhere = "/v1/games/00000000-0000-0000-0000-000000000000/undo"
    gone = api.client.post(nowhere, headers=Api.auth(ada))
    assert gone.status_code == 404


def test_rated_games_refuse_unless_created_with_undo(pg_api: Api) -> None:
    api = pg_api
    ada = api.player("ada")
    rated = api.create(ada, "caylus", 2, {1: "random"}, seat=0, rated=True)
    _moved(api, ada, rated["id"])
    r = api.client.post(f"/v1/games/{rated['id']}/undo", headers=Api.auth(ada))
    assert r.status_code == 409 and r.json()["code"] == "undo_not_allowed"
    asked = api.create(ada, "caylus", 2, {1: "random"}, seat=0, rated=True, undo=True)
    _moved(api, ada, asked["id"])
    r = api.client.post(f"/v1/games/{asked['id']}/undo", headers=Api.auth(ada))
    assert r.status_code == 200, r.text
    bad = api.client.post(
        "/v1/games", json={"game": "caylus", "seats": 2, "undo": "yes"}, headers=Api.auth(ada)
    )
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"

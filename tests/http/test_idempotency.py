"""Idempotency-Key on creates, joins, rematches and moves: a retry is answered again (with
`Idempotent-Replayed: true`) and changes nothing; the key sent with another request is
refused. On both stores (on Postgres, creates and joins are decided on the event loop)."""

from __future__ import annotations

import random
from typing import Any

from tests.support.api import Api, stored_events

NEW_GAME = {"game": "secret-duel", "seats": 2, "seat": 0}


def _create(api: Api, player: dict[str, str], key: str | None, **body: Any) -> Any:
    return api.client.post("/v1/games", json={**NEW_GAME, **body}, headers=Api.auth(player, key))


def test_a_keyed_create_happens_once(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    first = _create(api, ada, "new-1")
    assert first.status_code == 201, first.text
    assert first.headers["location"] == f"/v1/games/{first.json()['id']}"
    assert "idempotent-replayed" not in first.headers
    stored = stored_events(api)
    again = _create(api, ada, "new-1")
    assert again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert again.headers["location"] == first.headers["location"]
    assert stored_events(api) == stored
    # Another request with the key: refused; another player's same key: its own game.
    reused = _create(api, ada, "new-1", seats=3)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    reused = _create(api, ada, "new-1", bots={"1": "random"})
    assert reused.status_code == 422
    assert stored_events(api) == stored
    theirs = _create(api, bob, "new-1")
    assert theirs.status_code == 201 and theirs.json()["id"] != first.json()["id"]
    # Without a key, every create is a new game.
    plain = [_create(api, ada, None).json()["id"] for _ in range(2)]
    assert len(set(plain)) == 2


def test_a_keyed_create_is_refused_with_another_client_seed(api: Api) -> None:
    ada = api.player("ada")
    first = _create(api, ada, "seeded-1", client_seed="first-seed")
    assert first.status_code == 201, first.text
    stored = stored_events(api)
    again = _create(api, ada, "seeded-1", client_seed="first-seed")
    assert again.status_code == 201 and again.json()["id"] == first.json()["id"]
    other = _create(api, ada, "seeded-1", client_seed="another-seed")
    assert other.status_code == 422, other.text
    assert other.json()["code"] == "idempotency_key_reused"
    assert stored_events(api) == stored


def test_a_keyed_create_with_bots_happens_once(api: Api) -> None:
    """A create with bots, retried: the same game, nothing stored again (its bot moves on
    its own after the create: it is waited for before counting)."""
    ada = api.player("ada")
    first = _create(api, ada, "bots-1", bots={"1": "random"})
    api.settled(first.json()["id"], ada)
    stored = stored_events(api)
    again = _create(api, ada, "bots-1", bots={"1": "random"})
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and stored_events(api) == stored


def test_a_retried_join_is_answered_again(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    game = _create(api, ada, None).json()["id"]
    c = api.client
    first = c.post(f"/v1/games/{game}/join", headers=Api.auth(bob, "join-1"))
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    stored = stored_events(api)
    for body in (None, {"seat": 1}):
        again = c.post(f"/v1/games/{game}/join", json=body, headers=Api.auth(bob, "join-1"))
        assert again.status_code == 200, again.text
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json()["your_seat"] == 1
    other_seat = c.post(f"/v1/games/{game}/join", json={"seat": 0}, headers=Api.auth(bob, "j"))
    assert other_seat.status_code == 409
    unkeyed = c.post(f"/v1/games/{game}/join", headers=Api.auth(bob))
    assert unkeyed.status_code == 409 and unkeyed.json()["code"] == "game_not_open"
    assert stored_events(api) == stored


def test_a_retried_move_and_rematch_say_so(api: Api) -> None:
    ada = api.player("ada")
    game = _create(api, ada, None, bots={"1": "random"}).json()["id"]
    api.settled(game, ada)
    legal = api.legal(game, ada)
    first = api.move(game, ada, legal["version"], legal["moves"][0], key="move-1")
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    again = api.move(game, ada, legal["version"], legal["moves"][0], key="move-1")
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    api.play_out(game, {0: ada}, random.Random(1))
    offer = api.client.post(f"/v1/games/{game}/rematch", headers=Api.auth(ada, "r"))
    assert offer.status_code == 200 and "idempotent-replayed" not in offer.headers
    api.settled(offer.json()["id"], ada)  # its bot seat moves on its own
    stored = stored_events(api)
    repeat = api.client.post(f"/v1/games/{game}/rematch", headers=Api.auth(ada, "r"))
    assert repeat.status_code == 200 and repeat.headers["idempotent-replayed"] == "true"
    assert repeat.json()["id"] == offer.json()["id"] and stored_events(api) == stored


def test_a_retried_join_of_a_game_still_open_is_answered_again(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    game = _create(api, ada, None, game="secret-duel", seats=3).json()["id"]
    first = api.client.post(f"/v1/games/{game}/join", headers=Api.auth(bob, "join-2"))
    assert first.status_code == 200 and first.json()["status"] == "open"
    stored = stored_events(api)
    again = api.client.post(f"/v1/games/{game}/join", headers=Api.auth(bob, "join-2"))
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["your_seat"] == first.json()["your_seat"] and stored_events(api) == stored
    unkeyed = api.client.post(f"/v1/games/{game}/join", headers=Api.auth(bob))
    assert unkeyed.status_code == 409 and unkeyed.json()["code"] == "already_seated"


def _post(api: Api, player: dict[str, str], game: str, what: str, key: str | None) -> Any:
    return api.client.post(f"/v1/games/{game}/{what}", headers=Api.auth(player, key))


def test_keyed_resign_abort_and_leave_happen_once(api: Api) -> None:
    """Sent again with its key (its answer lost), each is answered with the game and
    `Idempotent-Replayed: true` instead of 409, and nothing is written again; the key sent
    with another request, or another's key, is refused or is its own."""
    ada, bob = api.player("ada"), api.player("bob")
    # leave: an open game of three seats
    open_game = api.create(ada, "secret-duel", 3, seat=0)["id"]
    assert api.client.post(f"/v1/games/{open_game}/join", headers=Api.auth(bob)).status_code == 200
    first = _post(api, bob, open_game, "leave", "leave-1")
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers, first.text
    stored = stored_events(api)
    again = _post(api, bob, open_game, "leave", "leave-1")
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["version"] == first.json()["version"]
    unkeyed = _post(api, bob, open_game, "leave", None)
    assert unkeyed.status_code == 403 and unkeyed.json()["code"] == "not_seated"
    assert stored_events(api) == stored
    # abort: the creator's, then the same key for a resignation is another request
    first = _post(api, ada, open_game, "abort", "abort-1")
    assert first.status_code == 200 and first.json()["status"] == "aborted", first.text
    stored = stored_events(api)
    again = _post(api, ada, open_game, "abort", "abort-1")
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    reused = _post(api, ada, open_game, "resign", "abort-1")
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    assert stored_events(api) == stored
    # resign: a running duel; bob's retry with ada's key is not ada's request
    duel = api.create(ada, "secret-duel", 2, seat=0)["id"]
    api.client.post(f"/v1/games/{duel}/join", headers=Api.auth(bob))
    first = _post(api, ada, duel, "resign", "resign-1")
    assert first.status_code == 200 and first.json()["status"] == "finished", first.text
    stored = stored_events(api)
    again = _post(api, ada, duel, "resign", "resign-1")
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["result"] == first.json()["result"]
    theirs = _post(api, bob, duel, "resign", "resign-1")
    assert theirs.status_code == 422 and theirs.json()["code"] == "idempotency_key_reused"
    plain = _post(api, ada, duel, "resign", None)
    assert plain.status_code == 409 and plain.json()["code"] == "game_over"
    assert stored_events(api) == stored


def test_a_moves_key_is_not_a_resignations(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    duel = api.create(ada, "secret-duel", 2, seat=0)["id"]
    api.client.post(f"/v1/games/{duel}/join", headers=Api.auth(bob))
    legal = api.legal(duel, ada)
    moved = api.move(duel, ada, legal["version"], legal["moves"][0], key="mine")
    assert moved.status_code == 200, moved.text
    reused = _post(api, ada, duel, "resign", "mine")
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"


def _first_round(answer: Any) -> list[str]:
    return [table["game"] for table in answer.json()["rounds"][0]["tables"]]


def test_keyed_tournament_requests_happen_once(api: Api) -> None:
    """Create, register, withdraw and start, each sent again with its key: answered again
    (`Idempotent-Replayed: true`), nothing written again; the key with another request is
    refused."""
    org, ada = api.player("org"), api.player("ada")
    body = {"game": "secret-duel", "format": "swiss", "table_size": 2, "rounds": 1}

    def post(who: dict[str, str], path: str, key: str, json: Any = None) -> Any:
        return api.client.post(path, json=json, headers=Api.auth(who, key))

    first = post(org, "/v1/tournaments", "t-1", body)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers, first.text
    tid = first.json()["id"]
    stored = stored_events(api)
    again = post(org, "/v1/tournaments", "t-1", body)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == tid and again.headers["location"] == first.headers["location"]
    other = post(org, "/v1/tournaments", "t-1", {**body, "rounds": 2})
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert stored_events(api) == stored
    base = f"/v1/tournaments/{tid}"
    for who, path, key, json in (
        (ada, f"{base}/register", "r-1", None),
        (org, f"{base}/register", "r-2", {"bot": "random"}),
        (org, f"{base}/register", "r-3", {"bot": "random"}),
        (org, f"{base}/withdraw", "w-1", {"entrant": "bot:random:2"}),
        (org, f"{base}/start", "s-1", None),
    ):
        done = post(who, path, key, json)
        assert done.status_code == 200 and "idempotent-replayed" not in done.headers, done.text
        stored = stored_events(api)
        again = post(who, path, key, json)
        assert again.status_code == 200, (path, again.text)
        assert again.headers["idempotent-replayed"] == "true", path
        if path.endswith("/start"):  # its games' bots play on: the same first round
            assert _first_round(again) == _first_round(done)
        else:
            assert stored_events(api) == stored, path
    reused = post(org, f"{base}/withdraw", "r-2", {"entrant": "bot:random:1"})
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    plain = post(ada, f"{base}/register", "r-9")  # a new key: a new request, refused as such
    assert plain.status_code == 409 and plain.json()["code"] == "tournament_started"

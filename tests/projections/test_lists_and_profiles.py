"""The games list, the lobby and the player profile, served from the read models."""

from __future__ import annotations

import random
import threading

from tests.projections.conftest import caught_up
from tests.support.api import Api


def _all_pages(api: Api, **params: object) -> list[dict[str, object]]:
    games: list[dict[str, object]] = []
    cursor = None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        r = api.client.get("/v1/games", params=query)
        assert r.status_code == 200, r.text
        page = r.json()
        games += page["games"]
        cursor = page["next_cursor"]
        if cursor is None:
            return games


def test_lobby_filters_and_profile(api: Api) -> None:
    ann, bob = api.player("ann"), api.player("bob")
    open_game = api.create(ann, "secret-duel", 3, {2: "random"}, seat=0)
    active = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)
    finished = api.create(bob, "secret-duel", 2, {1: "random"}, seat=0)
    api.play_out(finished["id"], {0: bob}, random.Random(1))
    api.settled(active["id"])  # its bot has committed: it awaits ann alone, and rests
    caught_up(api)

    lobby = _all_pages(api, status="open")
    assert [g["id"] for g in lobby] == [open_game["id"]]
    assert lobby[0]["open_seats"] == [1]
    assert lobby[0]["seats"][0]["player"] == ann["id"]

    newest_first = _all_pages(api)
    assert [g["id"] for g in newest_first] == [finished["id"], active["id"], open_game["id"]]
    mine = _all_pages(api, player=ann["id"], status="active")
    assert [g["id"] for g in mine] == [active["id"]]
    assert mine[0]["awaiting"] == api.game(active["id"])["awaiting"]
    assert _all_pages(api, game="caylus") == []

    done = _all_pages(api, status="finished")[0]
    state = api.game(finished["id"])
    assert done["result"]["ranks"] == state["result"]["ranks"]
    assert done["version"] == state["version"]
    assert done["last_activity"] == state["last_activity"]

    profile = api.client.get(f"/v1/players/{bob['id']}").json()
    assert profile["name"] == "bob"
    won = state["result"]["ranks"][0] == 1
    assert profile["games"] == [
        {"game": "secret-duel", "played": 1, "finished": 1, "wins": int(won)}
    ]
    [recent] = profile["recent"]
    assert recent["seat"] == 0
    assert recent["rank"] == state["result"]["ranks"][0]
    assert recent["score"] == state["result"]["scores"][0]
    assert recent["game"]["id"] == finished["id"]

    ann_profile = api.client.get(f"/v1/players/{ann['id']}").json()
    assert ann_profile["games"] == [{"game": "secret-duel", "played": 2, "finished": 0, "wins": 0}]
    assert [g["game"]["id"] for g in ann_profile["recent"]] == [active["id"], open_game["id"]]


def test_bad_list_queries_are_4xx(api: Api) -> None:
    for query in ({"cursor": "nope"}, {"cursor": "Z2FtZXM6eA"}, {"status": "later"},
                  {"limit": 0}, {"limit": 101}):  # fmt: skip
        r = api.client.get("/v1/games", params=query)
        assert r.status_code == 400, (query, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
    assert api.client.get("/v1/games", params={"cursor": "nope"}).json()["code"] == (
        "invalid_cursor"
    )


def test_pages_never_skip_or_repeat_while_games_are_created(api: Api) -> None:
    owner = api.player("owner")
    before = [api.create(owner, "secret-duel", 2)["id"] for _ in range(25)]
    caught_up(api)
    stop = threading.Event()
    created: list[str] = []

    def keep_creating() -> None:
        while not stop.is_set() and len(created) < 60:
            created.append(api.create(owner, "secret-duel", 2)["id"])

    creator = threading.Thread(target=keep_creating)
    creator.start()
    try:
        seen: list[str] = []
        cursor = None
        while True:
            query = {"limit": 3, **({"cursor": cursor} if cursor else {})}
            page = api.client.get("/v1/games", params=query).json()
            seen += [g["id"] for g in page["games"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
    finally:
        stop.set()
        creator.join()
    assert len(seen) == len(set(seen)), "a game was repeated"
    # Every game that existed when paging began is seen, in creation order (newest first).
    assert [g for g in seen if g in before] == before[::-1]

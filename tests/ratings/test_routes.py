"""The ratings over HTTP, on both stores: a player's rating history (paged newest first,
404 and 422 as documented), the provisional mark on profiles and the leaderboard (hidden
there unless asked), bot profiles by canonical spec, and the log's leaves."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

from projections.ratings import PROVISIONAL_SIGMA
from tests.support.api import Api

PROBLEM = "application/problem+json"


def _caught_up(api: Api) -> None:
    api.client.app.state.tabletop.runner.caught_up(30)  # type: ignore[attr-defined]


def _ok(answer: Any) -> Any:
    assert answer.status_code == 200, answer.text
    return answer.json()


def _refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    assert answer.json()["code"] == code


def _duel(api: Api, ada: dict[str, str], bob: dict[str, str], rng: random.Random) -> str:
    game = api.create(ada, "secret-duel", 2, seat=0, rated=True)
    joined = api.client.post(f"/v1/games/{game['id']}/join", headers=api.auth(bob))
    assert joined.status_code == 200, joined.text
    assert api.play_out(game["id"], {0: ada, 1: bob}, rng)["status"] == "finished"
    return str(game["id"])


def test_a_rating_history_newest_first_a_page_at_a_time(api: Api) -> None:
    ada, bob, cy = api.player("ada"), api.player("bob"), api.player("cy")
    rng = random.Random(3)
    played = [_duel(api, ada, bob, rng) for _ in range(3)]
    unrated = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)
    api.play_out(unrated["id"], {0: ada}, rng)
    _caught_up(api)
    path = f"/v1/players/{ada['id']}/ratings/secret-duel"
    first = api.client.get(path, params={"limit": 2})
    page = _ok(first)
    assert (page["participant"], page["game"]) == (ada["id"], "secret-duel")
    assert [r["game_id"] for r in page["ratings"]] == played[:0:-1]
    assert [r["games"] for r in page["ratings"]] == [3, 2]
    assert first.headers["link"].endswith('rel="next"') and page["next_cursor"]
    rest = _ok(api.client.get(path, params={"limit": 2, "cursor": page["next_cursor"]}))
    assert [r["game_id"] for r in rest["ratings"]] == played[:1] and rest["next_cursor"] is None
    entries = page["ratings"] + rest["ratings"]
    assert set(entries[0]) == {"game_id", "ended_at", "mu", "sigma", "ordinal", "change",
                               "games", "provisional"}  # fmt: skip
    assert all(r["provisional"] and r["sigma"] > PROVISIONAL_SIGMA for r in entries)
    for later, earlier in pairwise(entries):
        assert later["change"] == later["ordinal"] - earlier["ordinal"]
    profile = _ok(api.client.get(f"/v1/players/{ada['id']}"))
    assert profile["ratings"] == [
        {"game": "secret-duel", "provisional": True, "games": 3,
         **{k: entries[0][k] for k in ("mu", "sigma", "ordinal")}}
    ]  # fmt: skip
    # a registered player without rated games, a bot without any: empty, 404
    assert _ok(api.client.get(f"/v1/players/{cy['id']}/ratings/secret-duel"))["ratings"] == []
    _refused(api.client.get("/v1/players/nobody/ratings/secret-duel"), 404, "player_not_found")
    _refused(api.client.get("/v1/players/bot:greedy/ratings/caylus"), 404, "player_not_found")
    for nobody in ("bot:a%00b", "a%00b", "x" * 300):  # no id can be these: 404, not a 500
        _refused(api.client.get(f"/v1/players/{nobody}/ratings/caylus"), 404, "player_not_found")
        _refused(api.client.get(f"/v1/players/{nobody}"), 404, "player_not_found")
    _refused(api.client.get(f"/v1/players/{ada['id']}/ratings/chess"), 422, "unknown_game_type")
    for bad in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"cursor": ""}):
        _refused(api.client.get(path, params=bad), 400, "invalid_request")
    _refused(api.client.get(path, params={"cursor": "Ym9hcmQ6Mg"}), 400, "invalid_cursor")


def test_the_leaderboard_hides_provisional_ratings_unless_asked(api: Api) -> None:
    ada = api.player("ada")
    rng = random.Random(5)
    game = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0, rated=True)
    api.play_out(game["id"], {0: ada}, rng)
    bot = "/v1/players/bot:random"
    for _ in range(60):  # the random bot against itself until its rating settles
        done = api.create(ada, "secret-duel", 2, {0: "random", 1: "random"}, rated=True)
        assert api.settled(done["id"])["status"] == "finished"
        _caught_up(api)
        if not _ok(api.client.get(bot))["ratings"][0]["provisional"]:
            break
    settled = _ok(api.client.get(bot))["ratings"][0]
    assert not settled["provisional"] and settled["sigma"] <= PROVISIONAL_SIGMA
    board = _ok(api.client.get("/v1/leaderboards/secret-duel"))
    assert [(p["participant"], p["provisional"]) for p in board["players"]] == [
        ("bot:random", False)
    ]
    everyone = _ok(api.client.get("/v1/leaderboards/secret-duel", params={"provisional": "true"}))
    shown = {p["participant"]: p for p in everyone["players"]}
    assert set(shown) == {"bot:random", ada["id"]} and shown[ada["id"]]["provisional"]
    assert [p["place"] for p in everyone["players"]] == [1, 2]
    _refused(
        api.client.get("/v1/leaderboards/secret-duel", params={"provisional": "yes"}),
        400,
        "invalid_request",
    )


def test_a_bot_is_rated_and_shown_under_its_canonical_spec(api: Api) -> None:
    ada = api.player("ada")
    game = api.create(ada, "caylus", 2, {0: "mcts:p=2", 1: "greedy"}, rated=True)
    assert api.settled(game["id"])["status"] == "finished"
    _caught_up(api)
    for asked in ("bot:mcts:p=2", "bot:mcts:playouts=02", "bot:mcts:playouts=2"):
        profile = _ok(api.client.get(f"/v1/players/{asked}"))
        assert (profile["id"], profile["name"]) == ("bot:mcts:playouts=2", "mcts:playouts=2 bot")
        history = _ok(api.client.get(f"/v1/players/{asked}/ratings/caylus"))
        assert [r["game_id"] for r in history["ratings"]] == [game["id"]]
    _refused(api.client.get("/v1/players/bot:mcts"), 404, "player_not_found")  # another bot
    board = _ok(api.client.get("/v1/leaderboards/caylus", params={"provisional": "true"}))
    assert {p["participant"] for p in board["players"]} == {"bot:mcts:playouts=2", "bot:greedy"}


def test_the_log_leaves_a_page_at_a_time(api: Api) -> None:
    ada = api.player("ada")
    ids = []
    for _ in range(3):
        game = api.create(ada, "secret-duel", 2, {0: "random", 1: "random"})
        assert api.settled(game["id"])["status"] == "finished"
        ids.append(game["id"])
    head = _ok(api.client.get("/v1/transparency/head"))
    assert head["tree_size"] == 3
    first = api.client.get("/v1/transparency/leaves", params={"limit": 2})
    page = _ok(first)
    assert page["tree_size"] == 3 and page["next_start"] == 2
    assert 'start=2' in first.headers["link"]
    rest = _ok(api.client.get("/v1/transparency/leaves", params={"start": 2}))
    leaves = page["leaves"] + rest["leaves"]
    assert rest["next_start"] is None and "link" not in api.client.get(
        "/v1/transparency/leaves", params={"start": 2}
    ).headers
    assert [leaf["id"] for leaf in leaves] == ids and [x["leaf_index"] for x in leaves] == [0, 1, 2]
    for leaf in leaves:
        proof = _ok(api.client.get(f"/v1/transparency/inclusion/{leaf['id']}"))
        assert proof["leaf_index"] == leaf["leaf_index"]
        assert proof["leaf"] == {k: leaf[k] for k in ("kind", "id", "final_hash")}
    older = _ok(api.client.get("/v1/transparency/leaves", params={"tree_size": 3, "start": 3}))
    assert older == {"tree_size": 3, "leaves": [], "next_start": None}
    _refused(api.client.get("/v1/transparency/leaves", params={"tree_size": 9}), 404,
             "head_not_found")  # fmt: skip
    for bad in ({"limit": 0}, {"limit": 1001}, {"start": -1}, {"tree_size": "x"}):
        _refused(api.client.get("/v1/transparency/leaves", params=bad), 400, "invalid_request")

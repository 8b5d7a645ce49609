"""Ratings from public data (docs/ratings.md): on a live server (Postgres), rated games of two
game types with overlapping players and bots (two specs of one bot, and an alias of one), an
unrated game, an aborted one and a tournament; then, as anyone could, the log (signed head,
keys, leaves) and the games' exports are downloaded and `tabletop ratings recompute` run in
a subprocess: its ratings are the API's, bit for bit, and the projection rated the games in
the log's order."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest

from projections.ratings_recompute import Refused, check_log, exports_in, recompute
from service.settings import Settings
from service.signing import parse_keys
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.waits import wait_until

# One server for the module's tests: they run in one worker of `make test`.
pytestmark = pytest.mark.xdist_group("ratings-recompute")
GAMES = ("secret-duel", "caylus")
SHOWN = ("game", "participant", "name", "mu", "sigma", "ordinal", "games", "provisional")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> Iterator[dict[str, Any]]:
    """The server after the games, the API's ratings and histories, and the public data
    saved: `log.json` and `games/<id>.ndjson` (one server for the tests of this module)."""
    import uuid

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    settings = Settings(database_url=f"{pg_url}?schema={schema}&pool_size=4&max_overflow=8")
    base = tmp_path_factory.mktemp("ratings")
    try:
        with LiveServer(settings) as live, httpx.Client(base_url=live.url, timeout=60) as http:
            api = Api(http)
            _play(api)
            live.app.state.tabletop.runner.caught_up(60)  # type: ignore[attr-defined]
            found = _download(http, base)
            found["api"] = _api_ratings(http)
            found["histories"] = {
                (r["game"], r["participant"]): _history(http, r["participant"], r["game"])
                for r in found["api"]
            }
            reads = live.app.state.tabletop.reads  # type: ignore[attr-defined]
            found["seq"] = {
                row["game_id"]: row["seq"]
                for r in found["api"]
                for row in reads.rating_history(r["participant"], r["game"], None, 1000)
            }
            yield found
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _play(api: Api) -> None:
    ada, bob = api.player("ada"), api.player("bob")
    rng = random.Random(7)
    # Secret Duel: ada and bob against each other and the random bot; ada resigns one.
    for seated, bots in (
        ({0: ada, 1: bob}, {}),
        ({0: bob, 1: ada}, {}),
        ({0: ada}, {1: "random"}),
        ({1: bob}, {0: "random"}),
        ({0: ada, 1: bob}, {}),
    ):
        first = min(seated)
        game = api.create(seated[first], "secret-duel", 2, bots, seat=first, rated=True)
        for seat, player in seated.items():
            if seat != first:
                joined = api.client.post(
                    f"/v1/games/{game['id']}/join", json={"seat": seat}, headers=api.auth(player)
                )
                assert joined.status_code == 200, joined.text
        if len(seated) == 2 and rng.random() < 0.5:
            resigned = api.client.post(f"/v1/games/{game['id']}/resign", headers=api.auth(bob))
            assert resigned.status_code == 200, resigned.text
        assert api.play_out(game["id"], seated, rng)["status"] == "finished"
    # Caylus, bots alone: two specs of mcts (and `mcts:p=2` under another spelling), greedy,
    # and random twice in one game (it moves by the mean of both seats).
    for bots in (
        {0: "mcts:p=2", 1: "random"},
        {0: "greedy", 1: "mcts:playouts=2"},
        {0: "mcts:p=3", 1: "mcts:p=2", 2: "greedy"},
        {0: "random", 1: "greedy", 2: "random"},
        {0: "random", 1: "mcts:p=3"},
    ):
        game = api.create(ada, "caylus", len(bots), bots, rated=True)
        assert api.settled(game["id"])["status"] == "finished"
    # Leaves that rate nothing: an unrated game, an aborted one, and a tournament (whose
    # rated table is a game leaf of its own).
    unrated = api.create(ada, "secret-duel", 2, {0: "random", 1: "random"})
    assert api.settled(unrated["id"])["status"] == "finished"
    aborted = api.create(ada, "secret-duel", 2, {1: "random"}, seat=0, rated=True)
    stopped = api.client.post(f"/v1/games/{aborted['id']}/abort", headers=api.auth(ada))
    assert stopped.status_code == 200, stopped.text
    _tournament(api, bob)


def _tournament(api: Api, organiser: dict[str, str]) -> None:
    body = {"game": "secret-duel", "format": "swiss", "table_size": 2, "rounds": 1}
    made = api.client.post("/v1/tournaments", json=body, headers=api.auth(organiser))
    assert made.status_code == 201, made.text
    path = f"/v1/tournaments/{made.json()['id']}"
    for _ in range(2):
        entered = api.client.post(
            f"{path}/register", json={"bot": "random"}, headers=api.auth(organiser)
        )
        assert entered.status_code == 200, entered.text
    started = api.client.post(f"{path}/start", headers=api.auth(organiser))
    assert started.status_code == 200, started.text
    wait_until(
        lambda: api.client.get(path).json()["status"] == "finished", 60, "the tournament ends"
    )


def _pages(http: httpx.Client, path: str, key: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a cursor-paged list, following `next_cursor`."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        answer = http.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        items += answer.json()[key]
        cursor = answer.json()["next_cursor"]
        if cursor is None:
            return items


def _api_ratings(http: httpx.Client) -> list[dict[str, Any]]:
    """Every rating the API shows, from the leaderboards with the provisional ones."""
    return [
        {"game": game, **{k: line[k] for k in SHOWN if k != "game"}}
        for game in GAMES
        for line in _pages(
            http, f"/v1/leaderboards/{game}", "players", limit=2, provisional="true"
        )
    ]


def _history(http: httpx.Client, participant: str, game: str) -> list[dict[str, Any]]:
    return _pages(http, f"/v1/players/{participant}/ratings/{game}", "ratings", limit=2)


def _download(http: httpx.Client, base: Path) -> dict[str, Any]:
    """The log file and the exports, as docs/ratings.md says to fetch them."""
    head = http.get("/v1/transparency/head").json()
    keys = http.get("/v1/keys").json()
    leaves: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None:
        query = {"start": start, "limit": 3, "tree_size": head["tree_size"]}
        page = http.get("/v1/transparency/leaves", params=query).json()
        leaves += page["leaves"]
        start = page["next_start"]
    log = base / "log.json"
    log.write_text(json.dumps({"head": head, "keys": keys, "leaves": leaves}))
    games = base / "games"
    games.mkdir()
    for leaf in leaves:
        if leaf["kind"] == "game":
            export = http.get(f"/v1/games/{leaf['id']}/export")
            assert export.status_code == 200, export.text
            (games / f"{leaf['id']}.ndjson").write_text(export.text)
    return {"log": log, "games": games, "head": head, "keys": keys, "leaves": leaves}


def _cli(*args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "ratings", "recompute", *map(str, args)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def _bits(ratings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The ratings with their floats as exact bits, in a stable order."""
    return sorted(
        tuple(float(r[k]).hex() if isinstance(r[k], float) else r[k] for k in SHOWN)
        for r in ratings
    )


def test_the_recomputed_ratings_are_the_apis_bit_for_bit(world: dict[str, Any]) -> None:
    kinds = [leaf["kind"] for leaf in world["leaves"]]
    assert kinds.count("tournament") == 1 and len(kinds) == world["head"]["tree_size"] == 14
    code, out = _cli("--log", world["log"], "--games", world["games"])
    assert code == 0, out
    assert (out["tree_size"], out["root_hash"]) == (14, world["head"]["root_hash"])
    assert _bits(out["ratings"]) == _bits(world["api"])
    participants = {(r["game"], r["participant"]) for r in out["ratings"]}
    # one identity per spec, aliases spelt one way; both players at Secret Duel
    assert {p for g, p in participants if g == "caylus"} == {
        "bot:random", "bot:greedy", "bot:mcts:playouts=2", "bot:mcts:playouts=3"
    }  # fmt: skip
    assert len({p for g, p in participants if g == "secret-duel"}) == 3
    # every rating has had fewer than ten games: provisional
    assert all(r["provisional"] for r in out["ratings"])
    # In another order the same games rate differently: the order is what makes them equal.
    export_of = exports_in(world["games"])
    shuffled = recompute(list(reversed(world["leaves"])), export_of)
    assert _bits(shuffled) != _bits(world["api"])


def test_the_projection_rated_the_games_in_the_log_order(world: dict[str, Any]) -> None:
    """The positions the projection rated by (the endings' notification ids) sort the rated
    games as the log's leaves do; each history runs in leaf order, newest first, and ends
    at the rating shown."""
    place = {leaf["id"]: i for i, leaf in enumerate(world["leaves"])}
    seq = world["seq"]
    assert len(seq) == 5 + 5 + 1  # the rated games: Secret Duel, Caylus, the tournament's
    assert sorted(seq, key=seq.__getitem__) == sorted(seq, key=place.__getitem__)
    for rating in world["api"]:
        history = world["histories"][(rating["game"], rating["participant"])]
        assert len(history) == rating["games"]
        assert [h["games"] for h in history] == list(range(rating["games"], 0, -1))
        places = [place[h["game_id"]] for h in history]
        assert places == sorted(places, reverse=True)
        latest = history[0]
        assert {k: latest[k] for k in ("mu", "sigma", "ordinal", "provisional")} == {
            k: rating[k] for k in ("mu", "sigma", "ordinal", "provisional")
        }
        for later, earlier in pairwise(history):
            assert later["change"] == later["ordinal"] - earlier["ordinal"]
            assert later["ended_at"] >= earlier["ended_at"]


def test_what_does_not_check_is_refused(world: dict[str, Any], tmp_path: Path) -> None:
    head, leaves = world["head"], world["leaves"]
    keys = parse_keys(json.dumps(world["keys"]))
    assert check_log(head, keys, leaves) == []
    swapped = [leaves[1], leaves[0], *leaves[2:]]  # out of place by their own indexes
    assert any("leaf 0 is not" in p for p in check_log(head, keys, swapped))
    renumbered = [{**leaf, "leaf_index": i} for i, leaf in enumerate(swapped)]
    assert any("root" in p for p in check_log(head, keys, renumbered))
    assert any("leaves" in p for p in check_log(head, keys, leaves[:-1]))
    other = {**head, "root_hash": "00" * 32}
    assert any("signature" in p for p in check_log(other, keys, leaves))
    # A rated game's export changed after the log recorded it: its chain no longer leads
    # to the leaf's final hash (the CLI says so, exit 1).
    rated = next(leaf for leaf in leaves if leaf["id"] in world["seq"])
    games = tmp_path / "games"
    games.mkdir()
    for file in world["games"].iterdir():
        (games / file.name).write_text(file.read_text())
    target = games / f"{rated['id']}.ndjson"
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    ending = next(i for i, line in enumerate(lines) if line.get("type") == "game_finished")
    lines[ending]["data"]["result"]["ranks"].reverse()
    target.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out = _cli("--log", world["log"], "--games", games)
    assert code == 1 and out["verified"] is False
    assert any(rated["id"] in p for p in out["problems"]), out
    target.unlink()  # an export missing: it may have been rated, so nothing is trusted
    with pytest.raises(Refused, match="no export"):
        recompute(leaves, exports_in(games))

"""Leave, abort, resign and rematch through HTTP for every hosted game, on both stores; the
refusals of each with their stable codes; the lobby and profiles showing the outcomes; and
a stalled Plus Ultra commitment resolved by a timeout (a fake clock, no real waiting)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import Tabletop, create_app
from service.settings import Settings
from service.store import open_store
from tests.conftest import all_games
from tests.support.api import Api
from tests.support.clock import FakeClock

DAY = {"kind": "deadline", "per_decision_s": 86400}


def _post(api: Api, game_id: str, what: str, player: dict[str, str]) -> Any:
    return api.client.post(f"/v1/games/{game_id}/{what}", headers=api.auth(player))


def _code(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    code: str = response.json()["code"]
    return code


def _caught_up(api: Api) -> None:
    tabletop: Tabletop = api.client.app.state.tabletop  # type: ignore[attr-defined]
    assert tabletop.runner is not None
    tabletop.runner.caught_up(20)


def _one_decision(api: Api, game_id: str, seated: dict[int, dict[str, str]]) -> None:
    state = api.game(game_id)
    seat = state["awaiting"][0]
    legal = api.legal(game_id, seated[seat])
    r = api.move(game_id, seated[seat], legal["version"], legal["moves"][0])
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("game", all_games())
def test_leave_abort_resign_and_rematch(api: Api, game: str) -> None:
    ada, bob, cy = api.player("ada"), api.player("bob"), api.player("cy")

    # Leave an open game: the seat is free again; not once the game has started.
    first = api.create(ada, game, 2, seat=0, clock=DAY)
    assert first["clock"]["spec"] == DAY and first["clock"]["deadline"] is None
    left = _post(api, first["id"], "leave", ada)
    assert left.status_code == 200 and left.json()["seats"][0]["player"] is None
    assert _code(_post(api, first["id"], "leave", ada), 403) == "not_seated"
    for player in (bob, ada):
        assert api.client.post(f"/v1/games/{first['id']}/join", headers=api.auth(player)).is_success
    started = api.game(first["id"], ada)
    assert started["status"] == "active"
    assert started["clock"]["deadline"] is not None  # a correspondence deadline runs
    assert _code(_post(api, first["id"], "leave", ada), 409) == "game_not_open"

    # Abort: the creator only, before any decision; then nothing more is played.
    assert _code(_post(api, first["id"], "abort", bob), 403) == "not_creator"
    aborted = _post(api, first["id"], "abort", ada)
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert aborted.json()["result"] is None
    seat = started["awaiting"][0]
    player = {0: bob, 1: ada}[seat]
    legal = api.legal(first["id"], player)
    assert legal["moves"] == []
    late = api.move(first["id"], player, started["version"] + 1, {"type": "x"})
    assert late.status_code in (409, 422)
    assert _code(_post(api, first["id"], "abort", ada), 409) == "game_over"
    assert api.client.get(f"/v1/games/{first['id']}/audit").json()["verified"]

    # Resign: refused before the end of nothing; a two-seat game ends, the other wins.
    second = api.create(ada, game, 2, seat=0, clock=DAY)
    assert _code(_post(api, second["id"], "resign", ada), 409) == "game_not_started"
    api.client.post(f"/v1/games/{second['id']}/join", headers=api.auth(bob))
    _one_decision(api, second["id"], {0: ada, 1: bob})
    assert _code(_post(api, second["id"], "abort", ada), 409) == "abort_too_late"
    assert _code(_post(api, second["id"], "rematch", ada), 409) == "game_not_finished"
    assert _code(_post(api, second["id"], "resign", cy), 403) == "not_seated"
    resigned = _post(api, second["id"], "resign", bob)
    assert resigned.status_code == 200, resigned.text
    body = resigned.json()
    assert body["status"] == "finished" and body["forfeited"] == {"1": "resigned"}
    assert body["result"]["ranks"] == [1, 2]
    assert _code(_post(api, second["id"], "resign", bob), 409) == "game_over"
    assert api.client.get(f"/v1/games/{second['id']}/audit").json()["verified"]

    # Rematch: the same game and clock, each player one seat earlier, reserved for them.
    offered = _post(api, second["id"], "rematch", ada)
    assert offered.status_code == 200, offered.text
    rematch = offered.json()
    assert rematch["rematch_of"] == second["id"] and rematch["clock"]["spec"] == DAY
    assert rematch["status"] == "open" and rematch["seats"][1]["player"] == ada["id"]
    assert api.game(second["id"])["rematch"] == rematch["id"]
    again = _post(api, second["id"], "rematch", ada)
    assert again.json()["id"] == rematch["id"]  # asked twice: the same rematch
    refused = api.client.post(f"/v1/games/{rematch['id']}/join", headers=api.auth(cy))
    assert _code(refused, 403) == "seat_reserved"
    _caught_up(api)  # bob hears of the rematch before he accepts it
    accepted = _post(api, second["id"], "rematch", bob)
    assert accepted.status_code == 200 and accepted.json()["id"] == rematch["id"]
    assert accepted.json()["status"] == "active"
    assert accepted.json()["seats"][0]["player"] == bob["id"]
    exported = api.client.get(f"/v1/games/{second['id']}/export").text.splitlines()
    kinds = [line for line in exported if '"rematch_' in line]
    assert len(kinds) == 2  # rematch_offered, rematch_accepted
    assert api.client.get(f"/v1/games/{second['id']}/audit").json()["verified"]

    # The lobby and the profiles show the outcomes; the resigned player heard them too.
    _caught_up(api)
    tabletop: Tabletop = api.client.app.state.tabletop  # type: ignore[attr-defined]
    told = [json.loads(n) for n in tabletop.reads.notices_for(bob["id"], 0)]
    about = [(n["kind"], n["game"]) for n in told]
    assert ("game_finished", second["id"]) in about and ("rematch_offered", second["id"]) in about
    listed = api.client.get("/v1/games", params={"status": "aborted"}).json()["games"]
    assert first["id"] in [g["id"] for g in listed]
    profile = api.client.get(f"/v1/players/{bob['id']}").json()
    ended = next(r for r in profile["recent"] if r["game"]["id"] == second["id"])
    assert ended["rank"] == 2 and ended["game"]["result"]["forfeited"] == {"1": "resigned"}


def test_resigning_among_three_lets_a_bot_play_it_out(api: Api) -> None:
    ada = api.player("ada")
    game = api.create(ada, "caylus", 3, {1: "random", 2: "random"}, seat=0)
    r = _post(api, game["id"], "resign", ada)
    assert r.status_code == 200, r.text
    assert r.json()["forfeited"] == {"0": "resigned"}
    final = api.settled(game["id"])  # the bots play on after the request, on their own
    assert final["status"] == "finished"  # bots played every seat to the end
    assert final["result"]["ranks"][0] == 3 and final["seats"][0]["bot"] == "random"
    assert api.client.get(f"/v1/games/{game['id']}/audit").json()["verified"]


def test_invalid_clocks_are_refused(api: Api) -> None:
    ada = api.player("ada")
    for clock, on_timeout in (
        ({"kind": "fischer", "initial_s": 0}, None),
        ({"kind": "fischer", "initial_s": 60, "increment_s": -1}, None),
        ({"kind": "deadline"}, None),
        ({"kind": "hourglass", "per_decision_s": 5}, None),
        ({"kind": "deadline", "per_decision_s": 5, "extra": 1}, None),
        ({"kind": "deadline", "per_decision_s": 5}, "bot:oracle"),
        (None, "forfeit"),
        ("fast", None),
    ):
        body = {"game": "caylus", "seats": 2, "clock": clock, "on_timeout": on_timeout}
        r = api.client.post("/v1/games", json=body, headers=api.auth(ada))
        if isinstance(clock, dict) and "extra" in clock:  # named, never dropped
            assert _code(r, 422) == "invalid_clock.unknown_field"
            assert r.json()["field"] == "clock.extra"
            continue
        assert _code(r, 422) == "invalid_clock", (clock, on_timeout)
    types = api.client.get("/v1/game-types").json()
    assert all(t["clocks"] == ["fischer", "deadline"] for t in types)


@pytest.fixture
def timed(sqlite_settings: Settings) -> Iterator[tuple[Api, FakeClock, Tabletop]]:
    """The API with a fake server clock; its timekeeper ticks when the test says."""
    clock = FakeClock()
    tabletop = Tabletop(open_store(sqlite_settings), projections=sqlite_settings, now=clock)
    with TestClient(create_app(tabletop)) as client:
        yield Api(client), clock, tabletop


def test_a_stalled_plus_ultra_commitment_is_resolved_by_a_timeout(
    timed: tuple[Api, FakeClock, Tabletop],
) -> None:
    api, clock, tabletop = timed
    ada, bob = api.player("ada"), api.player("bob")
    seated, rng = {0: ada, 1: bob}, random.Random(7)
    game = state = None
    for _ in range(5):  # play random moves until both seats decide at once
        game = api.create(
            ada, "plus-ultra", 2, seat=0, clock={"kind": "deadline", "per_decision_s": 60}
        )
        api.client.post(f"/v1/games/{game['id']}/join", headers=api.auth(bob))
        state = api.game(game["id"])
        while state["status"] == "active" and len(state["awaiting"]) < 2:
            seat = state["awaiting"][0]
            legal = api.legal(game["id"], seated[seat])
            api.move(game["id"], seated[seat], legal["version"], rng.choice(legal["moves"]))
            clock.advance(rng.uniform(0, 5))
            state = api.game(game["id"])
        if state["status"] == "active":
            break
    assert game is not None and state is not None and sorted(state["awaiting"]) == [0, 1]
    legal = api.legal(game["id"], ada)
    assert api.move(game["id"], ada, legal["version"], rng.choice(legal["moves"])).is_success
    stalled = api.game(game["id"], bob)
    assert stalled["awaiting"] == [1] and api.legal(game["id"], ada)["moves"] == []
    assert stalled["clock"]["seats"][1]["running"]
    clock.advance(61)
    assert tabletop.runner is not None
    tabletop.runner.caught_up(20)
    assert tabletop.timekeeper.tick() == 1
    moved_on = api.game(game["id"])
    assert moved_on["version"] > stalled["version"]  # the game goes on
    # the timeout is written alone; the policy's bot decides for the seat in a write of its
    # own, after it (the bot runner's): wait for that decision
    api.wait(game["id"], stalled["version"] + 1, timeout=30)
    events = api.client.get(f"/v1/games/{game['id']}/events").json()["events"]
    timed_out = [i for i, e in enumerate(events) if e["type"] == "timed_out"]
    assert [events[i]["data"]["seat"] for i in timed_out] == [1]
    decided = events[timed_out[0] + 1]  # a bot made the stalled seat's commitment
    assert decided["seat"] == 1 and decided["version"] == stalled["version"] + 2
    tabletop.runner.caught_up(20)
    assert tabletop.timekeeper.tick() == 0  # applied once

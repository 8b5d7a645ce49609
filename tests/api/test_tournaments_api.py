"""A tournament through HTTP on both stores, as a new user would run one: create, register
players and bots, start, follow it to the end, read the standings, the leaderboard and the
profiles, and verify its export offline with its games' exports. A knockout places its
final's winner first; a start time and entry conditions are validated strictly and shown."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.support.api import Api
from tests.support.waits import wait_until


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def test_a_tournament_of_players_and_bots_from_creation_to_leaderboard(
    api: Api, tmp_path: Path
) -> None:
    org, ada = api.player("org"), api.player("ada")
    body = {"game": "santa-maria", "format": "swiss", "table_size": 3, "rounds": 2}
    t = _ok(api.client.post("/v1/tournaments", json=body, headers=api.auth(org)), 201)
    path = f"/v1/tournaments/{t['id']}"
    assert t["config"]["clock"] == {"kind": "deadline", "per_decision_s": 86400}
    assert t["config"]["points"] == [4.0, 2.0, 0.0]
    _ok(api.client.post(f"{path}/register", headers=api.auth(ada)))
    again = api.client.post(f"{path}/register", headers=api.auth(ada))
    assert again.status_code == 409 and again.json()["code"] == "already_registered"
    refused = api.client.post(f"{path}/register", json={"bot": "greedy"}, headers=api.auth(ada))
    assert refused.status_code == 403 and refused.json()["code"] == "not_organiser"
    early = api.client.post(f"{path}/start", headers=api.auth(org))
    assert early.status_code == 422 and early.json()["code"] == "too_few_players"
    for bot in ("greedy", "random", "random", "greedy", "random"):
        _ok(api.client.post(f"{path}/register", json={"bot": bot}, headers=api.auth(org)))
    started = _ok(api.client.post(f"{path}/start", headers=api.auth(org)))
    assert started["status"] == "running" and len(started["rounds"]) == 1
    _ok(api.client.post(f"{path}/withdraw", headers=api.auth(ada)))  # her game is forfeited
    deadline = time.monotonic() + 60
    while (now := _ok(api.client.get(path)))["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.1)  # the in-app director moves it on within a second
    assert len(now["rounds"]) == 2 and now["seat_spread"] <= 2  # a table of 2 may force 2
    assert now["standings"][0]["place"] == 1
    tabletop = api.client.app.state.tabletop  # type: ignore[attr-defined]
    tabletop.runner.caught_up(20)
    listed = _ok(api.client.get("/v1/tournaments", params={"status": "finished"}))
    assert t["id"] in [x["id"] for x in listed["tournaments"]]
    new = {"provisional": "true"}  # after a game or two every rating is provisional
    board = _ok(api.client.get("/v1/leaderboards/santa-maria", params={"limit": 1, **new}))
    assert board["players"][0]["place"] == 1 and board["next_cursor"]
    rest = _ok(
        api.client.get(
            "/v1/leaderboards/santa-maria", params={"cursor": board["next_cursor"], **new}
        )
    )
    everyone = [board["players"][0], *rest["players"]]
    assert {p["participant"] for p in everyone} >= {ada["id"], "bot:greedy", "bot:random"}
    assert [p["ordinal"] for p in everyone] == sorted(
        (p["ordinal"] for p in everyone), reverse=True
    )
    profile = _ok(api.client.get(f"/v1/players/{ada['id']}"))
    assert profile["ratings"][0]["game"] == "santa-maria" and profile["ratings"][0]["games"] == 1
    assert _ok(api.client.get("/v1/players/bot:greedy"))["ratings"]
    export = api.client.get(f"{path}/export")
    (tmp_path / "t.ndjson").write_text(export.text)
    games = tmp_path / "games"
    games.mkdir()
    for r in now["rounds"]:
        for table in r["tables"]:
            text = api.client.get(f"/v1/games/{table['game']}/export").text
            (games / f"{table['game']}.ndjson").write_text(text)
    cli = [sys.executable, "-m", "api.cli", "verify", str(tmp_path / "t.ndjson")]
    checked = subprocess.run([*cli, "--games", str(games)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["tables"] == sum(len(r["tables"]) for r in now["rounds"])
    alone = subprocess.run(cli, capture_output=True, text=True)
    assert alone.returncode == 1 and json.loads(alone.stdout)["games_missing"]


def test_a_knockout_places_its_final_winner_first_and_then_refuses_registration(
    api: Api,
) -> None:
    """Six bots at tables of three, one of each going on: a final of two, whose winner is
    first whatever the points of the first round; a finished tournament is closed."""
    org, late = api.player("org"), api.player("late")
    body = {"game": "santa-maria", "format": "knockout", "table_size": 3, "advance": 1}
    t = _ok(api.client.post("/v1/tournaments", json=body, headers=api.auth(org)), 201)
    path = f"/v1/tournaments/{t['id']}"
    for bot in ("greedy", "random", "random", "greedy", "random", "random"):
        _ok(api.client.post(f"{path}/register", json={"bot": bot}, headers=api.auth(org)))
    _ok(api.client.post(f"{path}/start", headers=api.auth(org)))
    wait_until(lambda: _ok(api.client.get(path))["status"] == "finished", 120, "the knockout")
    done = _ok(api.client.get(path))
    last = done["rounds"][-1]
    assert len(done["rounds"]) == 2 and len(last["tables"]) == 1 and last["byes"] == []
    final = last["tables"][0]
    kept = [s for s in range(len(final["seats"])) if s not in final["forfeited"]]
    best = min(final["ranks"][s] for s in kept)
    winners = {final["seats"][s] for s in kept if final["ranks"][s] == best}
    standings = done["standings"]
    assert standings[0]["entrant"] in winners and standings[0]["place"] == 1
    assert {line["entrant"] for line in standings[:2]} == set(final["seats"])
    assert all("withdrawn_reason" in line for line in standings)
    late_answer = api.client.post(f"{path}/register", headers=api.auth(late))
    assert late_answer.status_code == 409, late_answer.text
    assert late_answer.json()["code"] == "tournament_finished"


def test_a_scheduled_conditional_tournament_through_http(api: Api) -> None:
    """`starts_at` and `entry` are validated strictly, shown in the config and the list,
    and the conditions refuse a newcomer by name while the organiser's bots enter."""
    org, ada = api.player("org"), api.player("ada")
    base = {"game": "santa-maria", "format": "swiss", "table_size": 2, "rounds": 1}
    for extra, status, code in (
        ({"starts_at": "tomorrow"}, 422, "invalid_starts_at"),
        ({"starts_at": "2030-01-01T10:00:00"}, 422, "invalid_starts_at"),  # no zone
        ({"starts_at": "2030-01-01T10:00:00+02:00"}, 422, "invalid_starts_at"),  # not UTC
        ({"starts_at": "2001-01-01T10:00:00Z"}, 422, "invalid_starts_at"),  # past
        ({"starts_at": 7}, 400, "invalid_request"),
        ({"entry": {"min_rating": 3, "max_rating": 1}}, 422, "invalid_entry_conditions"),
        ({"entry": {"min_rated_games": -1}}, 400, "invalid_request"),
        ({"entry": {"min_rating": 1e300}}, 400, "invalid_request"),
        ({"entry": {"colour": "red"}}, 422, "invalid_request.unknown_field"),
        ({"entry": []}, 400, "invalid_request"),
    ):
        answer = api.client.post("/v1/tournaments", json={**base, **extra}, headers=api.auth(org))
        assert answer.status_code == status, (extra, answer.text)
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["code"] == code, (extra, answer.text)
        if code == "invalid_request.unknown_field":
            assert answer.json()["field"] == "entry.colour"
    starts_at = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    entry = {"min_rated_games": 1, "max_rating": 40}
    body = {**base, "starts_at": starts_at, "entry": entry}
    t = _ok(api.client.post("/v1/tournaments", json=body, headers=api.auth(org)), 201)
    assert t["config"]["starts_at"].endswith("Z") and t["config"]["entry"] == {
        "min_rated_games": 1, "min_rating": None, "max_rating": 40.0
    }  # fmt: skip
    path = f"/v1/tournaments/{t['id']}"
    refused = api.client.post(f"{path}/register", headers=api.auth(ada))
    assert refused.status_code == 422 and refused.json()["code"] == (
        "entry_condition.min_rated_games"
    )
    _ok(api.client.post(f"{path}/register", json={"bot": "random"}, headers=api.auth(org)))
    tabletop = api.client.app.state.tabletop  # type: ignore[attr-defined]
    tabletop.runner.caught_up(20)
    listed = _ok(api.client.get("/v1/tournaments", params={"status": "open"}))
    mine = next(x for x in listed["tournaments"] if x["id"] == t["id"])
    assert mine["starts_at"] == t["config"]["starts_at"]
    assert t["id"] in tabletop.reads.running_tournaments()  # the director looks at it


def test_an_arena_through_http_starts_with_its_end_and_forms_tables(api: Api) -> None:
    org = api.player("org")
    bad = {"game": "caylus", "format": "arena", "table_size": 2}
    refused = api.client.post("/v1/tournaments", json=bad, headers=api.auth(org))
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_duration"
    typo = {**bad, "duration_s": 600, "quiet_seconds": 30}
    refused = api.client.post("/v1/tournaments", json=typo, headers=api.auth(org))
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request.unknown_field"
    body = {**bad, "duration_s": 600, "quiet_s": 30}
    t = _ok(api.client.post("/v1/tournaments", json=body, headers=api.auth(org)), 201)
    assert (t["config"]["duration_s"], t["config"]["quiet_s"], t["ends_at"]) == (600, 30, None)
    path = f"/v1/tournaments/{t['id']}"
    for _ in range(5):
        _ok(api.client.post(f"{path}/register", json={"bot": "random"}, headers=api.auth(org)))
    started = _ok(api.client.post(f"{path}/start", headers=api.auth(org)))
    ends = datetime.fromisoformat(started["ends_at"])
    assert timedelta(seconds=599) < ends - datetime.now(UTC) <= timedelta(seconds=600)
    assert [len(x["seats"]) for x in started["rounds"][0]["tables"]] == [2, 2]  # one waits

    def more_tables() -> bool:  # games end, and their entrants are paired again at once
        return len(_ok(api.client.get(path))["rounds"][0]["tables"]) > 2

    wait_until(more_tables, 60, "tables formed again from the pool")
    line = _ok(api.client.get(path))["standings"][0]
    assert {"wins", "streak", "points", "games"} <= set(line)

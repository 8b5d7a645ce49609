"""A tournament through HTTP on both stores, as a new user would run one: create, register
players and bots, start, follow it to the end, read the standings, the leaderboard and the
profiles, and verify its export offline with its games' exports."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.api import Api


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
    board = _ok(api.client.get("/v1/leaderboards/santa-maria", params={"limit": 1}))
    assert board["players"][0]["place"] == 1 and board["next_cursor"]
    rest = _ok(
        api.client.get("/v1/leaderboards/santa-maria", params={"cursor": board["next_cursor"]})
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

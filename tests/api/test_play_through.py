"""A whole game through the API for every registered game: create with bots, play to the
end, replay at every version, export, audit, and verify the export offline."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from service.audit import fold_lines
from tests.conftest import all_games
from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def _finished_game(
    api: Api, game: str, seats: int, humans: bool = False
) -> tuple[str, dict[str, str]]:
    """A game played to the end by one player and random bots, or (`humans`) by players in
    every seat: on Postgres their moves are decided and saved on the event loop."""
    rng = random.Random(f"{base_seed()}/{game}")
    ada = api.player("ada")
    bots = {} if humans else {s: "random" for s in range(1, seats)}
    created = api.create(ada, game, seats, bots, seat=0)
    seated = {0: ada}
    if humans:
        for seat in range(1, seats):
            seated[seat] = api.player(f"p{seat}")
            joined = api.client.post(
                f"/v1/games/{created['id']}/join",
                json={"seat": seat},
                headers=api.auth(seated[seat]),
            )
            assert joined.status_code == 200, joined.text
    final = api.play_out(created["id"], seated, rng)
    assert final["status"] == "finished", final
    assert final["result"]["ranks"]
    return created["id"], ada


def _seats(api: Api, game: str) -> int:
    types = {t["name"]: t for t in api.client.get("/v1/game-types").json()}
    return min(max(3, types[game]["min_players"]), types[game]["max_players"])


@pytest.mark.parametrize("humans", [False, True], ids=["with-bots", "all-humans"])
@pytest.mark.parametrize("game", all_games())
def test_play_replay_export_verify(api: Api, game: str, humans: bool, tmp_path: Path) -> None:
    game_id, _ = _finished_game(api, game, _seats(api, game), humans)
    writes = api.client.app.state.tabletop.games.writes  # type: ignore[attr-defined]
    loop_writer = writes.loop_writer
    if humans and loop_writer is not None:  # Postgres: the moves were saved on the loop
        assert loop_writer.transactions > 0
    exported = api.client.get(f"/v1/games/{game_id}/export")
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert lines[0]["format"] == "tabletop-game/2" and "seed" in lines[-1]
    audit = api.client.get(f"/v1/games/{game_id}/audit").json()
    assert audit["verified"] is True, audit
    file = tmp_path / "game.ndjson"
    file.write_text(exported.text)
    verified = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", str(file)], capture_output=True, text=True
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["verified"] is True
    shown = subprocess.run(
        [sys.executable, "-m", "api.cli", "replay", str(file), "--version", "3"],
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0 and json.loads(shown.stdout)["version"] == 3


@pytest.mark.parametrize("game", all_games())
def test_replay_at_every_version_equals_the_fold(api: Api, game: str) -> None:
    game_id, _ = _finished_game(api, game, _seats(api, game))
    lines = [
        json.loads(x) for x in api.client.get(f"/v1/games/{game_id}/export").text.split("\n") if x
    ]
    last = lines[-2]["version"]
    versions = (
        range(1, last + 1)
        if last <= 400
        else sorted({1, last, *random.Random(last).sample(range(1, last + 1), 400)})
    )
    for n in versions:
        replayed = api.client.get(f"/v1/games/{game_id}/replay", params={"version": n})
        assert replayed.status_code == 200, replayed.text
        body = replayed.json()
        fold = fold_lines(lines, n)
        assert body["version"] == n
        assert body["status"] == fold.status
        assert body["awaiting"] == fold.awaiting()
        assert body["state"] == json.loads(json.dumps(_builtins(fold.state))), n
    for bad in (0, -1, last + 1):
        refused = api.client.get(f"/v1/games/{game_id}/replay", params={"version": bad})
        assert refused.status_code == 422
        assert refused.headers["content-type"] == "application/problem+json"


def _builtins(state: object) -> object:
    import msgspec

    return msgspec.to_builtins(state)


def test_cli_verify_refuses_garbage(tmp_path: Path) -> None:
    file = tmp_path / "bad.ndjson"
    file.write_text('{"format": "tabletop-game/1"}\n')
    result = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", str(file)], capture_output=True, text=True
    )
    assert result.returncode == 1

"""As a new user would: play a game with chosen client seeds on a live server (Postgres),
export it, verify it offline with the server's public key and a saved tree head
(`tabletop verify --key --head`), and watch `tabletop monitor` catch a rewritten game, and
the server refuse to sign over a rewritten log."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest

from service.clocks import micros, stamp
from service.settings import Settings
from service.transparency import HEADS_STREAM, LEAVES_STREAM
from tests.support.api import Api
from tests.support.serve import serve
from tests.trust.rewrite import delete_stream, rewrite_game, rewrite_json


class Served:
    """`tabletop serve` on the test's schema, restartable (an operator's restart)."""

    def __init__(self, settings: Settings) -> None:
        self.env = {**os.environ, "DATABASE_URL": settings.database_url or ""}
        self.env.pop("TABLETOP_PROJECTIONS", None)
        self.server: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.start()

    def start(self) -> None:
        self.server, self.url = serve(self.env)

    def stop(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            self.server.wait(20)


@pytest.fixture
def served(pg_settings: Settings) -> Iterator[Served]:
    running = Served(pg_settings)
    try:
        yield running
    finally:
        running.stop()


def _cli(*args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, timeout=120
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def _export(url: str, game_id: str, file: Path, tree_size: int | None = None) -> Path:
    query = {} if tree_size is None else {"tree_size": tree_size}
    answer = httpx.get(f"{url}/v1/games/{game_id}/export", params=query, timeout=30)
    assert answer.status_code == 200, answer.text
    file.write_text(answer.text)
    return file


def test_a_player_proves_a_result_and_the_monitor_catches_a_rewrite(
    served: Served, pg_settings: Settings, tmp_path: Path
) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        api = Api(http)
        ada, bob = api.player("ada"), api.player("bob")
        game = api.create(ada, "secret-duel", 3, {2: "random"}, seat=0, client_seed="ada-7")
        joined = http.post(
            f"/v1/games/{game['id']}/join", json={"client_seed": "bob-42"}, headers=api.auth(bob)
        )
        assert joined.status_code == 200, joined.text
        api.play_out(game["id"], {0: ada, 1: bob}, random.Random(11))
    game_id = game["id"]
    state = tmp_path / "monitor.json"
    keys = f"{served.url}/v1/keys"

    # 1. the monitor saves the log's first head; the export verifies offline against it
    code, seen = _cli("monitor", "--state", str(state), served.url)
    assert code == 0 and seen["consistent"] and seen["tree_size"] == 1
    (tmp_path / "keys.json").write_text(httpx.get(keys).text)
    exported = _export(served.url, game_id, tmp_path / "game.ndjson")
    code, report = _cli(
        "verify", str(exported), "--key", str(tmp_path / "keys.json"), "--head", str(state)
    )
    assert code == 0, report
    assert report["client_seeds"][:2] == ["ada-7", "bob-42"]
    seal = report["seal"]
    assert (seal["signature"], seal["inclusion"], seal["head_signature"]) == ("valid",) * 3
    assert seal["saved_head"] == "same"

    # 2. an insider rewrites the finished game (its last event a minute later) and hashes
    # its chain again: chain, seed and re-execution all pass, the inclusion proof does not
    def later(version: int, event: dict[str, Any]) -> None:
        if event["type"] == "game_finished":
            event["at"] = stamp(
                micros(event["at"]) + int(timedelta(minutes=1).total_seconds() * 1e6)
            )

    rewrite_game(pg_settings, UUID(game_id), later)
    rewritten = _export(served.url, game_id, tmp_path / "rewritten.ndjson")
    code, report = _cli("verify", str(rewritten), "--key", keys)
    assert code == 1
    assert report["chain_intact"] and report["seed_matches_commitment"] and report["reexecuted"]
    assert report["seal"]["signature"] == "valid"  # the service signs what it serves...
    assert report["seal"]["inclusion"] == "invalid"  # ...but its log holds the first ending
    assert report["tampered"]  # ...which the export's own chain is checked against
    code, seen = _cli("monitor", "--state", str(state), served.url)
    assert code == 1 and seen["consistent"]  # the log itself was not touched...
    assert [t["game"] for t in seen["tampered"]] == [game_id]  # ...the game it holds was

    # 3. the insider rewrites the log's leaf too and restarts: the stored heads are not the
    # root of the stored leaves, and the server signs nothing over them
    final_hash = json.loads(rewritten.read_text().splitlines()[-2])["hash"]
    rewrite_json(pg_settings, LEAVES_STREAM, 1, {"final_hash": final_hash})
    served.stop()
    served.start()
    refused = httpx.get(f"{served.url}/v1/transparency/head", timeout=30)
    assert (refused.status_code, refused.json()["code"]) == (503, "log_inconsistent")

    # 4. ... deletes the heads that betray it too, restarts, and a game ends: the new head
    # vouches for the rewritten game, and the monitor finds the history rewritten
    delete_stream(pg_settings, HEADS_STREAM)
    served.stop()
    served.start()
    signed = httpx.get(f"{served.url}/v1/transparency/head", timeout=30).json()
    assert signed["tree_size"] == 1  # a head over the rewritten tree of 1 leaf
    with httpx.Client(base_url=served.url, timeout=30) as http:
        api = Api(http)
        ended = api.create(api.player("cy"), "secret-duel", 2, {0: "random", 1: "random"})
        assert api.settled(ended["id"])["status"] == "finished"  # its bots played it out
    keys = f"{served.url}/v1/keys"  # (on its new port)
    again = _export(served.url, game_id, tmp_path / "again.ndjson")
    code, report = _cli("verify", str(again), "--key", keys)
    assert code == 0 and report["seal"]["tree_size"] == 2  # fooled without a saved head
    at_saved = _export(served.url, game_id, tmp_path / "at-saved.ndjson", tree_size=1)
    code, report = _cli("verify", str(at_saved), "--key", keys, "--head", str(state))
    assert code == 1 and report["seal"]["saved_head"] == "differs"  # re-signed over 1 leaf
    before = state.read_text()
    code, seen = _cli("monitor", "--state", str(state), served.url)
    assert code == 1 and not seen["consistent"]
    assert seen["previous_tree_size"] == 1 and seen["tree_size"] == 2
    assert "rewritten" in " ".join(seen["problems"])
    assert state.read_text() == before  # the last good head is kept

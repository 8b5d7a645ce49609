"""An insider with the database changes a finished game under the service (issue 27's
audit): a seat renamed and the chain redone, the last events deleted, two events swapped
and the chain redone. Each is caught by the audit, by `tabletop verify` (of an export
fresh or saved before, and of the game by its id), by the sentinel (the server's own, and
`tabletop sentinel run`) and by `tabletop monitor`; /health says so (still 200) and
/metrics counts it."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from service.settings import Settings
from tests.support.waits import wait_until
from tests.trust.rewrite import delete_tail, rewrite_game, swap_events
from tests.trust.tampering import (
    cli,
    events,
    export,
    finished_game,
    health,
    sentinel_once,
    served,
    tampered_gauge,
)


def _renamed(to: str) -> Any:
    def rename(version: int, event: dict[str, Any]) -> None:
        if event["type"] == "seat_taken" and event["data"]["seat"] == 0:
            event["data"] = {**event["data"], "name": to}

    return rename


def test_a_seat_renamed_with_its_chain_redone(pg_settings: Settings, tmp_path: Path) -> None:
    state = tmp_path / "monitor.json"
    with served(pg_settings) as (http, api, url):
        game_id = finished_game(http, api)
        saved = export(http, game_id, tmp_path / "saved.ndjson")
        code, seen, _ = cli("monitor", "--state", str(state), url)
        assert code == 0 and seen["games_checked"] == 1 and seen["tampered"] == []
        assert health(http) == {"status": "ok"} and tampered_gauge(http) == 0
        renamed = next(e["version"] for e in events(saved) if e["type"] == "seat_taken"
                       and e["data"]["seat"] == 0)  # fmt: skip

        rewrite_game(pg_settings, UUID(game_id), _renamed("mallory"))

        # the server's sentinel finds it by itself: /health degraded (200), the gauge
        wait_until(lambda: health(http).get("tampered_games") == 1, 20, "the sentinel")
        assert health(http) == {"status": "degraded", "tampered_games": 1, "tampered": [game_id]}
        assert tampered_gauge(http) == 1
        report = http.get(f"/v1/games/{game_id}/audit").json()
        assert report["chain_intact"] and report["reexecuted"]  # all it checked before...
        assert report["tampered"] and not report["verified"]  # ...and what it checks now
        assert report["tamper"]["what"] == "final_hash_differs"
        # a fresh export: its chain against the leaf its footer carries
        fresh = export(http, game_id, tmp_path / "fresh.ndjson")
        code, out, _ = cli("verify", str(fresh))
        assert code == 1 and out["tampered"] and out["tamper"]["what"] == "final_hash_differs"
        # the export saved before against the game as served: the version edited
        code, out, _ = cli("verify", str(saved), "--server", url)
        assert code == 1 and out["tampered"]
        assert out["tamper"]["first_version"] == renamed and "data" in out["tamper"]["detail"]
        # no export: the game as served against its leaf
        code, out, _ = cli("verify", "--game", game_id, "--server", url)
        assert code == 1 and out["tampered"] and not out["verified"]
        code, out, log = sentinel_once(pg_settings)
        assert code == 1 and [t["game"] for t in out["tampered"]] == [game_id]
        assert '"event":"game_tampered"' in log and game_id in log
        code, seen, _ = cli("monitor", "--state", str(state), url)
        assert code == 1 and seen["consistent"]  # the log itself was not touched...
        assert [t["game"] for t in seen["tampered"]] == [game_id]  # ...the game was

        # restored, the sentinel clears it: /health says ok again
        rewrite_game(pg_settings, UUID(game_id), _renamed("ada"))
        wait_until(lambda: health(http) == {"status": "ok"}, 20, "the sentinel clears it")
        assert tampered_gauge(http) == 0
        assert http.get(f"/v1/games/{game_id}/audit").json()["verified"]


def test_the_last_events_deleted_from_a_finished_game(
    pg_settings: Settings, tmp_path: Path
) -> None:
    with served(pg_settings) as (http, api, url):
        game_id = finished_game(http, api)
        saved = export(http, game_id, tmp_path / "saved.ndjson")
        last = events(saved)[-1]["version"]
    left = delete_tail(pg_settings, UUID(game_id), 5)
    # restarted (no bots to play on, no sentinel of its own): the game reads running
    with served(pg_settings, TABLETOP_BOTS="elsewhere", TABLETOP_SENTINEL="elsewhere") as (
        http,
        _,
        url,
    ):
        game = http.get(f"/v1/games/{game_id}").json()
        assert (game["status"], game["version"]) == ("active", left)
        refused = http.get(f"/v1/games/{game_id}/export")
        assert (refused.status_code, refused.json()["code"]) == (409, "game_tampered")
        report = http.get(f"/v1/games/{game_id}/audit").json()
        assert report["tampered"] and not report["verified"]
        missing = {"what": "not_ended", "first_version": left + 1, "logged_version": last}
        assert {k: report["tamper"][k] for k in missing} == missing
        assert report["tamper"]["stored_events"] == left
        code, out, _ = cli("verify", "--game", game_id, "--server", url)
        assert code == 1 and {k: out["tamper"][k] for k in missing} == missing
        code, out, _ = cli("verify", str(saved), "--server", url)
        assert code == 1 and out["tamper"]["first_version"] == left + 1
        code, out, log = sentinel_once(pg_settings)
        assert code == 1 and {k: out["tampered"][0][k] for k in missing} == missing
        assert "game_tampered" in log
        # found by another process, reported by this one: the findings are in the store
        wait_until(lambda: health(http).get("tampered_games") == 1, 10, "the finding read")
        assert tampered_gauge(http) == 1
        code, seen, _ = cli("monitor", "--state", str(tmp_path / "m.json"), url)
        assert code == 1 and {k: seen["tampered"][0][k] for k in missing} == missing


def test_two_events_swapped_with_the_chain_redone(pg_settings: Settings, tmp_path: Path) -> None:
    with served(pg_settings, TABLETOP_SENTINEL="elsewhere") as (http, api, url):
        game_id = finished_game(http, api, seed=2)
        saved = export(http, game_id, tmp_path / "saved.ndjson")
        decisions = [e["version"] for e in events(saved) if isinstance(e["seat"], int)]
        first, second = decisions[-3], decisions[-2]

        swap_events(pg_settings, UUID(game_id), first, second)

        report = http.get(f"/v1/games/{game_id}/audit").json()
        assert report["chain_intact"] and report["tampered"] and not report["verified"]
        assert report["tamper"]["what"] == "final_hash_differs"
        code, out, _ = cli("verify", str(export(http, game_id, tmp_path / "fresh.ndjson")))
        assert code == 1 and out["tampered"]
        code, out, _ = cli("verify", str(saved), "--server", url)
        assert code == 1 and out["tamper"]["first_version"] == first
        code, out, _ = cli("verify", "--game", game_id, "--server", url)
        assert code == 1 and out["tampered"]
        code, out, _ = sentinel_once(pg_settings)
        assert code == 1 and out["tampered"][0]["what"] == "final_hash_differs"
        code, seen, _ = cli("monitor", "--state", str(tmp_path / "m.json"), url)
        assert code == 1 and seen["tampered"][0]["game"] == game_id

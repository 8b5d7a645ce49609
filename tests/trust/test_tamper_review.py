"""Tampering an independent review tried beyond the issue's cases: events deleted under a
server that holds the game in its cache (its export must refuse, never serve a record
without its end, never fail with a 500), and a game deleted and stored again, changed,
with new positions in the log (the log must not give it a second leaf, which the sentinel
would then find matching and clear the finding by)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import structlog.testing

from service.findings import Findings
from service.settings import Settings
from service.store import open_store
from service.tamper import Tamper
from tests.support.waits import wait_until
from tests.trust.rewrite import delete_stream, delete_tail, rewrite_game
from tests.trust.tampering import finished_game, health, sentinel_once, served


def test_the_export_of_a_cached_game_whose_events_were_deleted_is_refused(
    pg_settings: Settings,
) -> None:
    with served(pg_settings, TABLETOP_SENTINEL="elsewhere") as (http, api, _):
        tail_gone = finished_game(http, api, seed=1)
        all_gone = finished_game(http, api, seed=2)
        assert http.get(f"/v1/games/{tail_gone}/export").status_code == 200  # (now cached)
        assert http.get(f"/v1/games/{all_gone}/export").status_code == 200
        delete_tail(pg_settings, UUID(tail_gone), 3)
        delete_stream(pg_settings, UUID(all_gone))
        for game_id in (tail_gone, all_gone):
            refused = http.get(f"/v1/games/{game_id}/export")
            assert (refused.status_code, refused.json()["code"]) == (409, "game_tampered")
            report = http.get(f"/v1/games/{game_id}/audit").json()
            assert report["tampered"] and not report["verified"]


def _stored_again(settings: Settings, game_id: UUID) -> None:
    """Delete the game's records and insert them again (new positions in the log), as a
    restore of a changed copy would."""
    url, _, query = (settings.database_url or "").partition("?")
    schema = dict(part.split("=", 1) for part in query.split("&"))["schema"]
    table = f'"{schema}".tabletop_events'
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        rows = conn.execute(
            f"SELECT originator_id, originator_version, topic, state FROM {table}"
            " WHERE originator_id = %s ORDER BY originator_version",
            (game_id,),
        ).fetchall()
        conn.execute(f"DELETE FROM {table} WHERE originator_id = %s", (game_id,))
        for row in rows:
            conn.execute(
                f"INSERT INTO {table} (originator_id, originator_version, topic, state)"
                " VALUES (%s, %s, %s, %s)",
                row,
            )


def test_a_game_stored_again_changed_gets_no_second_leaf(
    pg_settings: Settings, tmp_path: Path
) -> None:
    with served(pg_settings, TABLETOP_SENTINEL="elsewhere") as (http, api, _):
        game_id = finished_game(http, api, seed=3)

        def renamed(version: int, event: dict[str, Any]) -> None:
            data = event["data"]
            if version == 2 and isinstance(data, dict) and "name" in data:
                data["name"] = "mallory"

        rewrite_game(pg_settings, UUID(game_id), renamed)
        _stored_again(pg_settings, UUID(game_id))
        later = finished_game(http, api, seed=4)  # the log has read past the new positions
        leaves = http.get("/v1/transparency/leaves", params={"limit": 100}).json()["leaves"]
        subjects = [leaf["id"] for leaf in leaves]
        assert subjects.count(game_id) == 1 and later in subjects, subjects
        for _ in range(2):  # a pass that cleared it would show in the next one
            code, out, _ = sentinel_once(pg_settings)
            assert code == 1 and [t["game"] for t in out["tampered"]] == [game_id], out
        wait_until(lambda: health(http).get("tampered") == [game_id], 10, "the finding read")


def test_a_finding_is_logged_when_new_then_at_most_every_minute(
    sqlite_settings: Settings,
) -> None:
    """Anyone may ask a tampered game's audit, as often as they like: its error line is
    written when the finding is new, not once per request."""
    store = open_store(sqlite_settings)
    try:
        findings = Findings(store)
        tamper = Tamper(game=str(uuid4()), what="final_hash_differs", first_version=None,
                        stored_events=3, logged_version=3, logged_hash="a" * 64,
                        stored_hash="b" * 64, detail="the final hash differs")  # fmt: skip
        with structlog.testing.capture_logs() as logs:
            for _ in range(5):
                findings.found(tamper)
        assert [e["event"] for e in logs].count("game_tampered") == 1
        assert list(findings.tampered()) == [tamper.game]
    finally:
        store.close()

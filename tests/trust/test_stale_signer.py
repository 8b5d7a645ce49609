"""Only the holder of the transparency log's lock signs heads, and only over the tree the
store holds (issue 27: while the log was rewritten, a process still holding the old tree
signed two more heads). A process that lost the lock, or whose tree the stored log no
longer extends, refuses to sign and says so; a head asked of it is a 503, never a head of
a stale tree."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import psycopg
import pytest
from structlog.testing import capture_logs

from service.role_lock import RoleLock
from service.settings import Settings
from service.signing import Signer
from service.store import open_store
from service.transparency import (
    HEADS_STREAM,
    LEAVES_STREAM,
    HeadSigned,
    LogRefused,
    TransparencyLog,
    head_out,
)
from tests.support.waits import wait_until
from tests.trust.rewrite import rewrite_game, rewrite_json
from tests.trust.tampering import cli, export, finished_game, health, served
from tests.trust.test_tampered_games import _renamed


def _end_session_of(settings: Settings, role: str) -> None:
    """End the database session holding a role's lock (the connection cut, the database
    restarted under it): the lock is free, its holder does not know yet."""
    name = RoleLock(settings, role).name
    url = (settings.database_url or "").partition("?")[0]
    with psycopg.connect(url, autocommit=True) as conn:
        ended = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
            " AND objid::bigint = (hashtext(%s)::bigint & 4294967295)",
            (name,),
        ).fetchall()
    assert ended == [(True,)]


def test_a_server_that_lost_the_lock_refuses_to_sign(pg_settings: Settings) -> None:
    store = open_store(pg_settings)
    lock = RoleLock(pg_settings, "transparency")
    try:
        with served(pg_settings) as (http, api, _), capture_logs() as logged:
            finished_game(http, api)
            _end_session_of(pg_settings, "transparency")
            other = TransparencyLog(store, Signer(store))  # another process takes the lock
            wait_until(lambda: other.take(lock), 5, "the lock free (its session ended)")
            game = api.create(api.player("bo"), "secret-duel", 2, {0: "random", 1: "random"})
            assert api.settled(game["id"])["status"] == "finished"

            refused = http.get("/v1/transparency/head")  # a game to log, and no lock
            assert refused.status_code == 503, refused.text
            assert refused.json()["code"] == "log_signer_lost"
            said = [e for e in logged if e["event"] == "transparency_refuses_to_sign"]
            assert said and "lost the log's lock" in said[0]["reason"]
            other.sync()  # the holder signs: the server answers with its head
            head = http.get("/v1/transparency/head").json()
            assert head == head_out(other.head()) and head["tree_size"] == 2
    finally:
        lock.release()
        store.close()


def test_a_log_rewritten_under_its_signer(pg_settings: Settings, tmp_path: Path) -> None:
    state = tmp_path / "monitor.json"
    with served(pg_settings) as (http, api, url):
        game_id = finished_game(http, api)
        finished_game(http, api, seed=3)
        code, _, _ = cli("monitor", "--state", str(state), url)
        assert code == 0
        # the insider rewrites the game and its leaf: the store's log vouches for the edit
        rewrite_game(pg_settings, UUID(game_id), _renamed("mallory"))
        rewritten = export(http, game_id, tmp_path / "rewritten.ndjson")
        final_hash = json.loads(rewritten.read_text().splitlines()[-2])["hash"]
        rewrite_json(pg_settings, LEAVES_STREAM, 1, {"final_hash": final_hash})

        # the server re-reads its log, finds it rewritten, and signs no more
        wait_until(lambda: health(http).get("log_refusal"), 20, "the log re-read")
        assert health(http)["status"] == "degraded"
        refused = http.get("/v1/transparency/head")
        assert (refused.status_code, refused.json()["code"]) == (503, "log_inconsistent")
        # its audit and its sentinel still hold the leaf it logged: the game is tampered
        report = http.get(f"/v1/games/{game_id}/audit").json()
        assert report["tampered"] and report["tamper"]["what"] == "final_hash_differs"
        wait_until(lambda: health(http).get("tampered_games") == 1, 20, "the sentinel")
        code, out, _ = cli("verify", "--game", game_id, "--server", url)
        assert code == 1 and not out["verified"] and "503" in out["detail"]
        code, seen, _ = cli("monitor", "--state", str(state), url)
        assert code == 1 and "log_inconsistent" in seen["problems"][0]
    # restarted on the rewritten store: its heads are of another tree than its leaves
    with served(pg_settings) as (http, _, url):
        refused = http.get("/v1/transparency/head")
        assert (refused.status_code, refused.json()["code"]) == (503, "log_inconsistent")
        assert "log was rewritten" in health(http)["log_refusal"]


def test_heads_of_two_trees_in_the_store_are_refused(any_settings: Settings) -> None:
    """A head a stale process signed over the tree it held, stored beside the others: any
    process reading the log finds it is not the root of the stored leaves."""
    store = open_store(any_settings)
    try:
        log = TransparencyLog(store, Signer(store))
        assert log.take(RoleLock(any_settings, "transparency"))
        log.sync()  # the empty tree's head
        good = log.head()
        stale = HeadSigned(
            originator_id=HEADS_STREAM,
            originator_version=good.originator_version + 1,
            timestamp=HeadSigned.create_timestamp(),
            tree_size=0,
            root_hash="ab" * 32,
            signed_at=good.signed_at,
            key_id=good.key_id,
            signature=good.signature,
        )
        store.save(stale)
        for reader in (log, TransparencyLog(store, Signer(store))):
            with pytest.raises(LogRefused) as refused:
                reader.head()
            assert refused.value.code == "log_inconsistent"
            assert "two trees" in refused.value.detail
    finally:
        store.close()


def test_a_process_without_the_lock_reads_and_never_signs(pg_settings: Settings) -> None:
    store = open_store(pg_settings)
    try:
        log = TransparencyLog(store, Signer(store))
        with pytest.raises(LogRefused) as refused:
            log.head()  # nothing signed yet, and it may not sign
        assert refused.value.code == "log_not_signed"
        assert list(store.events.get(HEADS_STREAM)) == []
    finally:
        store.close()

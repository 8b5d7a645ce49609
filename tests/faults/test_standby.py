"""A primary and a hot standby (pg_basebackup, streaming replication) on loopback, the API
reading history, exports and lists from the standby (TABLETOP_READ_DATABASE_URL), as
docs/operations.md describes:

- a game's events, export and audit read right after its last move show that move, whether
  the standby has replayed it yet or not: the primary answers when the standby is behind,
  even when its replay is paused;
- the lists (games, profiles) come from the standby's read models and trail the writes by
  the replication lag, as the document says: while replay is paused a finished game is not
  listed as finished, and is once replay resumes;
- with the standby gone, the primary answers all of them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.faults.clients import Table, Target, check_exactly_once
from tests.faults.conftest import Server, server_env
from tests.support.cluster import Cluster
from tests.support.waits import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("faults")]


class Verifier(Table):
    """Reads each game's history the moment its last move is acknowledged."""

    def game_over(self, game: str) -> None:
        state = self.expect(self.send("GET", f"/v1/games/{game}"), 200)
        final = state["version"]
        page = self.expect(self.send("GET", f"/v1/games/{game}/events?after={final - 1}"), 200)
        assert [e["version"] for e in page["events"]] == [final], page
        export = self.send("GET", f"/v1/games/{game}/export")
        assert f'"version":{final},' in export.text.replace(" ", ""), export.text[-500:]
        audit = self.expect(self.send("GET", f"/v1/games/{game}/audit"), 200)
        assert audit["verified"] and audit["events"] == final, audit


def _history_reads(url: str) -> dict[str, int]:
    text = httpx.get(f"{url}/metrics", timeout=10).text
    found = re.findall(r'^tabletop_history_reads_total{source="(\w+)"} (\S+)$', text, re.M)
    return {source: int(float(count)) for source, count in found}


def _listed_finished(url: str, player: str, game: str) -> bool:
    query = {"player": player, "status": "finished"}
    page = httpx.get(f"{url}/v1/games", params=query, timeout=60)
    assert page.status_code == 200, page.text
    return any(g["id"] == game for g in page.json()["games"])


def _projected(database_url: str, game: str) -> str | None:
    """The game's status in the primary's read model."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT status FROM rm_games WHERE game_id = %s", (game,)).fetchone()
        return str(row[0]) if row else None


@pytest.fixture
def standby(cluster: Cluster, database: str) -> Iterator[Cluster]:
    made = cluster.standby()
    try:
        yield made
    finally:
        made.remove()


def test_reads_from_a_hot_standby(database: str, standby: Cluster, tmp_path: Path) -> None:
    read_url = standby.url(database.rsplit("/", 1)[1])
    env = server_env(database, TABLETOP_READ_DATABASE_URL=read_url)
    server = Server(env, tmp_path / "serve.log")
    server.start()
    try:
        target = Target(server.url)
        tables = [Verifier(target, games=1, seed=i) for i in range(3)]
        for table in tables:
            table.start()
        for table in tables:
            table.finish(120)
        served = _history_reads(server.url)
        assert served.get("standby", 0) > 0, served  # the standby answers when caught up

        with psycopg.connect(read_url, autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_pause()")
            late = Verifier(target, games=1, seed=9)
            late.run()  # its history still reads complete, from the primary
            assert late.error is None, late.error
            assert _history_reads(server.url)["primary"] > served.get("primary", 0)
            game, player = late.games[0], late.players[0]["id"]
            wait_until(lambda: _projected(database, game) == "finished", 30, "projected")
            assert not _listed_finished(server.url, player, game)  # the standby's lists trail
            conn.execute("SELECT pg_wal_replay_resume()")
        wait_until(lambda: _listed_finished(server.url, player, game), 30, "listed finished")
        assert check_exactly_once(server.url, [*tables, late]) > 0
        standby.stop("immediate")  # the standby lost: the primary answers what it did
        assert check_exactly_once(server.url, [late]) > 0
        assert _listed_finished(server.url, player, game)
        print("history reads:", _history_reads(server.url))
    finally:
        server.stop()

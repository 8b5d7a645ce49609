"""The read model keeps the version of its shape (projections/views.py, READ_MODEL_VERSION):
one built by another version, or before versions were kept (the rating history without its
time, change and games), is dropped when the tables are created, and the runner rebuilds it
from the log, row for row what the current code builds."""

from __future__ import annotations

import random
from typing import Any

import psycopg
from litestar.testing import TestClient

from api.main import build
from projections.views import READ_MODEL_VERSION
from service.settings import Settings
from tests.support.api import Api


def _played(settings: Settings) -> dict[str, list[tuple[Any, ...]]]:
    with TestClient(build(settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        rng = random.Random(11)
        for bots in ({1: "random"}, {1: "random"}):
            game = api.create(ada, "secret-duel", 2, bots, seat=0, rated=True)
            api.play_out(game["id"], {0: ada}, rng)
        tabletop = client.app.state.tabletop
        tabletop.runner.caught_up(30)
        return dict(tabletop.reads.snapshot())


def _restarted(settings: Settings) -> dict[str, list[tuple[Any, ...]]]:
    with TestClient(build(settings)) as client:
        tabletop = client.app.state.tabletop
        tabletop.runner.caught_up(30)
        return dict(tabletop.reads.snapshot())


def test_a_read_model_of_another_version_is_rebuilt(pg_settings: Settings) -> None:
    built = _played(pg_settings)
    assert built["history"] and built["ratings"]
    url = str(pg_settings.database_url)
    schema = url.split("schema=")[1].split("&")[0]
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        # as the code before versions left it: no rm_meta, the history's old columns
        conn.execute("DROP TABLE rm_meta")
        conn.execute("ALTER TABLE rm_rating_history DROP COLUMN ended_at,"
                     " DROP COLUMN change, DROP COLUMN games")  # fmt: skip
        conn.execute("DELETE FROM rm_ratings")  # (so that its rebuild shows)
    assert _restarted(pg_settings) == built
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        kept = conn.execute("SELECT value FROM rm_meta WHERE name = 'version'").fetchone()
        assert kept == (str(READ_MODEL_VERSION),)
        conn.execute("UPDATE rm_meta SET value = '1' WHERE name = 'version'")  # another
        conn.execute("DELETE FROM rm_rating_history")
    assert _restarted(pg_settings) == built
    # the same version: nothing is dropped (a row changed by hand stays changed)
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute("UPDATE rm_ratings SET name = 'renamed'")
    assert _restarted(pg_settings)["ratings"] != built["ratings"]

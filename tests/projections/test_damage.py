"""A stored record changed behind the service's back is damage to one game: the read models
of every other game go on past it (the runner neither stops nor keeps an error)."""

from __future__ import annotations

import random

import psycopg
import pytest

from projections.runner import GamesRunner, view_for
from service.settings import Settings
from service.store import MsgspecTranscoder, open_store
from tests.projections.conftest import bot_games
from tests.support.games import GameService, close_over


def _damage(pg_url: str, settings: Settings, game_id: object, version: int, how: str) -> None:
    assert settings.database_url is not None
    schema = settings.database_url.split("schema=")[1].split("&")[0]
    table = f'"{schema}".tabletop_events'
    where = "WHERE originator_id = %s AND originator_version = %s"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (state,) = conn.execute(f"SELECT state FROM {table} {where}", (game_id, version)).fetchone()
        if how == "unparsable":  # half of its bytes
            changed = bytes(state)[: len(state) // 2]
        else:  # parses, but names an event the game does not know: it no longer folds
            transcoder = MsgspecTranscoder()  # whichever form it is stored in
            record = transcoder.decode(bytes(state))
            record["type"] = "no_such_event"
            changed = transcoder.encode(record)
        conn.execute(f"UPDATE {table} SET state = %s {where}", (changed, game_id, version))


@pytest.mark.parametrize("how", ["unparsable", "unfoldable"])
def test_a_damaged_record_does_not_stop_the_read_models(
    pg_settings: Settings, pg_url: str, how: str
) -> None:
    store = open_store(pg_settings)
    try:
        damaged, healthy = bot_games(GameService(store), 2, random.Random(5))  # both over
        _damage(pg_url, pg_settings, damaged.id, damaged.version - 1, how)
        runner = GamesRunner(pg_settings)  # starts after the damage: it must read it
        try:
            runner.caught_up(timeout=30)
        finally:
            runner.close()  # raises what the runner's thread died of, if it died
        view = view_for(store)
        assert view.max_tracking_id(store.name) == store.recorder.max_notification_id()
        rows = {row[0]: row for row in view.snapshot()["games"]}
        status, version = rows[str(healthy.id)][3:5]
        assert (status, version) == ("finished", healthy.version)  # logged after the damage
        if str(damaged.id) in rows:  # left as it was before its damaged event
            assert rows[str(damaged.id)][4] < damaged.version - 1
    finally:
        close_over(store)
        store.close()

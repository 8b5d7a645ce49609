"""Changing one byte of one stored event directly in Postgres is caught: the audit and
`tabletop verify` name that version."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import msgspec
import psycopg
import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Settings
from tests.support.api import Api
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def _schema(settings: Settings) -> str:
    assert settings.database_url is not None
    return settings.database_url.split("schema=")[1].split("&")[0]


@pytest.mark.parametrize("where", ["data", "anywhere"])
def test_one_changed_byte_is_named(
    pg_api: Api, pg_settings: Settings, pg_url: str, tmp_path: Path, where: str
) -> None:
    ada = pg_api.player("ada")
    game = pg_api.create(ada, "secret-duel", 3, {1: "random", 2: "random"}, seat=0)["id"]
    pg_api.play_out(game, {0: ada}, random.Random(7))
    assert pg_api.client.get(f"/v1/games/{game}/audit").json()["verified"] is True
    rng = random.Random(f"{base_seed()}/tamper/{where}")
    schema = _schema(pg_settings)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        table = f'"{schema}".tabletop_events'
        versions = [
            v
            for (v,) in conn.execute(
                f"SELECT originator_version FROM {table} WHERE originator_id = %s", (game,)
            )
        ]
        version = rng.choice(versions)
        (state,) = conn.execute(
            f"SELECT state FROM {table} WHERE originator_id = %s AND originator_version = %s",
            (game, version),
        ).fetchone()
        text = bytes(state)
        # a byte inside the event's own data (the record still parses), or any byte at all,
        # which may leave the record unreadable
        at = inside_data(text) if where == "data" else rng.randrange(len(text))
        changed = text[:at] + bytes([text[at] ^ 1]) + text[at + 1 :]
        conn.execute(
            f"UPDATE {table} SET state = %s WHERE originator_id = %s AND originator_version = %s",
            (changed, game, version),
        )
    audit = pg_api.client.get(f"/v1/games/{game}/audit").json()
    assert audit["verified"] is False
    assert audit["first_broken_version"] == version, (audit, version, at)
    exported = pg_api.client.get(f"/v1/games/{game}/export")
    file = tmp_path / "tampered.ndjson"
    file.write_text(exported.text)
    result = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", str(file)], capture_output=True, text=True
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["first_broken_version"] == version


def flips_a_value(text: bytes) -> bool:
    """Whether inside_data's byte is a digit or a small number, whose change leaves a record
    that still reads (a changed key or name would leave one that no longer does)."""
    at = inside_data(text)
    if text[:1] == b"{":
        return text[at : at + 1].isdigit()
    return text[at] < 0x80 and bool(msgspec.msgpack.decode(text)[6])


def inside_data(text: bytes) -> int:
    """Where to flip the lowest bit of a byte of the event's own data so that the record
    still parses: a digit of its JSON, or in a packed record (service/store.py) the first
    value of the data's map when it is a small integer or a string, else a letter of its
    first key."""
    if text[:1] == b"{":
        start = text.index(b'"data":') + len(b'"data":')
        digits = [i for i in range(start, len(text)) if text[i : i + 1].isdigit()]
        return digits[0] if digits else start + 2
    items = msgspec.msgpack.decode(text)
    start = len(msgspec.msgpack.encode(items[:6]))  # one-byte array headers, both
    data = items[6]
    assert isinstance(data, dict) and text[start] == 0x80 + len(data), "a small map"
    if not data:
        return start + 2  # past the empty map: the previous hash's bytes
    key = next(iter(data))
    assert len(key) < 32 and text[start + 1] == 0xA0 + len(key)
    value = start + 2 + len(key)
    if text[value] < 0x80:  # a positive fixint
        return value
    if 0xA1 <= text[value] <= 0xBF:  # a short string: its first character
        return value + 1
    return start + 2


def test_a_record_that_no_longer_reads_is_a_damaged_game_not_a_server_error(
    pg_api: Api, pg_settings: Settings, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = pg_api.player("ada")
    game = pg_api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    pg_api.play_out(game, {0: ada}, random.Random(3))
    table = f'"{_schema(pg_settings)}".tabletop_events'
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(  # half of version 5's record: it no longer parses
            f"UPDATE {table} SET state = substring(state from 1 for length(state) / 2)"
            " WHERE originator_id = %s AND originator_version = 5",
            (game,),
        )
    # Another process: nothing cached. The first runs the database's projection runner (two
    # would record the same positions, as a second worker never does).
    monkeypatch.setenv("TABLETOP_PROJECTIONS", "elsewhere")
    with TestClient(build(pg_settings)) as client:
        cold = Api(client)
        for path in ("", "/events", "/replay?version=6"):
            answer = cold.client.get(f"/v1/games/{game}{path}", headers=Api.auth(ada))
            assert answer.status_code == 409, (path, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert answer.json()["code"] == "game_damaged"
        audit = cold.client.get(f"/v1/games/{game}/audit").json()
        assert audit["verified"] is False and audit["first_broken_version"] == 5

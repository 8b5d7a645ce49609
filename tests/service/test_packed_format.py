"""The packed stored form of game events (issue 19, part 5): it decodes to exactly what the
JSON form did, records stored as JSON before it still read, and damage to any byte of a
packed record is named by the audit (never a fault while reading or hashing)."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any
from uuid import UUID

import msgspec
import pytest
from eventsourcing.persistence import StoredEvent

from service.audit import export_lines, stored_lines
from service.fold import UNREADABLE, new_fold
from service.players import Players
from service.reader import read_events
from service.settings import Settings
from service.store import EventStoreApp, MsgspecTranscoder, decode_envelope, open_store
from service.tamper import first_broken
from tests.conftest import all_games
from tests.support.games import GameService, close_over

json_encoder = msgspec.json.Encoder()


def _old(state: dict[str, Any]) -> bytes:
    """A game event's state as the JSON object stored before the packed form."""
    return json_encoder.encode(
        {k: v for k, v in state.items() if k != "timestamp" and not (k == "clock" and v is None)}
    )


def _played(store: EventStoreApp, name: str) -> UUID:
    service = GameService(store)
    player, _ = Players(store).register("ann")
    seats = 3 if name in ("santa-maria", "secret-duel") else 4
    humans = {s: "random" for s in range(1, seats)}
    game = service.create(
        player,
        name,
        seats,
        {},
        humans,
        seat=0,
        clock={"kind": "fischer", "initial_s": 60, "increment_s": 2},
    )
    for i in range(6):
        fold = service.settled(game.id)  # the bots have answered
        if fold.over or 0 not in fold.awaiting():
            break
        _, legal = service.legal_moves(fold, 0)
        service.move(player, game.id, fold.version, legal[0], f"key {i}")  # not hex
    service.settled(game.id)  # and nothing is written any more
    return game.id


@pytest.fixture
def store(sqlite_settings: Settings) -> Any:
    opened = open_store(sqlite_settings)
    yield opened
    close_over(opened)  # the bots stop before the store closes
    opened.close()


@pytest.mark.parametrize("name", all_games())
def test_packed_records_decode_as_their_json_did(store: EventStoreApp, name: str) -> None:
    game = _played(store, name)
    transcoder = MsgspecTranscoder()
    records = store.recorder.select_events(game)
    assert all(r.state[:1] != b"{" for r in records)  # stored packed
    for record in records:
        state = transcoder.decode(record.state)
        old = _old(state)
        assert transcoder.decode(old) == state
        assert msgspec.to_builtins(decode_envelope(old)) == msgspec.to_builtins(
            decode_envelope(record.state)
        )
        assert len(record.state) < len(old) * 0.7, (len(record.state), len(old))
    assert any("clock" in transcoder.decode(r.state) for r in records)


def test_odd_values_keep_their_exact_text() -> None:
    transcoder = MsgspecTranscoder()
    for at in (
        "2026-01-02T03:04:05.000006Z",
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.000006+00:00",
    ):
        for key in (None, "", "ab", "AB", "abc", "0" * 64, "é"):
            for hash_ in ("", "0" * 64, "F" * 64, "f" * 63):
                state = {
                    "type": "t",
                    "seat": "system",
                    "at": at,
                    "command": {"type": "c", "n": 1.0},
                    "idempotency_key": key,
                    "data": {"b": 2, "a": [1, 2.5, None, True]},
                    "prev_hash": hash_,
                    "hash": hash_,
                }
                packed = transcoder.encode(state)
                assert packed[:1] != b"{"
                back = transcoder.decode(packed)
                back.pop("timestamp")
                assert back == state and list(back) == list(state)
                assert json_encoder.encode(back) == json_encoder.encode(state)  # same order


def test_records_stored_as_json_still_read_fold_and_export_the_same(store: EventStoreApp) -> None:
    game = _played(store, "puerto-rico")
    packed_lines = stored_lines(store, game)
    packed_fold = new_fold(game, (e := read_events(store, game))[0]).advance(e[1:], clone=False)
    transcoder = MsgspecTranscoder()
    with store.recorder.datastore.transaction(commit=True) as c:  # type: ignore[attr-defined]
        for record in store.recorder.select_events(game):
            c.execute(
                "UPDATE stored_events SET state = ? "
                "WHERE originator_id = ? AND originator_version = ?",
                (_old(transcoder.decode(record.state)), game.hex, record.originator_version),
            )
    assert all(r.state[:1] == b"{" for r in store.recorder.select_events(game))
    assert stored_lines(store, game) == packed_lines
    events = read_events(store, game)
    fold = new_fold(game, events[0]).advance(events[1:], clone=False)
    assert msgspec.to_builtins(fold.state) == msgspec.to_builtins(packed_fold.state)
    assert [e.data for e in store.events.get(game)] == [line["data"] for line in packed_lines]
    assert list(export_lines(game, packed_lines, None))[1:] == packed_lines


def test_every_changed_byte_of_a_packed_record_is_named(store: EventStoreApp) -> None:
    game = _played(store, "secret-duel")
    records = list(store.recorder.select_events(game))
    version = 4
    target = records[version - 1].state
    for at in range(len(target)):
        for bit in (1, 0x80):
            changed = target[:at] + bytes([target[at] ^ bit]) + target[at + 1 :]
            damaged = [
                r
                if r.originator_version != version
                else StoredEvent(r.originator_id, version, r.topic, changed)
                for r in records
            ]
            fake = SimpleNamespace(recorder=SimpleNamespace(select_events=lambda _id, d=damaged: d))
            lines = stored_lines(fake, game)  # type: ignore[arg-type]
            assert first_broken(lines) == version, (at, bit)
            with contextlib.suppress(*UNREADABLE):  # refused as damage, or read
                decode_envelope(changed)

"""What an insider with the database does: change stored records in place (SQL, under the
service), a game's events with their hash chain made whole again."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any
from uuid import UUID

import psycopg

from service.chain import line_hash
from service.settings import Settings
from service.store import MsgspecTranscoder

_transcoder = MsgspecTranscoder()
Change = Callable[[int, dict[str, Any]], None]  # (version, event state) -> edits it in place


def _records(settings: Settings, stream: UUID) -> list[tuple[int, bytes]]:
    sql = "SELECT originator_version, state FROM {t} WHERE originator_id = {p} ORDER BY 1"
    return [(v, bytes(s)) for v, s in _run(settings, sql, (stream,))]


def _update(settings: Settings, stream: UUID, version: int, state: bytes) -> None:
    sql = "UPDATE {t} SET state = {p} WHERE originator_id = {p} AND originator_version = {p}"
    _run(settings, sql, (state, stream, version))


def _run(settings: Settings, sql: str, args: tuple[Any, ...]) -> list[Any]:
    if settings.database_url is None:
        values = tuple(a.hex if isinstance(a, UUID) else a for a in args)
        with sqlite3.connect(settings.sqlite_path) as conn:
            return conn.execute(sql.format(t="stored_events", p="?"), values).fetchall()
    url, _, query = settings.database_url.partition("?")
    schema = dict(part.split("=", 1) for part in query.split("&"))["schema"]
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(sql.format(t=f'"{schema}".tabletop_events', p="%s"), args)  # type: ignore[arg-type]
        return cursor.fetchall() if cursor.description else []


def rewrite_game(settings: Settings, game_id: UUID, change: Change) -> None:
    """Edit a game's stored events, then hash the chain again from the first edit on, as
    someone with write access to the database and our code can."""
    prev = None
    for version, state in _records(settings, game_id):
        event = _transcoder.decode(state)
        before = dict(event)
        change(version, event)
        if prev is not None:
            event["prev_hash"] = prev
        line = {k: event[k] for k in ("type", "seat", "at", "command", "idempotency_key")}
        line |= {"version": version, "data": event["data"], "prev_hash": event["prev_hash"]}
        if event.get("clock") is not None:
            line["clock"] = event["clock"]
        event["hash"] = line_hash(line)
        if event != before:
            _update(settings, game_id, version, _transcoder.encode(event))
            prev = event["hash"]
        else:
            prev = None if prev is None else event["hash"]


def rewrite_json(settings: Settings, stream: UUID, version: int, edit: dict[str, Any]) -> None:
    """Change fields of a stored record kept as a JSON object (a seed, a log leaf)."""
    state = dict(_records(settings, stream))[version]
    _update(settings, stream, version, json.dumps({**json.loads(state), **edit}).encode())


def delete_tail(settings: Settings, game_id: UUID, count: int) -> int:
    """Delete a game's last `count` events; the version it is left at."""
    last = _records(settings, game_id)[-1][0]
    sql = "DELETE FROM {t} WHERE originator_id = {p} AND originator_version > {p}"
    _run(settings, sql, (game_id, last - count))
    return last - count


def swap_events(settings: Settings, game_id: UUID, first: int, second: int) -> None:
    """Swap what two of a game's events say (their places kept), the chain made whole."""
    said = ("type", "seat", "at", "command", "idempotency_key", "data", "clock")
    events = {v: _transcoder.decode(s) for v, s in _records(settings, game_id)}
    swapped = {first: events[second], second: events[first]}

    def swap(version: int, event: dict[str, Any]) -> None:
        if version in swapped:
            for key in said:
                event.pop(key, None)
                if key in swapped[version]:
                    event[key] = swapped[version][key]

    rewrite_game(settings, game_id, swap)


def delete_stream(settings: Settings, stream: UUID) -> None:
    """Delete every record of a stream (the log's heads, say)."""
    _run(settings, "DELETE FROM {t} WHERE originator_id = {p}", (stream,))

"""Export and audit: the complete log of a game as NDJSON lines, and its verification.

`verify` works on export lines only, so the API's audit (reading the store) and
`tabletop verify FILE` (reading an export) run the same checks: the hash chain, the seed
against its commitment, and the re-execution of every recorded command through the rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any
from uuid import UUID

import msgspec

from domain.contract import RuleError
from domain.randomness import rng_for
from domain.registry import get as get_game
from service.chain import FORMAT, GENESIS, LINE_FIELDS, line_hash
from service.fold import GAME_CREATED, GAME_FINISHED, SEAT_TAKEN, Fold, new_fold
from service.store import EventStoreApp

_decode = msgspec.json.Decoder()
STORED_FIELDS = {*LINE_FIELDS, "hash"} - {"version"}  # a Recorded event's stored keys


class Report(msgspec.Struct, kw_only=True):
    verified: bool
    events: int
    chain_intact: bool
    first_broken_version: int | None = None
    seed_matches_commitment: bool | None = None
    reexecuted: bool = False
    first_divergent_version: int | None = None
    detail: str | None = None


def stored_lines(store: EventStoreApp, game_id: UUID) -> list[dict[str, Any]]:
    """Every stored event of a game as an export line, read as raw bytes so that a damaged
    record still yields a line (whose hash then fails) instead of an exception."""
    lines = []
    for record in store.recorder.select_events(game_id):
        try:
            body = _decode.decode(record.state)
        except msgspec.DecodeError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        line = {field: body.get(field) for field in LINE_FIELDS}
        line["version"] = record.originator_version
        # A renamed key reads as null: the record is damaged even where the value was null.
        line["hash"] = body.get("hash") if set(body) == STORED_FIELDS else None
        lines.append(line)
    return lines


def export_lines(
    game_id: UUID, lines: list[dict[str, Any]], seed: str | None
) -> Iterator[dict[str, Any]]:
    """Header, events, footer (API.md, "The export format")."""
    created = lines[0].get("data") or {}
    yield {
        "format": FORMAT,
        "game": created.get("game"),
        "id": str(game_id),
        "options": created.get("options"),
        "seats": created.get("seats"),
        "seed_commitment": created.get("seed_commitment"),
    }
    yield from lines
    last = lines[-1]
    if last.get("type") == GAME_FINISHED:
        yield {"seed": seed, "result": (last.get("data") or {}).get("result")}


def verify(lines: list[dict[str, Any]], seed_hex: str | None = None) -> Report:
    """Check an export. `seed_hex` lets an arbiter audit a running game (whose export has
    no footer yet) with the seed the server keeps."""
    header, events, footer = _split(lines)
    broken = _first_broken(events)
    report = Report(
        verified=False, events=len(events), chain_intact=broken is None, first_broken_version=broken
    )
    if header.get("format") != FORMAT:
        report.detail = f"not a {FORMAT} export"
        return report
    seed_hex = seed_hex or (footer or {}).get("seed")
    if not isinstance(seed_hex, str):
        report.detail = "no revealed seed: the game is not finished"
        return report
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        seed = b""
    report.seed_matches_commitment = len(seed) == 32 and hashlib.sha256(
        seed
    ).hexdigest() == header.get("seed_commitment")
    divergence = _reexecute(header, events, seed)
    report.reexecuted = divergence is None
    if divergence is not None:
        report.first_divergent_version, report.detail = divergence
    report.verified = bool(
        report.chain_intact and report.seed_matches_commitment and report.reexecuted
    )
    return report


def fold_lines(lines: list[dict[str, Any]], version: int) -> Fold:
    """The game after its first `version` events, from export lines."""
    _, events, _ = _split(lines)
    chosen = [_as_recorded(e) for e in events if e.get("version", 0) <= version]
    if not chosen:
        raise ValueError("no events up to that version")
    return new_fold(UUID(int=0), chosen[0]).advance(chosen[1:], clone=False)


def _split(
    lines: list[dict[str, Any]],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    header = lines[0] if lines else {}
    rest = lines[1:]
    footer = rest[-1] if rest and "version" not in rest[-1] else None
    events = rest[:-1] if footer is not None else rest
    return header, events, footer


def _first_broken(events: list[dict[str, Any]]) -> int | None:
    prev = GENESIS
    for expected_version, line in enumerate(events, start=1):
        if (
            line.get("version") != expected_version
            or line.get("prev_hash") != prev
            or line_hash(line) != line.get("hash")
        ):
            return expected_version
        prev = line["hash"]
    return None


def _reexecute(
    header: dict[str, Any], events: list[dict[str, Any]], seed: bytes
) -> tuple[int, str] | None:
    """Run the rules again over the recorded commands; (version, how) of the first
    difference, or None when every event is reproduced."""
    game = get_game(str(header.get("game")))
    if game is None:
        return 1, f"unknown game {header.get('game')!r}"
    if not events or events[0].get("type") != GAME_CREATED:
        return 1, "the first event is not game_created"
    created = events[0].get("data") or {}
    for field in ("game", "options", "seats", "seed_commitment"):
        if created.get(field) != header.get(field):
            return 1, f"game_created {field} differs from the header"
    try:
        options = msgspec.convert(header["options"], game.options_type)
        seats = int(header["seats"])
        state = game.initial(options, seats)
    except (msgspec.ValidationError, TypeError, ValueError, RuleError) as error:
        return 1, f"bad options: {error}"
    taken: set[int] = set()
    i = 1
    while i < len(events):
        line = events[i]
        version = line.get("version", i + 1)
        kind = line.get("type")
        try:
            if kind == SEAT_TAKEN:
                taken.add(int((line.get("data") or {}).get("seat", -1)))
                i += 1
                if len(taken) == seats:
                    expected = game.setup(options, seats, rng_for(seed, version))
                    how = _compare(expected, events[i:], "system", None)
                    if how is not None:
                        return how
                    for event in expected:
                        state = game.evolve(state, event)
                    i += len(expected)
                continue
            if kind == GAME_FINISHED:
                result = game.result(state)
                recorded = (line.get("data") or {}).get("result")
                if result is None or msgspec.to_builtins(result) != recorded:
                    return version, "game_finished does not match the rules' result"
                if (line.get("data") or {}).get("seed") != seed.hex():
                    return version, "game_finished reveals another seed"
                return None if i == len(events) - 1 else (version + 1, "events after the end")
            seat = line.get("seat")
            if not isinstance(seat, int) or line.get("command") is None:
                return version, f"{kind} has no command to re-run"
            command = msgspec.convert(line["command"], game.command_type)
            expected = game.decide(state, seat, command, rng_for(seed, version - 1))
            how = _compare(expected, events[i:], seat, line["command"])
            if how is not None:
                return how
            for event in expected:
                state = game.evolve(state, event)
            i += len(expected)
        except RuleError as error:
            return version, f"the rules refuse the recorded command: {error.code}"
        except (msgspec.ValidationError, KeyError, TypeError, ValueError) as error:
            return version, f"unreadable event: {error}"
    if game.result(state) is not None:
        return len(events), "the game ended but no game_finished was recorded"
    return None


def _compare(
    expected: list[Any], recorded: list[dict[str, Any]], seat: Any, command: Any
) -> tuple[int, str] | None:
    for event, line in zip(expected, recorded + [{}] * len(expected), strict=False):
        data = msgspec.to_builtins(event)
        kind = data.pop("type")
        version = int(line.get("version") or 0)
        if not line:
            return (recorded[-1]["version"] + 1 if recorded else 0), f"missing {kind}"
        if line.get("type") != kind or line.get("data") != data:
            return version, f"recorded {line.get('type')} differs from re-run {kind}"
        if line.get("seat") != seat or line.get("command") != command:
            return version, "recorded seat or command differs from the re-run"
    return None


def _as_recorded(line: dict[str, Any]) -> Any:
    return SimpleNamespace(
        originator_version=line["version"],
        **{
            k: line.get(k)
            for k in ("type", "seat", "at", "command", "idempotency_key", "data", "hash")
        },
    )

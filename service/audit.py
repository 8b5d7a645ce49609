"""Export and audit: the complete log of a game as NDJSON lines, and its verification.

`verify` works on export lines only, so the API's audit (reading the store) and
`tabletop verify FILE` (reading an export) run the same checks: the hash chain, the seed
against its commitment, the client seeds fixed when the last seat was taken (`/2`), and
the re-execution of every recorded command through the rules, and the chain against the
leaf the transparency log holds for it (the footer's, or the one the audit reads): a chain
redone after an edit passes the rest (service/tamper.py). (The footer's signature and
inclusion proof are service/seal.py's.)
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
from service import clocks, lifecycle
from service.chain import FORMAT, FORMAT_1, FORMATS, LINE_FIELDS, RANDOMNESS
from service.fold import (
    CLOCK_CREDIT,
    ENDINGS,
    GAME_ABORTED,
    GAME_CREATED,
    GAME_FINISHED,
    RANDOMNESS_FIXED,
    REMATCH_ACCEPTED,
    REMATCH_OFFERED,
    SEAT_FORFEITED,
    SEAT_LEFT,
    SEAT_TAKEN,
    SERVICE_EVENTS,
    TIMED_OUT,
    UNREADABLE,
    Fold,
    new_fold,
)
from service.lines import spectator_lines
from service.store import EventStoreApp, unpack
from service.tamper import Tamper, against_leaf, first_broken
from service.undo import REVERTED, UNDO_ACCEPTED, UNDO_DECLINED, UNDO_EVENTS, UNDO_REQUESTED
from service.undo import refusal as undo_refusal

_decode = msgspec.json.Decoder()
_encode = msgspec.json.Encoder()
STORED_FIELDS = {*LINE_FIELDS, "hash"} - {"version"}  # a Recorded event's stored keys
TIMED_FIELDS = STORED_FIELDS | {"clock"}  # ... of a timed decision's first event


class Report(msgspec.Struct, kw_only=True):
    verified: bool
    events: int
    chain_intact: bool
    first_broken_version: int | None = None
    seed_matches_commitment: bool | None = None
    reexecuted: bool = False
    first_divergent_version: int | None = None
    detail: str | None = None
    client_seeds: list[str] | None = None  # fixed into the randomness (a /2 export)
    tampered: bool = False  # the chain is not the one the transparency log holds
    tamper: Tamper | None = None  # how it differs


class Leaf(msgspec.Struct, kw_only=True):
    """What the transparency log holds for a game: its ending's hash (and version)."""

    final_hash: str
    version: int | None = None


def stored_lines(store: EventStoreApp, game_id: UUID) -> list[dict[str, Any]]:
    """Every stored event of a game as an export line, read as raw bytes so that a damaged
    record still yields a line (whose hash then fails) instead of an exception."""
    lines = []
    for record in store.recorder.select_events(game_id):
        body = _body(record.state)
        if not isinstance(body, dict):
            body = {}
        line = {field: body.get(field) for field in LINE_FIELDS}
        line["version"] = record.originator_version
        if "clock" in body:
            line["clock"] = body["clock"]
        # A renamed key reads as null: the record is damaged even where the value was null.
        intact = set(body) in (STORED_FIELDS, TIMED_FIELDS)
        line["hash"] = body.get("hash") if intact else None
        lines.append(line)
    return lines


def _body(state: bytes) -> Any:
    """A stored record's state as the JSON object it stands for; {} when it no longer reads.
    A packed record (service/store.py) is unpacked, then kept to what JSON can say: damage
    that turns a value into bytes or an extension reads as a damaged record, never as a
    line that cannot be hashed."""
    try:
        if state[:1] == b"{":
            return _decode.decode(state)
        return _decode.decode(_encode.encode(unpack(state)))
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return {}


def export_lines(
    game_id: UUID, lines: list[dict[str, Any]], seed: str | None
) -> Iterator[dict[str, Any]]:
    """Header, events, footer (docs/export-format.md)."""
    created = (lines[0].get("data") if lines else None) or {}
    yield {
        "format": FORMAT if created.get("randomness") == RANDOMNESS else FORMAT_1,
        "game": created.get("game"),
        "id": str(game_id),
        "options": created.get("options"),
        "seats": created.get("seats"),
        "seed_commitment": created.get("seed_commitment"),
    }
    yield from lines
    ending = next((line for line in lines if line.get("type") in ENDINGS), None)
    if ending is not None:
        yield {
            "seed": seed,
            "result": (ending.get("data") or {}).get("result"),
            "text": spectator_lines(str(created.get("game")), lines),  # outside the chain
        }


def verify(
    lines: list[dict[str, Any]], seed_hex: str | None = None, leaf: Leaf | None = None
) -> Report:
    """Check an export. `seed_hex` lets an arbiter audit a running game (whose export has
    no footer yet) with the seed the server keeps; `leaf` is the game's leaf in the
    transparency log (by default the one its footer carries)."""
    header, events, footer = _split(lines)
    broken = first_broken(events)
    report = Report(
        verified=False, events=len(events), chain_intact=broken is None, first_broken_version=broken
    )
    leaf = leaf or _footer_leaf(footer)
    if leaf is not None:
        report.tamper = against_leaf(str(header.get("id")), events, leaf.final_hash, leaf.version)
        report.tampered = report.tamper is not None
        if report.tamper is not None and report.tamper.what == "not_ended":
            report.detail = report.tamper.detail
            return report  # no seed is revealed: nothing more to check
    if header.get("format") not in FORMATS:
        report.detail = f"not a {' or '.join(FORMATS)} export"
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
    divergence, fold = _reexecute(header, events, seed)
    report.reexecuted = divergence is None
    if divergence is not None:
        report.first_divergent_version, report.detail = divergence
    report.client_seeds = fold.fixed_seeds if fold is not None else None
    report.verified = bool(
        report.chain_intact
        and report.seed_matches_commitment
        and report.reexecuted
        and not report.tampered
    )
    if report.tamper is not None and report.detail is None:
        report.detail = report.tamper.detail  # (how the re-run differs, if it does, first)
    return report


def _footer_leaf(footer: dict[str, Any] | None) -> Leaf | None:
    """The leaf an export's footer carries (its inclusion proof's), if it reads."""
    proof = (footer or {}).get("transparency")
    leaf = proof.get("leaf") if isinstance(proof, dict) else None
    if not isinstance(leaf, dict) or not isinstance(leaf.get("final_hash"), str):
        return None
    return Leaf(final_hash=leaf["final_hash"])


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


def _reexecute(
    header: dict[str, Any], events: list[dict[str, Any]], seed: bytes
) -> tuple[tuple[int, str] | None, Fold | None]:
    """Run the rules again over the recorded commands, and the lifecycle over the service's
    own events (seats, clocks, forfeits, the end); (version, how) of the first difference,
    or None when every event is reproduced; and the fold reached."""
    game = get_game(str(header.get("game")))
    if game is None:
        return (1, f"unknown game {header.get('game')!r}"), None
    if not events or events[0].get("type") != GAME_CREATED:
        return (1, "the first event is not game_created"), None
    created = events[0].get("data") or {}
    for field in ("game", "options", "seats", "seed_commitment"):
        if created.get(field) != header.get(field):
            return (1, f"game_created {field} differs from the header"), None
    if (created.get("randomness") == RANDOMNESS) != (header.get("format") == FORMAT):
        return (1, f"game_created's randomness is not the one of {header.get('format')}"), None
    try:
        fold = new_fold(UUID(str(header.get("id"))), _as_recorded(events[0]))
    except (msgspec.ValidationError, TypeError, ValueError, KeyError, RuleError) as error:
        return (1, f"bad id or options: {error}"), None
    return _rerun(game, fold, events, seed), fold


def _rerun(
    game: Any, fold: Fold, events: list[dict[str, Any]], seed: bytes
) -> tuple[int, str] | None:
    i = 1
    timed_out: int | None = None  # a seat just timed out: what follows is the policy's
    # Since decisions are stamped when they are made (`bot_clocks`), a bot's decision after
    # a timeout is a write of its own (the bot runner's), and stamps never go back.
    bot_decides_later = fold.bot_clocks and (fold.on_timeout or "bot:random") != "forfeit"
    stamped = ""
    while i < len(events):
        line = events[i]
        version = line.get("version", i + 1)
        try:
            kind = line.get("type")
            if fold.bot_clocks:
                at = str(line.get("at"))
                if at < stamped:
                    return version, "stamped before the event it follows"
                stamped = at
            try:
                answers_timeout = timed_out is not None
                if timed_out is not None:
                    how = _after_timeout(fold, timed_out, line)
                    if how is not None:
                        return version, how
                    timed_out = None
                data = line.get("data") or {}
                timeout_forfeit = kind == SEAT_FORFEITED and data.get("reason") == "timed_out"
                if timeout_forfeit and not answers_timeout:
                    return version, "a timeout forfeit with no timeout before it"
                if fold.over:
                    if kind not in AFTER_THE_END or fold.aborted or line.get("clock") is not None:
                        return version, "events after the end"
                    fold.apply(_as_recorded(line))  # a rematch's offer and answers
                    i += 1
                    continue
                if kind == TIMED_OUT and not bot_decides_later:
                    timed_out = (line.get("data") or {}).get("seat")
                if kind in SERVICE_EVENTS:
                    how = _lifecycle_differs(fold, line, seed)
                    if how is not None:
                        return version, how
                    fold.apply(_as_recorded(line))
                    i += 1
                    if kind == SEAT_TAKEN and fold.seeded and not fold.free_seats():
                        following = events[i].get("type") if i < len(events) else None
                        if following != RANDOMNESS_FIXED:
                            return version, "the last seat taken, but the client seeds not fixed"
                    starts = RANDOMNESS_FIXED if fold.seeded else SEAT_TAKEN
                    if kind == starts and not fold.free_seats():
                        rng = rng_for(fold.rules_seed(seed), version)
                        expected = game.setup(fold.options, fold.seats, rng)
                        how2 = _replayed(fold, expected, events[i:], "system", None)
                        if how2 is not None:
                            return how2
                        i += len(expected)
                    continue
                seat = line.get("seat")
                if not isinstance(seat, int) or line.get("command") is None:
                    return version, f"{kind} has no command to re-run"
                how = _timing_differs(fold, seat, line)
                if how is not None:
                    return version, how
                command = msgspec.convert(line["command"], game.command_type)
                rng = rng_for(fold.rules_seed(seed), version - 1)
                expected = game.decide(fold.state, seat, command, rng)
                how2 = _replayed(fold, expected, events[i:], seat, line["command"])
                if how2 is not None:
                    return how2
                i += len(expected)
            except RuleError as error:
                return version, f"the rules refuse the recorded command: {error.code}"
            except (msgspec.ValidationError, KeyError, TypeError, ValueError) as error:
                return version, f"unreadable event: {error}"
        except UNREADABLE as error:  # a value the fold cannot take (a seat out of range...)
            return version, f"an event that cannot be applied ({error!r})"
    if timed_out is not None:
        return len(events), "a timeout with nothing of its policy after it"
    if not fold.over and _final(fold) is not None:
        return len(events), "the game ended but no game_finished was recorded"
    return None


AFTER_THE_END = (REMATCH_OFFERED, REMATCH_ACCEPTED)


def _after_timeout(fold: Fold, seat: Any, line: dict[str, Any]) -> str | None:
    """What must follow a timeout: the seat's forfeit (`forfeit`), or a bot's decision for
    that seat (`bot:...`)."""
    data = line.get("data") or {}
    if (fold.on_timeout or "bot:random") == "forfeit":
        forfeits = line.get("type") == SEAT_FORFEITED and data.get("reason") == "timed_out"
        if not (forfeits and data.get("seat") == seat):
            return "a timeout under the forfeit policy not followed by that seat's forfeit"
    elif line.get("type") in SERVICE_EVENTS or line.get("seat") != seat or not line.get("command"):
        return "a timeout under a bot policy not followed by a decision for that seat"
    return None


def _final(fold: Fold) -> Any:
    """The result the service must record now, if the game is over (lifecycle.py)."""
    result = fold.game.result(fold.state) if fold.started else None
    if result is not None:
        return msgspec.to_builtins(lifecycle.final_result(result, fold.forfeited))
    if lifecycle.ends_by_forfeit(fold.seats, fold.forfeited):
        return msgspec.to_builtins(lifecycle.forfeit_result(fold.seats, fold.forfeited))
    return None


def _lifecycle_differs(fold: Fold, line: dict[str, Any], seed: bytes) -> str | None:
    """Whether one of the service's own events could not have been written here."""
    kind, data = line.get("type"), line.get("data") or {}
    if line.get("clock") is not None:
        return f"{kind} carries a clock: only a decision's first event does"
    if kind == GAME_FINISHED:
        final = _final(fold)
        if final is None or data.get("result") != final:
            return "game_finished does not match the rules' result"
        if data.get("seed") != seed.hex():
            return "game_finished reveals another seed"
    elif kind == GAME_ABORTED:
        if fold.decided:
            return "game_aborted after a player's decision"
        if data.get("seed") != seed.hex():
            return "game_aborted reveals another seed"
    elif kind == TIMED_OUT:
        seat = data.get("seat")
        deadline = fold.clock.deadline(seat) if fold.clock and isinstance(seat, int) else None
        if deadline is None:
            return "timed_out for a seat whose clock did not run"
        if data.get("deadline") != clocks.stamp(deadline):
            return "timed_out names another deadline than the clock's"
        if clocks.micros(str(line.get("at"))) < deadline:
            return "timed_out before its deadline"
    elif kind == CLOCK_CREDIT:
        return _credit_differs(fold, line)
    elif kind in UNDO_EVENTS:
        return _undo_differs(fold, line)
    elif kind == SEAT_FORFEITED:
        if not fold.started or data.get("seat") in fold.forfeited:
            return "seat_forfeited where no seat can forfeit"
        reason, actor = data.get("reason"), line.get("seat")
        if reason == "resigned" and actor != data.get("seat"):
            return "a resignation not made by its seat"
        if reason == "withdrawn" and (fold.tournament is None or actor != "system"):
            return "a withdrawal forfeit outside a tournament"
        if reason == "timed_out" and (fold.on_timeout or "") != "forfeit":
            return "a timeout forfeit in a game whose policy is not forfeit"
        if reason not in ("resigned", "withdrawn", "timed_out"):
            return f"seat_forfeited for an unknown reason {reason!r}"
    elif kind in (SEAT_TAKEN, SEAT_LEFT, RANDOMNESS_FIXED) and (
        fold.started or fold.fixed_seeds is not None
    ):
        return f"{kind} after the randomness was fixed"
    elif kind == SEAT_TAKEN and fold.seeded and not _client_seed(data.get("client_seed")):
        return "a seat taken without a client seed"
    elif kind == RANDOMNESS_FIXED:
        if not fold.seeded or fold.free_seats() or line.get("seat") != "system":
            return "randomness_fixed where it cannot be"
        if data.get("client_seeds") != fold.client_seeds:
            return "randomness_fixed names other client seeds than the seats gave"
    return None


def _credit_differs(fold: Fold, line: dict[str, Any]) -> str | None:
    """A clock credit (time the service could not act) gives back no more than the time
    between the game's last event and the credit itself, to exactly the seats whose clocks
    ran then: it cannot hide a decision's time or move a deadline past a timeout."""
    data = line.get("data") or {}
    clock, ms, seats = fold.clock, data.get("ms"), data.get("seats")
    if clock is None or not fold.started or line.get("seat") != "system":
        return "clock_credit where no clock runs"
    if data.get("reason") != "outage" or set(data) != {"seats", "ms", "reason"}:
        return "clock_credit for no known reason"
    if not isinstance(seats, list) or not seats or sorted(seats) != sorted(clock.since):
        return "clock_credit names other seats than those whose clocks ran"
    gap_us = clocks.micros(str(line.get("at"))) - clocks.micros(fold.last_at)
    if type(ms) is not int or not 0 < ms * 1000 <= gap_us:
        return "clock_credit gives more time than passed since the event before it"
    return None


def _undo_differs(fold: Fold, line: dict[str, Any]) -> str | None:
    """A takeback event (docs/undo.md) where the service could not have written it: a
    request the game or its seat could not make (one across randomness included), an
    answer with no request standing, a revert before every other seat accepted."""
    kind, data, actor = line.get("type"), line.get("data") or {}, line.get("seat")
    seat, asked = data.get("seat"), fold.undo_asked
    if not fold.started or not isinstance(seat, int) or not 0 <= seat < fold.seats:
        return f"{kind} where no seat can take back"
    if kind == UNDO_REQUESTED:
        point = fold.takeback.point(seat)
        if not fold.undo or asked is not None or actor != seat or seat in fold.bots:
            return "undo_requested where the game or its seat cannot ask"
        if point is None or point[0] != data.get("to_version"):
            return "undo_requested to another version than the seat's last decision"
        if undo_refusal(fold.game, fold.takeback, seat, fold.state) is not None:
            return "undo_requested across randomness or what the seat could not see"
    elif asked is None:
        return f"{kind} with no takeback request standing"
    elif kind == REVERTED:
        everyone = fold.undo_yes >= set(range(fold.seats)) - {asked[0]}
        if actor != "system" or (seat, data.get("to_version")) != asked or not everyone:
            return "reverted before every other seat accepted the request"
    elif actor != seat or (kind == UNDO_ACCEPTED and (seat == asked[0] or seat in fold.undo_yes)):
        return f"{kind} not made by a seat that may answer"
    elif kind == UNDO_DECLINED and seat in fold.bots:
        return "undo_declined by a bot (bots accept)"
    return None


def _client_seed(value: Any) -> bool:
    """1-64 printable ASCII characters, no space (api/schemas.py `ClientSeed`)."""
    return isinstance(value, str) and 1 <= len(value) <= 64 and all("!" <= c <= "~" for c in value)


def _timing_differs(fold: Fold, seat: int, line: dict[str, Any]) -> str | None:
    """A decision's recorded clock against the clock folded so far: the same time used,
    and no decision after its seat's deadline (that would be a missed timeout)."""
    clock = fold.clock
    if clock is None or seat not in clock.since:
        return None if line.get("clock") is None else "a clock recorded where none ran"
    at = str(line.get("at"))
    if line.get("clock") != clock.charged(seat, at):
        return "the recorded clock differs from the time stamps"
    deadline = clock.deadline(seat)
    if deadline is not None and clocks.micros(at) > deadline:
        return f"a decision after its deadline {clocks.stamp(deadline)} (a missed timeout)"
    return None


def _replayed(
    fold: Fold, expected: list[Any], recorded: list[dict[str, Any]], seat: Any, command: Any
) -> tuple[int, str] | None:
    """Compare re-run events with the recorded lines, then fold them."""
    how = _compare(expected, recorded, seat, command)
    if how is None:
        for event, line in zip(expected, recorded, strict=False):
            fold.apply(_as_recorded(line), event)
    return how


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
            for k in ("type", "seat", "at", "command", "idempotency_key", "data", "hash", "clock")
        },
    )


# ---- tournaments ---------------------------------------------------------------------------

TOURNAMENT_FORMAT = "tabletop-tournament/2"  # /2: a signed footer with its inclusion proof
TOURNAMENT_FORMATS = ("tabletop-tournament/1", TOURNAMENT_FORMAT)


def tournament_export(store: EventStoreApp, tournament_id: UUID) -> list[dict[str, Any]]:
    """Header, the tournament's hash-chained events, and (finished) the final standings,
    signed, with the inclusion proof of its final hash in the transparency log."""
    from service.transparency import log_of

    lines = stored_lines(store, tournament_id)
    created = (lines[0].get("data") if lines else None) or {}
    out = [{"format": TOURNAMENT_FORMAT, "id": str(tournament_id), **created}]
    out += lines
    if lines[-1].get("type") == "tournament_finished":
        out.append({"standings": (lines[-1].get("data") or {}).get("standings")})
        log_of(store).seal(out)
    return out


def verify_tournament(
    lines: list[dict[str, Any]], games: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """A tournament export: its chain; each table's game export in `games` (by game id)
    verifies, is that table's game (its id, tournament, round and table, its seats held by
    the table's entrants in order) and ended with the recorded ranks and scores; a finished
    tournament has every table's result and the standings its results give. Tables whose
    game export is missing are named."""
    from domain.tournaments.standings import standings
    from service.tournament_log import fold_stream

    header, events, footer = _split(lines)
    broken = first_broken(events)
    missing: list[str] = []
    wrong: dict[str, str] = {}
    problems: list[str] = []
    try:
        state = fold_stream(UUID(str(header.get("id"))), [_as_recorded(e) for e in events])
    except (AssertionError, KeyError, TypeError, ValueError, IndexError) as error:
        return {"verified": False, "chain_intact": broken is None, "detail": repr(error)}
    for r in state.rounds:
        for table in r.tables:
            if table.ranks is None:
                if state.status == "finished" and table.game not in state.uncounted:
                    problems.append(f"round {r.number} table {table.table} has no result")
                continue
            game = games.get(table.game)
            if game is None:
                missing.append(table.game)
                continue
            how = _table_differs(state, r.number, table, game)
            if how is not None:
                wrong[table.game] = how
    final = (footer or {}).get("standings")
    finished = state.status == "finished"
    if finished and (state.standings != standings(state) or final != state.standings):
        problems.append("the final standings are not what the results give")
    return {
        "verified": broken is None and not missing and not wrong and not problems
        and header.get("format") in TOURNAMENT_FORMATS,
        "events": len(events),
        "chain_intact": broken is None,
        "first_broken_version": broken,
        "tables": sum(len(r.tables) for r in state.rounds),
        "games_missing": missing,
        "games_differing": wrong,
        "problems": problems,
    }  # fmt: skip


def _table_differs(state: Any, number: int, table: Any, game: list[dict[str, Any]]) -> str | None:
    header, events, footer = _split(game)
    if header.get("id") != table.game:
        return "the export is of another game"
    if not verify(game).verified:
        return "the game's export does not verify"
    created = (events[0].get("data") or {}) if events else {}
    place = (created.get("tournament"), created.get("round"), created.get("table"))
    if place != (str(state.id), number, table.table):
        return "the game is not this tournament's table"
    seated = {}
    for e in events:
        data = e.get("data") or {}
        if e.get("type") == SEAT_TAKEN:
            seated[data.get("seat")] = data.get("bot") or data.get("player")
    expected = {}
    for seat, entrant in enumerate(table.seats):
        info = state.entrants.get(entrant, {})
        expected[seat] = info.get("bot") or entrant
    if seated != expected:
        return "the game's seats are not the table's entrants in order"
    result = (footer or {}).get("result") or {}
    if result.get("ranks") != table.ranks or result.get("scores") != table.scores:
        return "the recorded result is not the game's"
    ended = next((e.get("at") for e in events if e.get("type") == GAME_FINISHED), None)
    ends = getattr(state, "ends_at", None)
    if ends is not None and ended is not None and clocks.micros(str(ended)) > clocks.micros(ends):
        return "an arena's game counted though it finished after the arena's end"
    return None

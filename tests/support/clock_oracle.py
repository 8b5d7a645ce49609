"""An independent check of a timed game's export: from the lines alone (their time stamps,
and the rules to know whom each event leaves awaited), recompute every seat's clock and
say whether each timeout was due and whether any was missed. It shares no code with
service/clocks.py or service/fold.py: only the game's rules (to know whom each event leaves
awaited, and how many events each recorded command makes) and the export format.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.randomness import rng_for
from domain.registry import get as get_game
from service.chain import rules_seed

RULES_FREE = {
    "game_created", "seat_taken", "seat_left", "timed_out", "clock_credit", "seat_forfeited",
    "game_finished", "game_aborted", "rematch_offered", "rematch_accepted",
    "undo_requested", "undo_accepted", "undo_declined", "reverted",
}  # fmt: skip
# A takeback request stands through these; any other event ends it (docs/undo.md).
UNDO_GOES_ON = {"undo_requested", "undo_accepted", "clock_credit"}


def _us(at: str) -> int:
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def check(lines: list[dict[str, Any]], seed_hex: str | None = None) -> list[str]:
    """Every way the export's clocks are wrong; [] when each timeout was due, none was
    missed, and each decision's recorded clock is what its stamps say. The seed (the
    footer's, or an arbiter's for a running game) tells where each decision starts."""
    header, events = lines[0], [line for line in lines[1:] if "version" in line]
    seed = bytes.fromhex(seed_hex or lines[-1]["seed"])
    created = events[0]["data"]
    spec = created.get("clock")
    if spec is None:
        return []
    game = get_game(header["game"])
    assert game is not None
    options = msgspec.convert(header["options"], game.options_type)
    seats = header["seats"]
    state = game.initial(options, seats)
    # Since stamps are the decisions' own (`bot_clocks`), a bot's seat runs a clock too, and
    # stamps never go back; before, bots never waited. A forfeited seat never runs one.
    bot_clocks = bool(created.get("bot_clocks"))
    bots: set[int] = set()
    last_at = 0
    left = [spec.get("initial_s", 0) * 1_000_000] * seats
    started: dict[int, int] = {}  # seat -> when its running decision started
    in_play = False  # set up, and not ended
    overdue: set[int] = set()  # timed out: a bot makes their current decision
    rest = 0  # events left of the decision being read
    problems: list[str] = []
    # Takebacks: the rules state before each decision (a `reverted` goes back to one), the
    # seat whose request stands, and the time its paused decision had used.
    before: dict[int, Any] = {}
    asking: int | None = None
    paused: int | None = None

    def deadline(seat: int) -> int:
        budget = left[seat] if spec["kind"] == "fischer" else spec["per_decision_s"] * 1_000_000
        return started[seat] + budget

    for line in events:
        kind, data, at, seat = line["type"], line["data"], _us(line["at"]), line["seat"]
        where = f"v{line['version']}"
        if bot_clocks and at < last_at:
            problems.append(f"{where}: stamped before the event it follows")
        if kind == "clock_credit":  # time the service could not act, after the last event
            if not 0 < data["ms"] * 1000 <= at - last_at:
                problems.append(f"{where}: a credit of more time than passed since the last event")
            if sorted(data["seats"]) != sorted(started):
                problems.append(f"{where}: a credit to other seats than those on the clock")
            for s in data["seats"]:
                if s in started:
                    started[s] += data["ms"] * 1000
        last_at = max(last_at, at)
        resume: tuple[int, int] | None = None  # (seat, used): a paused decision goes on
        if asking is not None and kind not in UNDO_GOES_ON:
            if paused is not None and kind != "reverted":
                resume = (asking, paused)
            asking = paused = None
        own_bot = kind == "seat_taken" and data.get("bot") and not bot_clocks
        if kind == "seat_forfeited" or own_bot:
            bots.add(data["seat"])
        elif kind == "timed_out":
            s = data["seat"]
            if s not in started:
                problems.append(f"{where}: timeout of a seat not on the clock")
            elif at < deadline(s):
                problems.append(f"{where}: timeout before its deadline")
            else:
                started.pop(s)
                overdue.add(s)
                # the increment and a grace of a tenth of the initial time
                left[s] = (
                    spec.get("increment_s", 0) * 1_000_000 + spec.get("initial_s", 0) * 100_000
                )
        elif kind == "randomness_fixed":  # a /2 game: the client seeds mixed into the seed
            seed = rules_seed(seed, header["id"], data["client_seeds"])
        elif kind in ("game_finished", "game_aborted"):
            in_play = False
        elif kind == "undo_requested":  # the requester's clock pauses, its time used kept
            asking, paused = data["seat"], None
            if asking in started:
                paused = at - started.pop(asking)
        elif kind == "reverted":
            state = game.clone(before[data["to_version"]])
            overdue.clear()
            rest = 0
        elif kind not in RULES_FREE:
            in_play = True
            if isinstance(seat, int) and line["command"] is not None and rest == 0:
                before[line["version"] - 1] = game.clone(state)
                command = msgspec.convert(line["command"], game.command_type)
                rng = rng_for(seed, line["version"] - 1)
                rest = len(game.decide(state, seat, command, rng))
                if seat in started:
                    problems += _decision(spec, line, at, seat, deadline(seat), started, left)
                overdue.discard(seat)
            rest = max(0, rest - 1)
            event = msgspec.convert({"type": kind, **data}, game.event_type)
            state = game.evolve(state, event)
        awaited = set(game.awaiting(state)) - bots - overdue if in_play else set()
        awaited -= {asking}
        if resume is not None and resume[0] in awaited:
            started[resume[0]] = at - resume[1]
        for s in list(started):
            if s not in awaited:
                started.pop(s)
        for s in awaited:
            started.setdefault(s, at)
    return problems


def _decision(
    spec: dict[str, Any],
    line: dict[str, Any],
    at: int,
    seat: int,
    deadline: int,
    started: dict[int, int],
    left: list[int],
) -> list[str]:
    """The first event of a timed decision: its recorded clock and its deadline."""
    where = f"v{line['version']}"
    timing = line.get("clock")
    if timing is None:
        return [f"{where}: a timed decision without its clock"]
    problems = []
    used = at - started.pop(seat)
    if at > deadline:
        problems.append(f"{where}: a decision after its deadline (a missed timeout)")
    if timing.get("used_ms") != used // 1000:
        problems.append(f"{where}: used_ms is not what the stamps say")
    if spec["kind"] == "fischer":
        left[seat] = max(0, left[seat] - used) + spec["increment_s"] * 1_000_000
        if timing.get("remaining_ms") != left[seat] // 1000:
            problems.append(f"{where}: remaining_ms is not what the stamps say")
    return problems

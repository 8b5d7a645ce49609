"""Readable event lines: every event type of every hosted game, read in the second person (by
the seat it concerns: "You ...", "Your ...") and in the third (by another seat and by a
spectator: "Seat 2 ...", "Seat 2's ..."), is one plain English sentence: no "You's" or
"You has", no misplaced capitals, no doubled spaces, no leftover placeholder.

The events are real ones: seeded random games (the seed is printed; TABLETOP_TEXT_SEED picks
another) are played until every event type of the game's union has been seen, and an event is
built by hand only for a type that random play did not reach (FALLBACK)."""

from __future__ import annotations

import os
import re
import typing
from collections.abc import Iterator
from functools import cache
from typing import Any

import msgspec
import pytest

from domain.caylus import events as CE
from domain.contract import random_bot
from domain.plus_ultra import events as UE
from domain.puerto_rico import events as PE
from domain.registry import GAMES
from domain.santa_maria import events as SE
from domain.simulate import play

HOSTED = ["caylus", "plus-ultra", "puerto-rico", "santa-maria"]
SEED = int(os.environ.get("TABLETOP_TEXT_SEED", "1789"))
GAMES_PER_NAME = 40  # at most, per game: enough to meet every type play can reach

# Options that unlock events (expansions, drafts); the games cycle through them.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "caylus": [{}, {"favours": "simplified", "jeweller": True, "lawyer_prestige": 3}],
    "plus-ultra": [{}, {"common_actions_per_turn": 2, "initial_order": "seats"}],
    "puerto-rico": [{}, {"expansion": "new-buildings"}],
    "santa-maria": [{}, {"colony_boards": "draft"}],
}

# Events built by hand, used only for a type that the random games did not produce (some
# need a rare position: a lawyer's transformation, a forest house with the hacienda...).
FALLBACK: dict[str, list[Any]] = {
    "caylus": [
        CE.FavourLost(seat=1),
        CE.TransformationScheduled(seat=0, space=12),
        CE.Transformed(seat=2, space=12, removed="wood_farm_food"),
        CE.OwnerBonusTaken(seat=1, space=14, cube="C"),
        CE.OwnerBonusTaken(seat=0, space=15, cube="F", auto=True),
    ],
    "plus-ultra": [
        UE.ColonyResolved(seat=1, place_house=True),
        UE.ColonyResolved(seat=2, place_house=False),
    ],
    "puerto-rico": [
        PE.BuildingDrafted(seat=1, building="large_warehouse"),
        PE.DraftFinished(removed=["hacienda", "office"]),
        PE.GuestWindowOpened(seats=[0, 2], before="captain"),
        PE.GuestMoved(seat=2, to="indigo_plant"),
        PE.GuestsFinished(seat=0),
        PE.HaciendaPlaced(seat=0, tile="corn", as_forest=False),
        PE.HaciendaPlaced(seat=1, tile=None, as_forest=True),
        PE.LighthousePaid(seat=2),
        PE.UnionHallScored(seat=1, vp=3),
        PE.WharfShipped(seat=0, good="sugar", count=2, vp=2, doubloons=0),
        PE.SmallWharfShipped(seat=2, goods={"corn": 2, "indigo": 1}, vp=1, doubloons=0),
    ],
    "santa-maria": [
        SE.AlchemyUsed(seat=0, pay="grain", gain="wood"),
        SE.ColonyChosen(seat=1, board="hacienda"),
        SE.DraftStarted(order=[2, 0, 1]),
    ],
}
FALLBACK_SEATS = 3

# Fields that name one seat, lists of seats, and lists indexed by seat (a value per seat).
SEAT = ("seat", "moved", "returned", "governor", "start_player", "best_builder", "cardinal", "next")
SEATS = ("order", "acting", "asked", "placed", "seats")
PER_SEAT = ("scores", "counts", "points", "boards", "picks", "wood", "coins", "ducats", "gp")

YOU = re.compile(r"\b(?:you|your)\b", re.IGNORECASE)
# (pattern, what it means): each is a glitch wherever it appears in a line.
GLITCHES = [
    (re.compile(r"\b[Yy]ou's\b"), "'You's' instead of 'Your'"),
    (re.compile(r"\b[Yy]ou (?:is|has|was|does|goes)\b"), "'You' with a third-person verb"),
    (re.compile(r"\b[Yy]ou (?:[a-z]*[^s\W])s\b"), "'You' with a verb ending in -s"),
    (re.compile(r"\b(?:[Ss]eat \d+|[Nn]obody) (?:are|have|were)\b"), "a seat with 'are/have'"),
    (re.compile(r"'s (?:[Yy]ou|[Ss]eat)\b"), "a possessive before a seat"),
    (re.compile(r"\b(?:[Yy]ou|[Ss]eat \d+) (?:die|dice|worker)\b"), "a missing possessive"),
    (re.compile(r"(?<![.!?]) (?:You|Your|Seat|Nobody)\b"), "a capital in mid-sentence"),
    (re.compile(r"[.!?] +[a-z]"), "a sentence starting in lowercase"),
    (re.compile(r"\s{2,}"), "doubled spaces"),
    (re.compile(r"\s[,.;:!?)]"), "a space before punctuation"),
    (re.compile(r"[,;:]\s*[,.;:]|\.\.|,,|\(\s*\)"), "doubled punctuation"),
    (re.compile(r"[{}\[\]<>_]|\bNone\b|\bTrue\b|\bFalse\b|[Ss]eat -\d"), "a raw value"),
    (re.compile(r"\b([A-Za-z]+) \1\b", re.IGNORECASE), "a doubled word"),
    (re.compile(r"\b[Ss]eat \d+ \d"), "a number right after a seat's"),
    (re.compile(r"\b[Aa] [aeioAEIO]\w"), "'a' before a vowel"),
    (re.compile(r"\b\w*(?:ch|sh|x)s\b"), "a plural in -chs, -shs, -xs"),
    (
        re.compile(r"[-+]?\b1 (?:denier|doubloon|coin|point|favour|ducat|tile|colonist)s\b"),
        "1 ...s",
    ),
]


@cache
def samples(name: str) -> tuple[list[tuple[Any, int]], set[type]]:
    """Distinct (event, seats) of seeded random games until every event type was met; then
    the hand-built FALLBACK events of the types play did not reach (returned apart)."""
    game = GAMES[name]
    types = set(typing.get_args(game.event_type))
    seen: dict[bytes, tuple[Any, int]] = {}
    met: set[type] = set()
    counts = range(game.min_players, game.max_players + 1)
    combos = [(seats, options) for options in VARIANTS[name] for seats in counts]
    for i in range(GAMES_PER_NAME):
        if i >= len(combos) and types <= met:
            break
        seats, options = combos[i % len(combos)]
        seed = f"{SEED}-{name}-{i}".encode()
        played = play(game, game.options_type(**options), [random_bot] * seats, seed)
        for event in played.events:
            met.add(type(event))
            seen.setdefault(msgspec.json.encode(event) + bytes([seats]), (event, seats))
    built = types - met
    print(f"{name}: seed {SEED}, random play met {len(met)}/{len(types)} event types;")
    print(f"  built by hand: {sorted(t.__name__ for t in built) or 'none'}")
    out = list(seen.values())
    out += [(e, FALLBACK_SEATS) for e in FALLBACK.get(name, []) if type(e) in built]
    return out, built


def concerned(event: Any, seats: int) -> tuple[set[int], set[int]]:
    """The seats an event names (its line reads differently for each of them: "you"), and
    the seats it may name ("you" too): those, and every seat of a value-per-seat list, which
    a line may leave out where the value is nothing."""
    named: set[int] = set()
    listed: set[int] = set()
    for field in msgspec.structs.fields(type(event)):
        value = getattr(event, field.name)
        if field.name in SEAT and isinstance(value, int) and not isinstance(value, bool):
            named.add(value)
        elif field.name in SEATS and isinstance(value, list):
            named.update(v for v in value if isinstance(v, int))
        elif field.name in PER_SEAT and isinstance(value, list) and len(value) == seats:
            named.update(s for s, v in enumerate(value) if v)
            listed.update(range(seats))
        elif field.name == "rolls":  # Santa Maria's blue dice: [seat, die, face]
            named.update(r[0] for r in value if r)
    named = {s for s in named if 0 <= s < seats}
    return named, named | listed


def glitches(line: str) -> Iterator[str]:
    if not line or line != line.strip() or "\n" in line:
        yield "blank, padded or on several lines"
        return
    if line[0].islower():
        yield "starts in lowercase"
    if not line.endswith("."):
        yield "does not end with a full stop"
    for pattern, what in GLITCHES:
        found = pattern.search(line)
        if found:
            yield f"{what}: {found.group(0)!r}"


def test_the_hosted_games_are_the_four() -> None:
    domain = {n for n, g in GAMES.items() if type(g).__module__.startswith("domain.")}
    assert sorted(domain) == HOSTED


@pytest.mark.parametrize("name", HOSTED)
def test_every_event_type_is_met(name: str) -> None:
    """Random play (or, for the few it does not reach, FALLBACK) gives every event type."""
    game = GAMES[name]
    types = set(typing.get_args(game.event_type))
    events, _ = samples(name)
    missing = types - {type(e) for e, _ in events}
    assert not missing, (
        f"seed {SEED}: add a FALLBACK event for {sorted(t.__name__ for t in missing)}"
    )
    for event in FALLBACK[name]:  # the hand-built events are well-formed events of the game
        data = msgspec.json.encode(event)
        assert msgspec.json.decode(data, type=game.event_type) == event


@pytest.mark.parametrize("name", HOSTED)
def test_every_line_reads_in_the_second_and_third_person(name: str) -> None:
    game = GAMES[name]
    events, _ = samples(name)
    problems: dict[tuple[str, str], str] = {}  # (event type, glitch) -> one example

    def flag(event: Any, what: str, line: str, viewer: int | None) -> None:
        key = (type(event).__name__, what.split(":")[0])
        problems.setdefault(key, f"{what} in {line!r} (viewer {viewer}, {event!r})")

    for event, seats in events:
        lines = {v: game.describe(event, v) for v in [None, *range(seats)]}
        for viewer, line in lines.items():
            for what in glitches(line):
                flag(event, what, line, viewer)
        spectator = lines[None]
        if YOU.search(spectator):
            flag(event, "a spectator is called 'you'", spectator, None)
        names, mentioned = concerned(event, seats)
        for seat in names:
            second = lines[seat]
            if not YOU.search(second):
                flag(event, "the seat concerned is not called 'you'", second, seat)
            if second == spectator:
                flag(event, "second person reads as the third", second, seat)
            if not re.search(rf"\b[Ss]eat {seat}\b", spectator):
                flag(event, f"the spectator's line does not name seat {seat}", spectator, None)
            for other in set(range(seats)) - mentioned:
                third = lines[other]
                if YOU.search(third) or third == second:
                    flag(event, f"seat {other}, not concerned, is called 'you'", third, other)
                if not re.search(rf"\b[Ss]eat {seat}\b", third):
                    flag(event, f"seat {other}'s line does not name seat {seat}", third, other)
    report = "\n".join(f"{t}: {example}" for (t, _), example in sorted(problems.items()))
    assert not problems, f"seed {SEED}, {len(problems)} glitches:\n{report}"


@pytest.mark.parametrize("name", HOSTED)
def test_every_event_type_reads_for_each_viewer(name: str) -> None:
    """One line of each event type, shown in full for each kind of reader (the report of a
    failure lists them); each differs between its seat and everyone else where it names one."""
    game = GAMES[name]
    events, _ = samples(name)
    first: dict[type, tuple[Any, int]] = {}
    for event, seats in events:
        if concerned(event, seats)[0] or type(event) not in first:
            first.setdefault(type(event), (event, seats))
    assert set(first) == set(typing.get_args(game.event_type))
    for event, seats in first.values():
        names, _ = concerned(event, seats)
        seat = min(names) if names else 0
        others = sorted(set(range(seats)) - {seat})
        second, third = game.describe(event, seat), game.describe(event, others[0])
        spectator = game.describe(event, None)
        print(f"{type(event).__name__}:\n  2nd: {second}\n  3rd: {third}\n  spectator: {spectator}")
        if names:
            assert second != spectator, (SEED, event, second)


def test_the_helpers_agree_with_the_viewer() -> None:
    """domain/narrate.py: the subject, possessive and verb of a seat, for itself and others."""
    from domain.narrate import agree, article, does, plural, whose

    assert does(0, 0, "is") == "You are" and does(0, 1, "is") == "Seat 0 is"
    assert does(2, 2, "has", False) == "you have" and does(-1, 2, "gains") == "Nobody gains"
    assert [agree(1, 1, v) for v in ("stays", "passes", "reaches", "carries", "took", "may")] == [
        "stay",
        "pass",
        "reach",
        "carry",
        "took",
        "may",
    ]
    assert agree(1, None, "stays") == "stays"  # a spectator is nobody's "you"
    assert (whose(1, 1), whose(1, 0, False), whose(None, 0)) == ("Your", "seat 1's", "Nobody's")
    assert [article(x) for x in ("alchemist", "wood_peddler", "university", "office")] == [
        "an alchemist",
        "a wood peddler",
        "a university",
        "an office",
    ]
    assert [plural(n, w) for n, w in ((1, "coin"), (-1, "denier"), (0, "batch"))] == [
        "1 coin",
        "-1 denier",
        "0 batches",
    ]

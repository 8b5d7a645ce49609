"""Knockout places, a property over random knockouts: the production pairing and standings
(`pairing.next_round`, `pairing.over`, `pairing.forfeited_twice`, `standings`) drive a
tournament's state through its events as the director does (service/tournaments.py), with
random entrant counts, table sizes, `advance`, smallest tables, results, forfeits and
withdrawals. Whatever happens: the final's winner is first, nobody knocked out earlier is
above someone who went further, a forfeited seat or a withdrawn entrant never goes on, and
without forfeits or withdrawals every knockout ends in a final.

TABLETOP_GAMES scales the number of knockouts (10 per game of a configuration: 240 by
default); TABLETOP_SEED replays a run."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from domain.tournaments import pairing
from domain.tournaments.standings import RULESET, default_points, final_table, stages, standings
from domain.tournaments.state import Tournament, evolve, fold
from tests.support.sampling import (
    base_seed,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

PER_GAME = 10  # knockouts per TABLETOP_GAMES game


@dataclass
class Knockout:
    """One random knockout: its settings, and its events as the director writes them."""

    where: str  # how to replay it
    entrants: int
    size: int
    low: int
    advance: int
    forfeit_rate: float  # the chance that a seat forfeits its game
    withdraw_rate: float  # the chance, per round, that an entrant playing withdraws
    realistic: bool  # forfeited seats ranked last, as the game service ranks them
    events: list[dict[str, Any]] = field(default_factory=list)
    forfeits: int = 0
    withdrawals: int = 0


def _knockouts() -> Iterator[tuple[Knockout, random.Random]]:
    for i in range(PER_GAME * games_per_config()):
        rng = random.Random(f"{base_seed()}/knockout/{i}")
        size = rng.randint(2, 5)
        quiet = rng.random() < 0.3  # no forfeit and no withdrawal: it must end in a final
        yield (
            Knockout(
                where=f"TABLETOP_SEED={base_seed()} knockout={i}",
                entrants=rng.randint(max(5, size), 40),
                size=size,
                low=rng.randint(2, size),
                advance=rng.randint(1, size - 1),
                forfeit_rate=0.0 if quiet else rng.choice([0.05, 0.15, 0.4]),
                withdraw_rate=0.0 if quiet else rng.choice([0.0, 0.1, 0.3]),
                realistic=rng.random() < 0.5,
            ),
            rng,
        )


def _result(k: Knockout, rng: random.Random, seats: int, out: set[int]) -> dict[str, Any]:
    """A table's result: random scores (ties happen), competition ranks from them, random
    forfeits (`out` forfeits in any case: its entrant withdrew during the game)."""
    forfeited = sorted(out | {s for s in range(seats) if rng.random() < k.forfeit_rate})
    scores = [rng.randrange(8) for _ in range(seats)]
    playing = [s for s in range(seats) if not k.realistic or s not in forfeited]
    ranks = [1 + sum(scores[o] > scores[s] for o in playing) for s in range(seats)]
    if k.realistic:  # the game service ranks forfeited seats after everyone else
        ranks = [1 + len(playing) if s in forfeited else ranks[s] for s in range(seats)]
    return {"ranks": ranks, "scores": scores, "forfeited": forfeited}


def _play(k: Knockout, rng: random.Random) -> Tournament:
    """The knockout from registration to its `finished` event, as the director runs it:
    results recorded, two forfeits in a row withdrawn, then the next round or the end."""
    config = {
        "format": "knockout", "table_size": k.size, "rounds": 0, "advance": k.advance,
        "points": default_points(k.size), "seed": k.where, "game": "g", "ruleset": RULESET,
    }  # fmt: skip
    k.events = [{"type": "created", "config": config}]
    k.events += [
        {"type": "registered", "entrant": f"e{i}", "name": f"e{i}"} for i in range(k.entrants)
    ]
    k.events.append({"type": "started"})
    state = fold("t", k.events)

    def write(event: dict[str, Any]) -> None:
        k.events.append(event)
        evolve(state, "t", event)

    for _ in range(k.entrants):  # a round knocks someone out, so far fewer than this
        for entrant in pairing.forfeited_twice(state):
            write({"type": "withdrawn", "entrant": entrant, "reason": "forfeited_twice"})
        if state.rounds and pairing.over(state, k.low):
            write({"type": "finished", "standings": standings(state)})
            return state
        tables, byes = pairing.next_round(state, k.low, k.size)
        n = len(state.rounds) + 1
        listed = [{"table": i, "seats": t, "game": f"g{n}.{i}"} for i, t in enumerate(tables)]
        write({"type": "round_started", "round": n, "tables": listed, "byes": byes})
        leaving = {e for t in tables for e in t if rng.random() < k.withdraw_rate}
        for entrant in sorted(leaving):  # a withdrawal forfeits the game being played
            write({"type": "withdrawn", "entrant": entrant, "reason": "requested"})
        for i, table in enumerate(tables):
            out = {s for s, e in enumerate(table) if e in leaving}
            result = _result(k, rng, len(table), out)
            k.forfeits += len(result["forfeited"])
            write({"type": "table_finished", "round": n, "table": i, **result})
        k.withdrawals += len(leaving)
    raise AssertionError(f"{k.where}: the knockout did not end")


def _check(k: Knockout, state: Tournament) -> None:
    where = f"{k.where} ({k.entrants} entrants, tables of {k.size}, low {k.low}, "
    where += f"advance {k.advance})"
    lines = state.standings
    assert state.status == "finished" and lines is not None, where
    assert lines == standings(fold("t", k.events)), where  # what the stream folds to
    assert sorted(line["entrant"] for line in lines) == sorted(state.entrants), where
    stage = stages(state)
    reached = [stage[line["entrant"]][0] for line in lines]
    assert reached == sorted(reached, reverse=True), (where, "knocked out earlier is above")
    places = [line["place"] for line in lines]
    assert places[0] == 1 and places == sorted(places), where
    for before, after in zip(state.rounds, state.rounds[1:], strict=False):
        went_on = {e for t in after.tables for e in t.seats} | set(after.byes)
        for t in before.tables:
            for seat in t.forfeited:
                assert t.seats[seat] not in went_on, (where, "a forfeited seat went on")
    final = final_table(state)
    if k.forfeits == k.withdrawals == 0:
        assert final is not None, (where, "no final", [len(r.tables) for r in state.rounds])
    if final is None:
        return
    table = state.rounds[-1].tables[0]
    assert table.ranks is not None, where
    seated = len(table.seats)
    assert {line["entrant"] for line in lines[:seated]} == set(table.seats), where
    kept = [s for s in range(seated) if s not in table.forfeited]
    if kept:
        best = min(table.ranks[s] for s in kept)
        winners = {table.seats[s] for s in kept if table.ranks[s] == best}
        assert lines[0]["entrant"] in winners, (where, "the final's winner is not first")
        assert all(line["place"] == 1 for line in lines if line["entrant"] in winners), where
        if not table.forfeited:  # the final's ranks are its places
            by_entrant = {line["entrant"]: line["place"] for line in lines}
            assert [by_entrant[e] for e in table.seats] == table.ranks, where


def test_property_the_final_decides_the_top_places_nobody_knocked_out_earlier_is_above() -> None:
    finals = 0
    for k, rng in _knockouts():
        state = _play(k, rng)
        _check(k, state)
        finals += final_table(state) is not None
    assert finals > 0, f"TABLETOP_SEED={base_seed()}: no knockout reached a final"


def _two_tables_then_final(forfeited: list[int]) -> list[dict[str, Any]]:
    """Eight entrants at two tables of four, two of each going on, then the final."""
    config = {
        "format": "knockout", "table_size": 4, "rounds": 0, "advance": 2,
        "points": default_points(4), "seed": "s", "game": "g", "ruleset": RULESET,
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "created", "config": config}]
    events += [{"type": "registered", "entrant": f"e{i}", "name": f"e{i}"} for i in range(8)]
    tables = [
        {"table": 0, "seats": ["e0", "e1", "e2", "e3"], "game": "a"},
        {"table": 1, "seats": ["e4", "e5", "e6", "e7"], "game": "b"},
    ]
    return [
        *events,
        {"type": "started"},
        {"type": "round_started", "round": 1, "tables": tables, "byes": []},
        # e0 wins table 0 with many points; e1 is second but forfeited
        {"type": "table_finished", "round": 1, "table": 0, "ranks": [1, 2, 3, 4],
         "scores": [50, 40, 30, 20], "forfeited": forfeited},
        {"type": "table_finished", "round": 1, "table": 1, "ranks": [1, 2, 3, 4],
         "scores": [9, 8, 7, 6], "forfeited": []},
    ]  # fmt: skip


@pytest.mark.parametrize("forfeited", [[], [1]])
def test_a_forfeited_seat_never_goes_on_and_is_placed_behind_its_table(
    forfeited: list[int],
) -> None:
    state = fold("t", _two_tables_then_final(forfeited))
    tables, byes = pairing.next_round(state, 2, 4)
    assert byes == [] and len(tables) == 1
    expected = {"e0", "e2", "e4", "e5"} if forfeited else {"e0", "e1", "e4", "e5"}
    assert set(tables[0]) == expected  # e2, third, goes on in the place of e1
    order = [line["entrant"] for line in standings(state)]
    if forfeited:  # behind e3, who lost to e1 but played it out
        assert order.index("e1") > order.index("e3")


def test_the_final_beats_points_gathered_earlier() -> None:
    events = _two_tables_then_final([])
    final = ["e4", "e5", "e0", "e1"]  # e0 and e1 won more points in round 1 than e4 and e5
    events += [
        {"type": "round_started", "round": 2, "byes": [],
         "tables": [{"table": 0, "seats": final, "game": "f"}]},
        {"type": "table_finished", "round": 2, "table": 0, "ranks": [1, 2, 2, 4],
         "scores": [5, 4, 4, 0], "forfeited": []},
    ]  # fmt: skip
    state = fold("t", events)
    assert pairing.over(state)
    lines = standings(state)
    assert [(line["entrant"], line["place"]) for line in lines[:4]] == [
        ("e4", 1), ("e0", 2), ("e5", 2), ("e1", 4)
    ]  # fmt: skip
    assert lines[1]["points"] > lines[2]["points"]  # the shared 2nd: ordered by points
    assert {line["entrant"] for line in lines[4:]} == {"e2", "e3", "e6", "e7"}
    assert {line["entrant"] for line in lines[4:6]} == {"e2", "e6"}  # third of their tables


def test_too_few_to_seat_a_final_are_topped_up_from_the_best_of_the_others() -> None:
    """Tables of 4 with 1 going on each and tables of at least 3: the two winners and the
    best second (by rank, then game score) make the final."""
    events = _two_tables_then_final([])
    events[0]["config"]["advance"] = 1
    state = fold("t", events)
    assert not pairing.over(state, 3)
    tables, byes = pairing.next_round(state, 3, 4)
    assert byes == [] and sorted(tables[0]) == ["e0", "e1", "e4"]  # e1 scored 40, e5 8


def test_a_single_table_with_byes_is_no_final() -> None:
    """Five entrants at tables of 3-4: four play, one has a bye; then a final of three."""
    config = {
        "format": "knockout", "table_size": 4, "rounds": 0, "advance": 2,
        "points": default_points(4), "seed": "s", "game": "g", "ruleset": RULESET,
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "created", "config": config}]
    events += [{"type": "registered", "entrant": f"e{i}", "name": f"e{i}"} for i in range(5)]
    events.append({"type": "started"})
    state = fold("t", events)
    tables, byes = pairing.next_round(state, 3, 4)
    assert [len(t) for t in tables] == [4] and len(byes) == 1
    listed = [{"table": 0, "seats": tables[0], "game": "a"}]
    for event in (
        {"type": "round_started", "round": 1, "tables": listed, "byes": byes},
        {"type": "table_finished", "round": 1, "table": 0, "ranks": [1, 2, 3, 4],
         "scores": [4, 3, 2, 1], "forfeited": []},
    ):  # fmt: skip
        evolve(state, "t", event)
    assert not pairing.over(state, 3)
    final, none = pairing.next_round(state, 3, 4)
    assert none == [] and sorted(final[0]) == sorted([*tables[0][:2], *byes])


@pytest.mark.parametrize("fmt", ["swiss", "round-robin"])
def test_swiss_and_round_robin_standings_are_those_of_before(fmt: str) -> None:
    """Ruleset 2 adds `withdrawn_reason` to each line; order, points and places are those
    of a tournament created before it (no ruleset), on random results."""
    rng = random.Random(f"{base_seed()}/{fmt}")
    config = {
        "format": fmt, "table_size": 4, "rounds": 4, "advance": 2,
        "points": default_points(4), "seed": "s", "game": "g",
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "created", "config": config}]
    events += [{"type": "registered", "entrant": f"e{i}", "name": f"e{i}"} for i in range(13)]
    events += [{"type": "started"}, {"type": "withdrawn", "entrant": "e3", "reason": "requested"}]
    state = fold("t", events)
    while not pairing.over(state):
        tables, byes = pairing.next_round(state, 2, 4)
        n = len(state.rounds) + 1
        listed = [{"table": i, "seats": t, "game": f"g{n}.{i}"} for i, t in enumerate(tables)]
        events.append({"type": "round_started", "round": n, "tables": listed, "byes": byes})
        for i, table in enumerate(tables):
            scores = [rng.randrange(6) for _ in table]
            ranks = [1 + sum(o > s for o in scores) for s in scores]
            events.append({"type": "table_finished", "round": n, "table": i, "ranks": ranks,
                           "scores": scores, "forfeited": []})  # fmt: skip
        state = fold("t", events)
    before = standings(state)
    events[0] = {"type": "created", "config": {**config, "ruleset": RULESET}}
    now = standings(fold("t", events))
    reasons = {line.pop("withdrawn_reason") for line in now}
    assert now == before, f"TABLETOP_SEED={base_seed()}"
    assert reasons == {None, "requested"}

"""Arena tournaments: tables form continuously from the pool for a fixed duration.

- The pool and the pairing (domain): the longest waiting start a table, and entrants who
  just met are kept apart while others wait; nobody sits at two running tables.
- The streak (a rules example): two wins in a row double the next game's points, until a
  game is not won.
- An arena of 10 bots and 2 scripted people, at 2-seat and 4-seat tables, through the
  service on the real Postgres with the fake clock: tables form as entrants come free, none
  in the quiet end, it finishes at its end (on the director's first pass after it) with
  the games still running uncounted, and its standings are recomputed here from the
  recorded results by this test's own arithmetic.
"""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import msgspec
import pytest

from domain.tournaments import arena
from domain.tournaments.standings import default_points, standings
from domain.tournaments.state import Tournament, evolve
from service import clocks
from service.errors import Unprocessable
from service.players import Player, Players
from service.store import EventStoreApp
from service.tournament_log import PREFIX
from service.tournaments import NewTournament, TournamentService
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.sampling import (
    base_seed,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

DURATION_S, QUIET_S, STEP_S = 240, 60, 30  # the arena's length, its quiet end, a tick's gap


def _state(entrants: int, size: int) -> Tournament:
    state = evolve(None, "t", {"type": "created", "config": {
        "format": "arena", "table_size": size, "points": default_points(size)}})  # fmt: skip
    for i in range(entrants):
        state = evolve(state, "t", {"type": "registered", "entrant": f"e{i}", "name": f"E{i}"})
    return evolve(state, "t", {"type": "started", "ends_at": "2026-01-01T01:00:00Z"})


def _play(state: Tournament, tables: list[list[str]], winners: list[int]) -> Tournament:
    """Seat `tables` (as the director's events would) and finish them, seat `winners[i]`
    of table i winning, the others ranked after it in seat order."""
    first = len(arena.tables(state))
    listed = [
        {"table": first + i, "seats": t, "game": f"g{first + i}"} for i, t in enumerate(tables)
    ]
    event = (
        {"type": "tables_added", "round": 1, "tables": listed}
        if state.rounds
        else {"type": "round_started", "round": 1, "tables": listed, "byes": []}
    )
    state = evolve(state, "t", event)
    for i, table in enumerate(tables):
        ranks = [1 if s == winners[i] else 2 + s for s in range(len(table))]
        finished = {"type": "table_finished", "round": 1, "table": first + i,
                    "ranks": ranks, "scores": [0] * len(table)}  # fmt: skip
        state = evolve(state, "t", finished)
    return state


def test_the_pool_keeps_those_who_just_met_apart_while_others_wait() -> None:
    state = _state(4, 2)
    first = arena.pair(state)
    assert first == [["e0", "e1"], ["e2", "e3"]]  # longest waiting (registration) first
    state = _play(state, first, [0, 0])
    again = arena.pair(state)
    # e0 and e1 just met, as did e2 and e3: each meets someone else now
    assert sorted(sorted(t) for t in again) == [["e0", "e2"], ["e1", "e3"]]
    assert all(len(t) == 2 for t in again)


def test_nobody_at_a_running_table_is_paired_and_a_lone_waiter_waits() -> None:
    state = _state(5, 2)
    formed = arena.pair(state)
    assert len(formed) == 2 and arena.waiting(state) == [e for e in state.entrants]
    state = evolve(state, "t", {"type": "round_started", "round": 1, "byes": [], "tables": [
        {"table": i, "seats": t, "game": f"g{i}"} for i, t in enumerate(formed)]})  # fmt: skip
    assert arena.pair(state) == []  # one entrant waits alone: no table of one
    assert arena.waiting(state) == ["e4"]


def test_two_wins_in_a_row_double_the_next_games_points_until_one_is_not_won() -> None:
    state = _state(2, 2)  # points 2 for a win, 0 for a loss
    for winner in (0, 0, 0, 0, 1, 0):  # e0 wins four, loses one, wins again
        state = _play(state, [["e0", "e1"]], [winner])
    lines = {line["entrant"]: line for line in standings(state)}
    # e0: 2 + 2 + 4 + 4 (on a streak after two wins) + 0 (lost: out) + 2
    assert lines["e0"]["points"] == 14 and lines["e0"]["wins"] == 5
    assert lines["e1"]["points"] == 2 and not lines["e0"]["streak"]
    assert [line["entrant"] for line in standings(state)] == ["e0", "e1"]


def _new(tournaments: TournamentService, organiser: Player, size: int) -> UUID:
    body = {"game": "caylus", "format": "arena", "table_size": size,
            "duration_s": DURATION_S, "quiet_s": QUIET_S}  # fmt: skip
    made = tournaments.create(organiser, msgspec.convert(body, NewTournament))
    return UUID(made.folded.state.id)


def test_an_arena_needs_a_duration_and_a_quiet_end_shorter_than_it(
    tournaments: TournamentService, organiser: Player
) -> None:
    for extra in ({}, {"duration_s": 600, "quiet_s": 600}):
        body = {"game": "caylus", "format": "arena", "table_size": 2, **extra}
        with pytest.raises(Unprocessable) as refused:
            tournaments.create(organiser, msgspec.convert(body, NewTournament))
        assert refused.value.code == "invalid_duration"
    swiss = {"game": "caylus", "format": "swiss", "table_size": 2, "rounds": 2,
             "duration_s": 600}  # fmt: skip
    with pytest.raises(Unprocessable):
        tournaments.create(organiser, msgspec.convert(swiss, NewTournament))


def _people_play(
    games: GameService, people: dict[str, Player], game_id: UUID, rng: random.Random
) -> None:
    """The game to its end: the bots move by themselves, the people move at random."""
    fold = games.settled(game_id)
    while not fold.over:
        for seat in fold.awaiting():
            player = fold.players[seat]
            if player in people and seat not in fold.forfeited:
                legal = fold.game.legal_commands(fold.state, seat)
                move = msgspec.to_builtins(rng.choice(legal))
                games.move(people[player], game_id, fold.version, move, f"{fold.version}")
                break
        fold = games.settled(game_id)


@pytest.mark.parametrize("size", [2, 4])
def test_an_arena_of_ten_bots_and_two_people_ends_on_time_with_standings_recomputed(
    size: int,
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    clock: FakeClock,
) -> None:
    rng = random.Random(f"{base_seed()}/arena/{size}")
    tid = _new(tournaments, organiser, size)
    people = {}
    for name in ("ada", "bob"):
        player = Players(store).register(name)[0]
        people[player.id] = player
        tournaments.register(player, tid, None)
    for _ in range(10):
        tournaments.register(organiser, tid, "random")
    started = tournaments.start(organiser, tid).folded.state
    ends = clocks.micros(started.ends_at)
    assert ends == clock.us + DURATION_S * 1_000_000
    while True:
        t = tournaments.advance(tid).state
        if t.status == "finished":
            break
        for table in arena.tables(t):
            if table.ranks is None:  # everyone plays at once: the fake clock stands still
                _people_play(games, people, UUID(table.game), rng)
        clock.advance(STEP_S)
    finished_at = clocks.micros(_events(store, tid)[-1].at)
    assert ends <= finished_at < ends + STEP_S * 1_000_000, "it did not end on time"
    events = _events(store, tid)
    formed = [e for e in events if e.type in (PREFIX + "round_started", PREFIX + "tables_added")]
    assert len(formed) >= 3, "tables did not keep forming"
    for e in formed:  # none in the quiet end
        assert clocks.micros(e.at) < ends - QUIET_S * 1_000_000
    assert t.standings == _recomputed(events, size)
    counted = sum(line["games"] for line in t.standings)
    assert counted == size * sum(1 for e in events if e.type == PREFIX + "table_finished")
    assert all(line["games"] >= 3 for line in t.standings)  # back in the pool at once


def _events(store: EventStoreApp, tid: UUID) -> list[Any]:
    return list(store.events.get(tid))


def _recomputed(events: list[Any], size: int) -> list[dict[str, Any]]:
    """The standings from the recorded results, by this test's own arithmetic: a win (rank
    1) after two wins in a row counts double, then points, wins and score decide (then the
    order of registration)."""
    scale = default_points(size)
    names: dict[str, str] = {}
    seats: dict[int, list[str]] = {}
    history: dict[str, list[tuple[float, bool, int]]] = {}
    for e in events:
        kind, data = e.type.removeprefix(PREFIX), e.data
        if kind == "registered":
            names[data["entrant"]] = data["name"]
            history[data["entrant"]] = []
        for table in data.get("tables", []) if kind in ("round_started", "tables_added") else []:
            seats[table["table"]] = table["seats"]
        if kind == "table_finished":  # every table is full here: the scale read as is
            for seat, entrant in enumerate(seats[data["table"]]):
                rank = data["ranks"][seat]
                won = rank == 1 and seat not in data["forfeited"]
                history[entrant].append((scale[rank - 1], won, data["scores"][seat]))
    lines = []
    for i, (entrant, played) in enumerate(history.items()):
        points, run = 0.0, 0
        for gained, won, _ in played:
            points += gained * (2 if run >= 2 else 1)
            run = run + 1 if won else 0
        wins, score = sum(w for _, w, _ in played), sum(s for _, _, s in played)
        lines.append((-points, -wins, -score, i, entrant, points, wins, score, len(played), run))
    out, place, before = [], 0, None
    for n, (*key, _, entrant, points, wins, score, played, run) in enumerate(sorted(lines)):
        place = place if key[:3] == before else n + 1
        before = key[:3]
        out.append({
            "entrant": entrant, "name": names[entrant], "points": points, "wins": wins,
            "streak": run >= 2, "score": score, "games": played, "withdrawn": False,
            "withdrawn_reason": None, "place": place,
        })  # fmt: skip
    return out


def test_a_game_that_ends_after_the_arena_does_not_count_however_late_the_director(
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    clock: FakeClock,
) -> None:
    body = {"game": "caylus", "format": "arena", "table_size": 2, "duration_s": 60,
            "quiet_s": 0}  # fmt: skip
    tid = UUID(tournaments.create(organiser, msgspec.convert(body, NewTournament)).folded.state.id)
    ada, bob = (Players(store).register(name)[0] for name in ("ada", "bob"))
    for player in (ada, bob):
        tournaments.register(player, tid, None)
    state = tournaments.start(organiser, tid).folded.state
    (table,) = arena.tables(state)
    clock.advance(100)  # past its end, and the director has not looked yet
    games.resign(ada, UUID(table.game))  # the game ends now, 40 s after the arena
    done = tournaments.advance(tid).state
    assert done.status == "finished" and done.uncounted == {table.game}
    assert [line["games"] for line in done.standings] == [0, 0]


def test_property_random_arenas_keep_their_invariants_and_standings() -> None:
    """A property over random arenas driven through the production pool and standings (the
    director's events applied to the state as it applies them): random entrant counts and
    table sizes, tables finishing in random order with random ranks (ties, forfeits) and
    withdrawals. Always: every table is full, nobody sits at two running tables or is
    seated after withdrawing, and the standings are this test's own arithmetic over the
    recorded results in their recorded order. TABLETOP_GAMES scales the count."""

    for i in range(10 * games_per_config()):
        where = f"TABLETOP_SEED={base_seed()} arena={i}"
        rng = random.Random(f"{base_seed()}/arena-property/{i}")
        size = rng.randint(2, 5)
        state = _state(rng.randint(size, 3 * size + 3), size)
        running: list[int] = []
        for _ in range(rng.randint(1, 40)):
            formed = arena.pair(state)
            busy = {e for t in arena.tables(state) if t.ranks is None for e in t.seats}
            for table in formed:
                assert len(table) == size and len(set(table)) == size, where
                assert not set(table) & busy and not set(table) & state.withdrawn, where
                busy |= set(table)
            if formed:
                first = len(arena.tables(state))
                listed = [{"table": first + k, "seats": t, "game": f"g{first + k}"}
                          for k, t in enumerate(formed)]  # fmt: skip
                kind = "tables_added" if state.rounds else "round_started"
                state = evolve(state, "t", {"type": kind, "round": 1, "tables": listed,
                                            "byes": []})  # fmt: skip
                running += [t["table"] for t in listed]
            rng.shuffle(running)
            for _ in range(rng.randint(0, len(running))):  # some tables finish, any order
                number = running.pop()
                ranks = sorted(rng.randint(1, size) for _ in range(size))
                rng.shuffle(ranks)
                forfeited = [s for s in range(size) if rng.random() < 0.1]
                state = evolve(state, "t", {"type": "table_finished", "round": 1,
                                            "table": number, "ranks": ranks,
                                            "scores": [rng.randint(0, 50) for _ in ranks],
                                            "forfeited": forfeited})  # fmt: skip
            if rng.random() < 0.1 and state.active:
                gone = rng.choice(state.active)
                state = evolve(state, "t", {"type": "withdrawn", "entrant": gone,
                                            "reason": "requested"})  # fmt: skip
        assert standings(state) == _by_hand(state, size), where


def _by_hand(state: Tournament, size: int) -> list[dict[str, Any]]:
    """The standings from the state's recorded results, by this test's own arithmetic."""
    scale = default_points(size)
    rows = {e: {"points": 0.0, "wins": 0, "score": 0, "games": 0, "run": 0}
            for e in state.entrants}  # fmt: skip
    done = sorted((t for t in arena.tables(state) if t.ranks is not None),
                  key=lambda t: t.finished or 0)  # fmt: skip
    for t in done:
        assert t.ranks is not None and t.scores is not None
        for seat, e in enumerate(t.seats):
            row = rows[e]
            gained = scale[t.ranks[seat] - 1] * (2 if row["run"] >= 2 else 1)
            won = t.ranks[seat] == 1 and seat not in t.forfeited
            row["points"] = round(row["points"] + gained, 6)
            row["run"] = row["run"] + 1 if won else 0
            row["wins"] += won
            row["score"] += t.scores[seat]
            row["games"] += 1
    order = list(state.entrants)
    ranked = sorted(order, key=lambda e: (-rows[e]["points"], -rows[e]["wins"],
                                          -rows[e]["score"], order.index(e)))  # fmt: skip
    out: list[dict[str, Any]] = []
    for n, e in enumerate(ranked):
        row = rows[e]
        key = (row["points"], row["wins"], row["score"])
        tied = out and (out[-1]["points"], out[-1]["wins"], out[-1]["score"]) == key
        out.append({"entrant": e, "name": state.entrants[e]["name"], "points": row["points"],
                    "wins": row["wins"], "streak": row["run"] >= 2, "score": row["score"],
                    "games": row["games"], "withdrawn": e in state.withdrawn,
                    "withdrawn_reason": state.withdrawn_reasons.get(e),
                    "place": out[-1]["place"] if tied else n + 1})  # fmt: skip
    return out

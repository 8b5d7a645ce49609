"""Whole tournaments through the service on the real Postgres: bots play every table (the
bot runner, after the commits that await them), the director records results and starts
rounds (driven by tests/tournaments/driving.py until it is over), standings are recomputed
here from the games themselves, ratings move, and a rebuild of the read models gives the
same rows."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any
from uuid import UUID

import msgspec
import pytest

from domain.tournaments.standings import points_for
from projections.runner import GamesRunner, rebuild, view_for
from service.audit import tournament_export, verify_tournament
from service.errors import Conflict, Unprocessable
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from service.tournaments import NewTournament, TournamentService
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.tournaments.driving import play, settle_tables


def _bots_tournament(
    tournaments: TournamentService, organiser: Player, entrants: int, **config: Any
) -> UUID:
    new = msgspec.convert({"game": "puerto-rico", "table_size": 4, **config}, NewTournament)
    t = tournaments.create(organiser, new).folded
    tid = UUID(t.state.id)
    for i in range(entrants):
        tournaments.register(organiser, tid, "greedy" if i % 3 == 0 else "random")
    return tid


def _standings_by_hand(games: GameService, t: Any) -> dict[str, float]:
    """Points from each table's game as the game service reads it (not the tournament)."""
    scale = t.state.config["points"]
    points: Counter[str] = Counter({e: 0.0 for e in t.state.entrants})
    for r in t.state.rounds:
        for table in r.tables:
            result = games.get(UUID(table.game)).result
            assert result is not None
            for seat, entrant in enumerate(table.seats):
                points[entrant] += points_for(scale, len(table.seats), result.ranks[seat])
        for bye in r.byes:
            points[bye] += sum(scale) / len(scale)
    return {e: round(p, 6) for e, p in points.items()}


@pytest.mark.parametrize("fmt", ["swiss", "round-robin"])
def test_sixteen_bots_at_four_seat_tables_over_five_rounds(
    tournaments: TournamentService, games: GameService, organiser: Player, fmt: str
) -> None:
    tid = _bots_tournament(tournaments, organiser, 16, format=fmt, rounds=5)
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    assert [len(r.tables) for r in t.state.rounds] == [4] * 5
    met = Counter(
        frozenset(p)
        for r in t.state.rounds
        for table in r.tables
        for p in itertools.combinations(table.seats, 2)
    )
    if fmt == "round-robin":  # every pair exactly once
        assert len(met) == 120 and set(met.values()) == {1}
    else:
        assert max(met.values()) <= 2 and sum(c - 1 for c in met.values()) <= 12
    seat_counts = Counter(
        (e, s) for r in t.state.rounds for tb in r.tables for s, e in enumerate(tb.seats)
    )
    widest = 1 if fmt == "round-robin" else 2  # swiss: 1 in about 5 of 6 tournaments
    for entrant in t.state.entrants:  # 5 games, 4 seats: 2/1/1/1 at best
        held = [seat_counts[(entrant, s)] for s in range(4)]
        assert max(held) - min(held) <= widest, (entrant, held)
    by_hand = _standings_by_hand(games, t)
    final = t.state.standings
    assert {line["entrant"]: line["points"] for line in final} == by_hand
    assert [line["points"] for line in final] == sorted(by_hand.values(), reverse=True)
    for r in t.state.rounds:
        for table in r.tables:
            fold = games.get(UUID(table.game))
            assert fold.rated and fold.tournament == str(tid) and fold.clock is not None


def test_thirteen_players_play_at_uneven_tables(
    tournaments: TournamentService, games: GameService, organiser: Player
) -> None:
    tid = _bots_tournament(tournaments, organiser, 13, format="swiss", rounds=3)
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    for r in t.state.rounds:
        assert sorted(len(table.seats) for table in r.tables) == [3, 3, 3, 4] and r.byes == []


def test_a_knockout_ends_at_one_final_table(
    tournaments: TournamentService, games: GameService, organiser: Player
) -> None:
    tid = _bots_tournament(tournaments, organiser, 16, format="knockout", advance=2)
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    assert [len(r.tables) for r in t.state.rounds] == [4, 2, 1]
    final = t.state.rounds[-1].tables[0]
    assert set(final.seats) <= {e for table in t.state.rounds[1].tables for e in table.seats}
    winners = {e for e, rank in zip(final.seats, final.ranks, strict=True) if rank == 1}
    places = [(line["entrant"], line["place"]) for line in t.state.standings]
    assert places[0][0] in winners and places[0][1] == 1  # the final decides the top
    assert {e for e, _ in places[:4]} == set(final.seats)
    semi = {e for table in t.state.rounds[1].tables for e in table.seats} - set(final.seats)
    assert {e for e, _ in places[4:8]} == semi  # then those knocked out in the semi-finals


def test_registration_and_start_are_refused_when_they_should_be(
    tournaments: TournamentService, store: EventStoreApp, organiser: Player
) -> None:
    ada = Players(store).register("ada")[0]
    new = NewTournament(game="caylus", format="swiss", table_size=3, rounds=2)
    tid = UUID(tournaments.create(organiser, new).folded.state.id)
    tournaments.register(ada, tid, None)
    with pytest.raises(Conflict) as twice:
        tournaments.register(ada, tid, None)
    assert twice.value.code == "already_registered"
    with pytest.raises(Unprocessable) as few:
        tournaments.start(organiser, tid)
    assert few.value.code == "too_few_players"
    for bad, code in (
        ({"table_size": 9}, "invalid_table_size"),
        ({"format": "ladder"}, "invalid_format"),
        ({"rounds": 0}, "invalid_rounds"),
        ({"points": [1, 2, 3]}, "invalid_points"),
        ({"options": {"nope": 1}}, "invalid_options.unknown"),
        ({"clock": {"kind": "deadline", "per_decision_s": 0}}, "invalid_clock"),
    ):
        body = {"game": "caylus", "format": "swiss", "table_size": 3, "rounds": 2, **bad}
        with pytest.raises(Unprocessable) as refused:
            tournaments.create(organiser, msgspec.convert(body, NewTournament))
        assert refused.value.code == code


def test_an_odd_number_at_two_seat_tables_gives_byes_evenly(
    tournaments: TournamentService, games: GameService, organiser: Player
) -> None:
    new = NewTournament(game="caylus", format="swiss", table_size=2, rounds=5)
    tid = UUID(tournaments.create(organiser, new).folded.state.id)
    for _ in range(5):
        tournaments.register(organiser, tid, "random")
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    byes = Counter(b for r in t.state.rounds for b in r.byes)
    assert sum(byes.values()) == 5 and set(byes.values()) == {1}  # one each, nobody twice


def test_a_withdrawal_forfeits_the_running_game_and_a_stalled_seat_times_out(
    pg_settings: Settings,
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    clock: FakeClock,
) -> None:
    ada, bob = (Players(store).register(n)[0] for n in ("ada", "bob"))
    new = NewTournament(
        game="caylus", format="swiss", table_size=2, rounds=2,
        clock={"kind": "deadline", "per_decision_s": 60},
    )  # fmt: skip
    tid = UUID(tournaments.create(organiser, new).folded.state.id)
    for player in (ada, bob):
        tournaments.register(player, tid, None)
    tournaments.register(organiser, tid, "random")
    tournaments.register(organiser, tid, "random")
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)  # the bots' table is played, the people's waits
    assert t.state.status == "running" and len(t.state.rounds) == 1
    waiting = [tb for tb in t.state.rounds[0].tables if tb.ranks is None]
    assert waiting, "a human's table is still running"
    assert tournaments.advance(tid).state.rounds[-1].complete is False  # the round waits
    t = tournaments.withdraw(ada, tid, None).folded
    ada_table = next(tb for tb in t.state.rounds[0].tables if ada.id in tb.seats)
    forfeited = games.settled(UUID(ada_table.game))  # a bot plays the forfeited seat out
    assert forfeited.status == "finished" and forfeited.forfeited
    assert forfeited.forfeited[ada_table.seats.index(ada.id)] == "withdrawn"
    runner = GamesRunner(pg_settings)
    try:
        clock.advance(61)  # bob never moves: his seat times out and forfeits
        runner.caught_up(20)
        keeper = Timekeeper(games.games, view_for(store))
        for _ in range(10):
            keeper.tick()  # timeouts, then the director: results recorded, rounds started
            settle_tables(games, tournaments.get(tid))  # the bots move before time passes
            runner.caught_up(20)
            if tournaments.get(tid).state.status == "finished":
                break
            clock.advance(61)
        t = tournaments.get(tid)
        assert t.state.status == "finished", [r.tables for r in t.state.rounds]
        assert all(ada.id not in tb.seats for tb in t.state.rounds[1].tables)  # not paired
        for r in t.state.rounds:
            for tb in r.tables:
                fold = games.get(UUID(tb.game))
                assert fold.status == "finished"
    finally:
        runner.close()


def test_ratings_move_the_right_way_and_a_rebuild_recomputes_them(
    pg_settings: Settings,
    store: EventStoreApp,
    games: GameService,
    tournaments: TournamentService,
    organiser: Player,
) -> None:
    runner = GamesRunner(pg_settings)
    try:
        ada, bob = (Players(store).register(n)[0] for n in ("ada", "bob"))
        game = games.create(ada, "caylus", 2, {}, {}, 0, None, None, True)
        games.join(bob, game.id, 1)
        games.resign(bob, game.id)  # ada wins against an equal newcomer
        unrated = games.create(ada, "caylus", 2, {}, {}, 0)
        games.join(bob, unrated.id, 1)
        games.resign(ada, unrated.id)  # not rated: moves nothing
        tid = _bots_tournament(tournaments, organiser, 8, format="swiss", rounds=2)
        tournaments.start(organiser, tid)
        assert play(tournaments, games, tid).state.status == "finished"
        runner.caught_up(30)
        view = view_for(store)
        ratings = {r["participant"]: r for r in view.leaderboard("caylus", 0, 10)}
        assert ratings[ada.id]["mu"] > 25 > ratings[bob.id]["mu"]
        assert ratings[ada.id]["games"] == ratings[bob.id]["games"] == 1
        board = view.leaderboard("puerto-rico", 0, 10)
        assert {r["participant"] for r in board} == {"bot:greedy", "bot:random"}
        assert [r["ordinal"] for r in board] == sorted((r["ordinal"] for r in board), reverse=True)
        incremental = view.snapshot()
    finally:
        runner.close()
    rebuild(pg_settings)
    again = view_for(store).snapshot()
    for table in ("ratings", "history", "tournaments", "games", "notices"):
        assert again[table] == incremental[table], table


def test_a_tournament_export_verifies_against_its_games(
    tournaments: TournamentService, games: GameService, store: EventStoreApp, organiser: Player
) -> None:
    from service.audit import export_lines, stored_lines

    tid = _bots_tournament(tournaments, organiser, 8, format="swiss", rounds=2)
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    lines = tournament_export(store, tid)
    exports = {}
    for r in t.state.rounds:
        for tb in r.tables:
            gid = UUID(tb.game)
            exports[tb.game] = list(
                export_lines(gid, stored_lines(store, gid), games.seed_hex(gid))
            )
    assert verify_tournament(lines, exports)["verified"]
    missing = dict(list(exports.items())[1:])
    assert verify_tournament(lines, missing)["games_missing"] == [next(iter(exports))]
    tampered = [dict(line) for line in lines]
    finished = next(
        i for i, x in enumerate(tampered) if x.get("type") == "tournament_table_finished"
    )
    ranks = tampered[finished]["data"]["ranks"]
    tampered[finished]["data"] = {**tampered[finished]["data"], "ranks": [r + 1 for r in ranks]}
    report = verify_tournament(tampered, exports)
    assert (
        not report["verified"] and report["first_broken_version"] == tampered[finished]["version"]
    )
    rng = random.Random(3)
    some = rng.choice(list(exports))
    damaged = dict(exports)
    damaged[some] = exports[some][:-2] + exports[some][-1:]  # a game export that lost a line
    assert some in verify_tournament(lines, damaged)["games_differing"]
    assert not _rewritten(lines, exports, _swap_seats)["verified"]
    assert not _rewritten(lines, exports, _edit_standings)["verified"]
    assert not _rewritten(lines, exports, _drop_a_result)["verified"]
    other = next(g for g in exports if g != some)  # another table's game given for this one
    assert verify_tournament(lines, {**exports, some: exports[other]})["games_differing"]


def _rewritten(lines: list[Any], exports: dict[str, Any], rewrite: Any) -> dict[str, Any]:
    """The tournament export rewritten and re-hashed, as anyone can."""
    from service.chain import GENESIS, line_hash

    copy = [{**x, "data": dict(x["data"])} if "data" in x else dict(x) for x in lines]
    rewrite(copy)
    prev, version = GENESIS, 0
    for line in copy[1:]:
        if "version" in line:
            version += 1
            line["version"], line["prev_hash"] = version, prev
            line["hash"] = line_hash(line)
            prev = line["hash"]
    return verify_tournament(copy, exports)


def _swap_seats(lines: list[Any]) -> None:
    started = next(x for x in lines if x.get("type") == "tournament_round_started")
    table = started["data"]["tables"][0]
    started["data"]["tables"] = [
        {**table, "seats": table["seats"][::-1]},
        *started["data"]["tables"][1:],
    ]


def _edit_standings(lines: list[Any]) -> None:
    finished = next(x for x in lines if x.get("type") == "tournament_finished")
    top = finished["data"]["standings"]
    finished["data"]["standings"] = [{**top[0], "points": top[0]["points"] + 1}, *top[1:]]
    lines[-1] = {"standings": finished["data"]["standings"]}


def _drop_a_result(lines: list[Any]) -> None:
    lines.remove(next(x for x in lines if x.get("type") == "tournament_table_finished"))


def test_a_knockout_with_uneven_tables_still_ends(
    tournaments: TournamentService, games: GameService, organiser: Player
) -> None:
    tid = _bots_tournament(tournaments, organiser, 16, format="knockout", table_size=3, advance=2)
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)
    assert t.state.status == "finished" and len(t.state.rounds[-1].tables) == 1
    assert len(t.state.rounds) < 16


def test_bot_entrants_keep_distinct_ids_after_a_withdrawal(
    tournaments: TournamentService, organiser: Player
) -> None:
    new = NewTournament(game="caylus", format="swiss", table_size=2, rounds=1)
    tid = UUID(tournaments.create(organiser, new).folded.state.id)
    for _ in range(3):
        tournaments.register(organiser, tid, "random")
    tournaments.withdraw(organiser, tid, "bot:random:1")
    t = tournaments.register(organiser, tid, "random").folded
    assert len(t.state.entrants) == 3 == len(set(t.state.entrants))

"""Tournament hygiene through the service on the real Postgres, time on a fake clock: an
entrant who forfeits twice in a row is withdrawn by the director; a tournament with a
`starts_at` starts by itself then (the timekeeper finds it in the read model), or is
cancelled with too few entrants; entry conditions on rated games and rating admit and
refuse players (never the organiser's bots); a closed tournament says why it is closed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import msgspec
import pytest

from domain.tournaments import pairing
from domain.tournaments.standings import RULESET, default_points
from domain.tournaments.state import fold
from projections.runner import GamesRunner, view_for
from projections.views import GamesView
from service import clocks
from service.errors import Conflict, Unprocessable
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from service.tournament_log import PREFIX
from service.tournaments import NewTournament, TournamentService
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)
from tests.tournaments.driving import play, settle_tables


@pytest.fixture
def runner(pg_settings: Settings) -> Iterator[GamesRunner]:
    """The read model, fed from the log as the app feeds it."""
    running = GamesRunner(pg_settings)
    yield running
    running.close()


@pytest.fixture
def view(store: EventStoreApp) -> GamesView:
    return view_for(store)


@pytest.fixture
def keeper(games: GameService, view: GamesView) -> Timekeeper:
    """The timekeeper, which directs the tournaments the read model lists at each tick."""
    return Timekeeper(games.games, view)


def _new(tournaments: TournamentService, organiser: Player, **config: Any) -> UUID:
    body = {"game": "caylus", "format": "swiss", "table_size": 2, "rounds": 3, **config}
    return UUID(tournaments.create(organiser, msgspec.convert(body, NewTournament)).folded.state.id)


def _events(store: EventStoreApp, tid: UUID) -> list[Any]:
    return list(store.events.get(tid))


def _types(store: EventStoreApp, tid: UUID) -> list[str]:
    return [e.type.removeprefix(PREFIX) for e in _events(store, tid)]


# ---- two forfeits in a row ---------------------------------------------------------------


def test_an_entrant_who_forfeits_twice_in_a_row_is_withdrawn_and_paired_no_more(
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    clock: FakeClock,
    runner: GamesRunner,
    keeper: Timekeeper,
) -> None:
    """Ada resigns her first game and sits idle through her second (it times out under the
    `forfeit` policy): the director withdraws her, and the third round goes on without her."""
    ada = Players(store).register("ada")[0]
    clock_60 = {"kind": "deadline", "per_decision_s": 60}
    tid = _new(tournaments, organiser, clock=clock_60)
    tournaments.register(ada, tid, None)
    for _ in range(3):
        tournaments.register(organiser, tid, "random")
    tournaments.start(organiser, tid)
    t = play(tournaments, games, tid)  # the bots' table is played; ada's may wait for her

    def ada_game(t: Any) -> UUID:
        return UUID(next(tb.game for tb in t.state.rounds[-1].tables if ada.id in tb.seats))

    games.resign(ada, ada_game(t))  # her first forfeit
    t = play(tournaments, games, tid)
    assert len(t.state.rounds) == 2 and ada.id not in t.state.withdrawn  # once is not enough
    second = ada_game(t)
    for _ in range(10):  # she never moves: her seat times out and forfeits
        if games.get(second).over:
            break
        clock.advance(61)
        runner.caught_up(20)
        keeper.tick()
        settle_tables(games, tournaments.get(tid))
    assert games.get(second).forfeited, "her idle seat forfeited"
    t = play(tournaments, games, tid)
    assert t.state.status == "finished"
    assert t.state.withdrawn == {ada.id}
    assert t.state.withdrawn_reasons == {ada.id: "forfeited_twice"}
    withdrawn = [e for e in _events(store, tid) if e.type == PREFIX + "withdrawn"]
    assert [(e.data["entrant"], e.data["reason"]) for e in withdrawn] == [
        (ada.id, "forfeited_twice")
    ]
    third = t.state.rounds[2]
    assert all(ada.id not in tb.seats for tb in third.tables) and ada.id not in third.byes
    line = next(x for x in t.state.standings if x["entrant"] == ada.id)
    assert line["withdrawn"] is True and line["withdrawn_reason"] == "forfeited_twice"
    with pytest.raises(Conflict) as over:
        tournaments.register(Players(store).register("bob")[0], tid, None)
    assert over.value.code == "tournament_finished"


def test_forfeited_twice_counts_consecutive_tables_only() -> None:
    """A bye between two forfeits does not break the run; a game played out does; and on
    random swiss tournaments nobody is ever paired after two forfeits in a row."""
    config = {
        "format": "swiss", "table_size": 2, "rounds": 6, "advance": 1,
        "points": default_points(2), "seed": "s", "game": "g", "ruleset": RULESET,
    }  # fmt: skip
    base: list[dict[str, Any]] = [{"type": "created", "config": config}]
    base += [{"type": "registered", "entrant": e, "name": e} for e in ("a", "b", "c")]
    base.append({"type": "started"})

    def round_of(n: int, seats: list[str], bye: str, forfeited: list[int]) -> list[Any]:
        table = {"table": 0, "seats": seats, "game": f"g{n}"}
        return [
            {"type": "round_started", "round": n, "tables": [table], "byes": [bye]},
            {"type": "table_finished", "round": n, "table": 0, "ranks": [2, 1],
             "scores": [0, 1], "forfeited": forfeited},
        ]  # fmt: skip

    bye_between = [*round_of(1, ["a", "b"], "c", [0]), *round_of(2, ["b", "c"], "a", [])]
    bye_between += round_of(3, ["a", "c"], "b", [0])
    assert pairing.forfeited_twice(fold("t", base + bye_between)) == ["a"]
    played_between = [*round_of(1, ["a", "b"], "c", [0]), *round_of(2, ["a", "c"], "b", [])]
    played_between += round_of(3, ["a", "b"], "c", [0])
    assert pairing.forfeited_twice(fold("t", base + played_between)) == []
    for i in range(40):
        _random_swiss(random.Random(f"{base_seed()}/forfeits/{i}"), f"{base_seed()}/{i}")


def _random_swiss(rng: random.Random, where: str) -> None:
    """A swiss tournament run as the director runs it, random forfeits and all."""
    size = rng.randint(2, 4)
    config = {
        "format": "swiss", "table_size": size, "rounds": 6, "advance": 1,
        "points": default_points(size), "seed": where, "game": "g", "ruleset": RULESET,
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "created", "config": config}]
    count = rng.randint(size, 16)
    events += [{"type": "registered", "entrant": f"e{i}", "name": f"e{i}"} for i in range(count)]
    events.append({"type": "started"})
    state = fold("t", events)
    streak = dict.fromkeys(state.entrants, 0)  # forfeits in a row, counted here
    while not pairing.over(state):
        for entrant in pairing.forfeited_twice(state):
            assert streak[entrant] >= 2, where
            events.append({"type": "withdrawn", "entrant": entrant, "reason": "forfeited_twice"})
        state = fold("t", events)
        assert all(n < 2 for e, n in streak.items() if e in state.active), where
        tables, byes = pairing.next_round(state, 2, size)
        n = len(state.rounds) + 1
        listed = [{"table": i, "seats": t, "game": f"g{n}.{i}"} for i, t in enumerate(tables)]
        events.append({"type": "round_started", "round": n, "tables": listed, "byes": byes})
        for i, table in enumerate(tables):
            forfeited = [s for s in range(len(table)) if rng.random() < 0.3]
            for seat, entrant in enumerate(table):
                streak[entrant] = streak[entrant] + 1 if seat in forfeited else 0
            ranks = list(range(1, len(table) + 1))
            events.append({"type": "table_finished", "round": n, "table": i, "ranks": ranks,
                           "scores": [0] * len(table), "forfeited": forfeited})  # fmt: skip
        state = fold("t", events)


# ---- starts_at ---------------------------------------------------------------------------


def test_a_scheduled_tournament_starts_by_itself_at_its_time(
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    clock: FakeClock,
    runner: GamesRunner,
    keeper: Timekeeper,
    view: GamesView,
) -> None:
    starts_at = clocks.stamp(clocks.micros(clock()) + 3_600_000_000)  # in an hour
    tid = _new(tournaments, organiser, starts_at=starts_at, rounds=1)
    for _ in range(4):
        tournaments.register(organiser, tid, "random")
    runner.caught_up(20)
    assert str(tid) in view.running_tournaments()  # the timekeeper looks at it each tick
    keeper.tick()
    assert tournaments.get(tid).state.status == "open"  # not before its time
    clock.advance(3599)
    keeper.tick()
    assert tournaments.get(tid).state.status == "open"
    clock.advance(1)
    keeper.tick()
    t = tournaments.get(tid)
    assert t.state.status == "running" and len(t.state.rounds) == 1
    assert _types(store, tid)[-2:] == ["started", "round_started"]
    assert _events(store, tid)[-2].data == {"scheduled": True}
    for table in t.state.rounds[0].tables:  # its games were made on the same tick
        assert games.games.reads.exists(UUID(table.game))
    assert play(tournaments, games, tid).state.status == "finished"
    runner.caught_up(20)
    assert str(tid) not in view.running_tournaments()


def test_a_scheduled_tournament_with_too_few_entrants_is_cancelled(
    store: EventStoreApp,
    tournaments: TournamentService,
    organiser: Player,
    clock: FakeClock,
    runner: GamesRunner,
    keeper: Timekeeper,
    view: GamesView,
) -> None:
    starts_at = clocks.stamp(clocks.micros(clock()) + 60_000_000)
    tid = _new(tournaments, organiser, starts_at=starts_at, table_size=3)  # needs 3
    ada, bob = (Players(store).register(name)[0] for name in ("ada", "bob"))
    tournaments.register(ada, tid, None)
    tournaments.register(organiser, tid, "random")
    runner.caught_up(20)
    clock.advance(60)
    keeper.tick()
    t = tournaments.get(tid)
    assert t.state.status == "cancelled" and t.state.cancelled_reason == "too_few_players"
    assert t.state.rounds == []
    last = _events(store, tid)[-1]
    assert last.type == PREFIX + "cancelled"
    assert last.data == {"reason": "too_few_players", "entrants": 2, "needed": 3}
    for write, code in (
        (lambda: tournaments.register(bob, tid, None), "tournament_cancelled"),
        (lambda: tournaments.start(organiser, tid), "tournament_cancelled"),
        (lambda: tournaments.withdraw(ada, tid, None), "tournament_cancelled"),
    ):
        with pytest.raises(Conflict) as closed:
            write()
        assert closed.value.code == code
    runner.caught_up(20)
    assert str(tid) not in view.running_tournaments()
    keeper.tick()  # nothing more happens to it
    assert tournaments.get(tid).version == t.version


def test_starts_at_must_be_ahead_and_the_organiser_may_start_earlier(
    store: EventStoreApp, tournaments: TournamentService, organiser: Player, clock: FakeClock
) -> None:
    now = clocks.micros(clock())
    for ahead_s in (0, -1, 367 * 86400):
        with pytest.raises(Unprocessable) as refused:
            _new(tournaments, organiser, starts_at=clocks.stamp(now + ahead_s * 1_000_000))
        assert refused.value.code == "invalid_starts_at"
    tid = _new(tournaments, organiser, starts_at=clocks.stamp(now + 60_000_000))
    for _ in range(2):
        tournaments.register(organiser, tid, "random")
    assert tournaments.start(organiser, tid).folded.state.status == "running"
    clock.advance(120)
    assert tournaments.advance(tid).state.status in ("running", "finished")
    assert _types(store, tid).count("started") == 1  # the schedule starts it no more


# ---- entry conditions --------------------------------------------------------------------


def _rated_game(games: GameService, winner: Player, loser: Player) -> None:
    game = games.create(winner, "caylus", 2, {}, {}, 0, None, None, True)
    games.join(loser, game.id, 1)
    games.resign(loser, game.id)


def test_entry_conditions_admit_and_refuse_by_rated_games_and_rating(
    store: EventStoreApp,
    tournaments: TournamentService,
    games: GameService,
    organiser: Player,
    runner: GamesRunner,
    view: GamesView,
) -> None:
    ada, bob, carl = (Players(store).register(name)[0] for name in ("ada", "bob", "carl"))
    _rated_game(games, ada, bob)  # ada rises above a newcomer's 0, bob falls below
    runner.caught_up(20)
    ordinal = {}
    for player in (ada, bob):
        rated = view.rating_of("caylus", player.id)
        assert rated is not None and rated[2] == 1
        ordinal[player.id] = rated[0] - 3 * rated[1]
    assert ordinal[bob.id] < 0 < ordinal[ada.id]  # carl, a newcomer, has 0
    ratings = view.rating_of

    games_needed = _new(tournaments, organiser, entry={"min_rated_games": 1})
    with pytest.raises(Unprocessable) as few:
        tournaments.register(carl, games_needed, None, ratings=ratings)
    assert few.value.code == "entry_condition.min_rated_games"
    for player in (ada, bob):
        tournaments.register(player, games_needed, None, ratings=ratings)

    low, high = ordinal[bob.id] / 2, ordinal[ada.id] / 2
    ranged = _new(tournaments, organiser, entry={"min_rating": low, "max_rating": high})
    for player in (ada, bob):  # above, below
        with pytest.raises(Unprocessable) as out:
            tournaments.register(player, ranged, None, ratings=ratings)
        assert out.value.code == "entry_condition.rating_range"
    tournaments.register(carl, ranged, None, ratings=ratings)
    above = _new(tournaments, organiser, entry={"min_rating": high})
    tournaments.register(ada, above, None, ratings=ratings)

    strict = _new(tournaments, organiser, entry={"min_rated_games": 50, "max_rating": -100})
    t = tournaments.register(organiser, strict, "random", ratings=ratings).folded
    assert list(t.state.entrants) == ["bot:random:1"]  # the organiser's bots are exempt
    entrants = tournaments.get(ranged).state.entrants
    assert list(entrants) == [carl.id]  # a refusal writes nothing

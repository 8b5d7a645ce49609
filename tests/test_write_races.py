"""Every kind of write goes through the one write driver (service/writes.py), and two
processes that race it on Postgres end with exactly one write: the other meets a version
conflict, reads the store again and answers from the game as it then stands.

Each "process" is a service of its own over a store of its own (its own cache, connection
pool and event loop). Both decide on the same state before either saves: their first
saves wait for each other at a barrier, so the race is real every time, not by luck."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from service.decisions import choose_bot_move
from service.errors import Problem
from service.fold import Fold
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from service.tournaments import NewTournament, TournamentService
from service.writes import Writes
from tests.support.clock import FakeClock
from tests.support.games import GameService

FISCHER = {"kind": "fischer", "initial_s": 60, "increment_s": 0}


class Racers:
    """Two services racing: `race(a, b)` runs a(service 0) and b(service 1) at once, their
    first saves held until both have decided; what each answered, and how many saves of
    each met a conflict."""

    def __init__(self, settings: Settings) -> None:
        # Each its own clock, a microsecond apart: two processes' decisions never carry one
        # stamp (identical events would be one write, stored once: see Writes._saved).
        self.clocks = [FakeClock(), FakeClock("2026-01-01T00:00:00.000001Z")]
        self.stores = [open_store(settings) for _ in range(2)]
        self.services = [
            GameService(s, now=c, bots=False) for s, c in zip(self.stores, self.clocks, strict=True)
        ]
        self.conflicts, self._holding = [0, 0], [False, False]
        self._barrier = threading.Barrier(2)
        for i, service in enumerate(self.services):
            self._hold(i, service.games.writes)

    def _hold(self, i: int, writes: Writes) -> None:
        saved = writes._saved

        async def first_waits(events: list[Any]) -> bool:
            if self._holding[i]:  # both have decided before either saves
                self._holding[i] = False
                await asyncio.to_thread(self._barrier.wait, 10)
            ok = await saved(events)
            self.conflicts[i] += not ok
            return ok

        writes._saved = first_waits  # type: ignore[method-assign]

    def race(self, *writes: Callable[[GameService], Any]) -> list[Any]:
        """What each write answered (a refusal's code), run at once."""
        self.conflicts, self._holding = [0, 0], [True, True]
        self._barrier = threading.Barrier(2)
        for clock in self.clocks:  # both later than anything stored (stamps never go back)
            clock.advance(1)

        def run(i: int) -> Any:
            try:
                return writes[i](self.services[i])
            except Problem as refused:
                return refused.code

        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(run, range(2)))

    def close(self) -> None:
        for service in self.services:
            service.close()
        for store in self.stores:
            store.close()


@pytest.fixture
def racers(pg_settings: Settings) -> Iterator[Racers]:
    racing = Racers(pg_settings)
    yield racing
    racing.close()


def _player(store: EventStoreApp, name: str) -> Player:
    return Players(store).register(name)[0]


def _one_won(racers: Racers, answers: list[Any], lost: Any) -> Any:
    """Exactly one answer is a write; the other is `lost` (what the store said after the
    conflict), and exactly one save met a conflict."""
    won = [a for a in answers if a != lost]
    assert len(won) == 1 and answers.count(lost) == 1, answers
    assert sum(racers.conflicts) == 1, racers.conflicts
    return won[0]


def test_create_with_one_key(racers: Racers) -> None:
    ann = _player(racers.stores[0], "ann")
    create = lambda s: s.create(ann, "secret-duel", 2, {}, {}, key="k").id  # noqa: E731
    _one_won(racers, racers.race(create, create), "game_exists")


def test_join_one_seat(racers: Racers) -> None:
    ann, bob, cyd = (_player(racers.stores[0], n) for n in ("ann", "bob", "cyd"))
    game = racers.services[0].create(ann, "secret-duel", 3, {}, {}, seat=0).id
    answers = racers.race(
        lambda s: s.join(bob, game, 1).version, lambda s: s.join(cyd, game, 1).version
    )
    _one_won(racers, answers, "seat_taken")


def _duel(
    racers: Racers, clock: dict[str, Any] | None = None, policy: str | None = None
) -> tuple[Player, Player, Fold]:
    ann, bob = _player(racers.stores[0], "ann"), _player(racers.stores[0], "bob")
    first = racers.services[0]
    game = first.create(ann, "secret-duel", 2, {}, {}, seat=0, clock=clock, on_timeout=policy).id
    racers.services[1].join(bob, game, 1)
    return ann, bob, racers.services[0].get(game)


def test_a_move_at_one_version(racers: Racers) -> None:
    ann, _, fold = _duel(racers)
    move = {"type": "commit", "card": fold.state.hands[0][0]}
    play = lambda key: lambda s: s.move(ann, fold.id, fold.version, move, key).version  # noqa: E731
    _one_won(racers, racers.race(play("a"), play("b")), "version_conflict")


def test_a_timeout_by_two_timekeepers(racers: Racers) -> None:
    _, _, fold = _duel(racers, FISCHER, "forfeit")  # both seats at once, by either keeper
    for clock in racers.clocks:
        clock.advance(61)
    out = lambda s: None if (f := s.time_out(fold.id)) is None else f.version  # noqa: E731
    _one_won(racers, racers.race(out, out), None)


@pytest.mark.parametrize("kind", ["resign", "abort"])
def test_a_resignation_or_abort_twice(racers: Racers, kind: str) -> None:
    ann, _, fold = _duel(racers)
    write = lambda s: getattr(s, kind)(ann, fold.id).fold.version  # noqa: E731
    _one_won(racers, racers.race(write, write), "game_over")  # two seats: a resignation ends it


@pytest.mark.parametrize("kind", ["resign", "abort"])
def test_a_keyed_resignation_or_abort_sent_twice_at_once(racers: Racers, kind: str) -> None:
    """Both processes take the same Idempotency-Key: one writes, the other answers the same
    game again (a retry that raced the first), and nothing is written twice."""
    ann, _, fold = _duel(racers)
    write = lambda s: (lambda d: (d.fold.version, d.replayed))(getattr(s, kind)(ann, fold.id, "k"))  # noqa: E731
    answers = racers.race(write, write)
    assert sorted(replayed for _, replayed in answers) == [False, True], answers
    assert answers[0][0] == answers[1][0]


def test_leave_twice(racers: Racers) -> None:
    ann, bob = _player(racers.stores[0], "ann"), _player(racers.stores[0], "bob")
    game = racers.services[0].create(ann, "secret-duel", 3, {}, {}, seat=0).id
    racers.services[1].join(bob, game, 1)
    leave = lambda s: s.leave(bob, game).fold.version  # noqa: E731
    _one_won(racers, racers.race(leave, leave), "not_seated")


def test_a_forfeit_twice(racers: Racers) -> None:
    _, _, fold = _duel(racers)
    forfeit = lambda s: None if (f := s.forfeit(fold.id, 1, "withdrawn")) is None else f.version  # noqa: E731
    _one_won(racers, racers.race(forfeit, forfeit), None)


def test_a_rematch_offered_by_both_players(racers: Racers) -> None:
    ann, bob, fold = _duel(racers)
    racers.services[0].resign(ann, fold.id)
    answers = racers.race(
        lambda s: s.rematch(ann, fold.id).id, lambda s: s.rematch(bob, fold.id).id
    )
    assert answers[0] == answers[1], "one offer: the other player accepted it"
    assert sum(racers.conflicts) == 1, racers.conflicts
    old = racers.services[0].get(fold.id)
    assert old.rematch == str(answers[0]) and old.rematch_accepted == frozenset({0, 1})


def test_a_table_made_twice(racers: Racers) -> None:
    game = uuid.uuid4()
    seated: list[tuple[str | None, str, str | None]] = [
        (None, "r1", "random"),
        (None, "r2", "random"),
    ]

    def make(s: GameService) -> int | None:
        made = s.table("secret-duel", seated, {}, None, None, {}, game)
        return None if made is None else made.version

    _one_won(racers, racers.race(make, make), None)


def test_a_bot_decision_by_two_runners(racers: Racers) -> None:
    ann = _player(racers.stores[0], "ann")
    game = racers.services[0].create(ann, "secret-duel", 2, {}, {1: "random"}, seat=0).id
    fold = racers.services[0].get(game)
    assert fold.bot_turn() == (1, "random")
    command = choose_bot_move(fold, racers.services[0].current.seed(game), 1, "random")

    def decide(s: GameService) -> int | None:
        written = s.bot_move(game, fold.version, 1, "random", command)
        return None if written is None else written.version

    _one_won(racers, racers.race(decide, decide), None)


def test_a_tournament_registration_twice(racers: Racers) -> None:
    ann = _player(racers.stores[0], "ann")
    pairs = zip(racers.stores, racers.services, strict=True)
    tournaments = [TournamentService(store, service.games) for store, service in pairs]
    new = NewTournament(game="secret-duel", format="swiss", table_size=2, rounds=1)
    tid = uuid.UUID(str(tournaments[0].create(ann, new).folded.state.id))
    register = [lambda _, t=t: t.register(ann, tid, None).folded.version for t in tournaments]
    _one_won(racers, racers.race(*register), "already_registered")

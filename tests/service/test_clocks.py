"""Clocks and timeouts against the real Postgres, with a fake server clock (no test waits
for real seconds): decisions charge their seat's clock (a bot's too, in a game created
since decisions are stamped when made), a late decision is refused, the timekeeper applies
each due timeout once in deadline order (across restarts and with two timekeepers), the
policy (a bot's move, written by the bot runner after the timeout, or a forfeit) follows,
and every export verifies and passes an independent recomputation of its clocks.

The bot runner decides after each commit, stamped with the fake clock's time then: a test
waits until the bots have moved (`settled`) before it moves the clock on, so that the bots
use no time of their own unless a test lets them think."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any
from uuid import UUID

import msgspec
import pytest

from projections.runner import GamesRunner, view_for
from service import decisions
from service.audit import stored_lines, verify
from service.clocks import micros, stamp
from service.errors import Conflict
from service.players import Player
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from tests.support import clock_oracle
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.timed import FISCHER, exported, played, solo, verified


def test_a_decision_records_the_time_it_used_and_the_clock_shows_what_is_left(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "bot:random")
    assert fold.awaiting() == [0] and fold.clock is not None
    assert fold.next_deadline() == clock.us + 60_000_000
    clock.advance(12.5)
    fold = played(service, ada, fold, random.Random(1))
    lines = stored_lines(store, fold.id)
    first = next(e for e in lines if e.get("clock") and e["seat"] == 0)
    assert first["clock"] == {"used_ms": 12_500, "remaining_ms": 52_500}  # 60 - 12.5 + 5
    assert first["command"] is not None
    bots = [e for e in lines if e.get("clock") and e["seat"] != 0]
    assert all(e["clock"]["used_ms"] == 0 for e in bots)  # they thought in no fake time
    clock.advance(2)
    shown = fold.clock.shown(fold.seats, clock.us)
    if 0 in fold.awaiting():
        assert shown[0]["remaining_ms"] == 50_500 and shown[0]["running"]
        assert shown[0]["deadline"] == stamp(clock.us - 2_000_000 + 52_500_000)
    assert 1 not in fold.awaiting()  # settled: no bot is to move
    assert not shown[1]["running"] and shown[1]["deadline"] is None
    verified(service, store, fold.id)


def test_a_bots_seat_is_charged_for_its_decision_in_a_new_timed_game(
    store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    """Since decisions are stamped when they are made, a bot's thinking is its seat's own
    time: in a game created from now on its clock runs while it decides, and its decision
    records the time it used, as the stamps say (the oracle checks every bot's decision)."""
    service = GameService(store, now=clock, bots=False)  # the bot runner starts later
    fold = service.create(ada, "secret-duel", 2, {}, {1: "random"}, 0, FISCHER, "bot:random")
    created = stored_lines(store, fold.id)[0]
    assert created["type"] == "game_created" and created["data"]["bot_clocks"] is True
    assert fold.bot_clocks and fold.clock is not None
    assert sorted(fold.awaiting()) == [0, 1] and fold.bot_turn() == (1, "random")
    shown = fold.clock.shown(fold.seats, clock.us)
    assert shown[1]["running"] and shown[1]["deadline"] == stamp(clock.us + 60_000_000)
    clock.advance(3.25)  # the bot thinks: its runner starts only now
    service.start_bots(fold.id)
    after = service.settled(fold.id)
    lines = stored_lines(store, fold.id)
    decision = next(e for e in lines if e["seat"] == 1 and e["command"] is not None)
    assert decision["version"] == fold.version + 1 and decision["at"] == stamp(clock.us)
    assert decision["clock"] == {"used_ms": 3_250, "remaining_ms": 61_750}  # 60 - 3.25 + 5
    assert after.clock is not None and after.clock.remaining[1] == 61_750_000
    assert after.awaiting() == [0]  # ada's clock has run from the start too
    clock.advance(1)
    fold = played(service, ada, after, random.Random(3))
    mine = next(e for e in stored_lines(store, fold.id) if e["seat"] == 0 and e.get("clock"))
    assert mine["clock"] == {"used_ms": 4_250, "remaining_ms": 60_750}  # 60 - 4.25 + 5
    verified(service, store, fold.id)
    # the oracle recomputes the bot's charge from the stamps: a rewritten one is caught
    lines = exported(service, store, fold.id)
    bot_line = next(line for line in lines if line.get("version") == decision["version"])
    bot_line["clock"] = {**bot_line["clock"], "used_ms": 0}
    assert any("used_ms" in p for p in clock_oracle.check(lines, service.seed_hex(fold.id)))


def test_a_decision_after_its_deadline_is_refused_and_changes_nothing(
    service: GameService, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "bot:random")
    clock.advance(60.001)
    seat_moves = fold.game.legal_commands(fold.state, 0)
    with pytest.raises(Conflict) as refused:
        service.move(ada, fold.id, fold.version, msgspec.to_builtins(seat_moves[0]), "late")
    assert refused.value.code == "out_of_time"
    assert service.get(fold.id).version == fold.version  # as the store holds it


def test_a_timeout_is_played_by_the_named_bot_and_the_clock_goes_on(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "bot:greedy")
    # The timekeeper's process, its bot runner held back until the late move is tried.
    keeper = GameService(store, now=clock, bots=False)
    clock.advance(59)
    assert keeper.time_out(fold.id) is None  # not due yet
    clock.advance(1.5)
    timed_out = keeper.time_out(fold.id)  # writes the timeout alone: the seat is overdue
    assert timed_out is not None and timed_out.status == "active"
    assert timed_out.overdue == {0} and timed_out.bot_turn() == (0, "greedy")
    assert timed_out.next_deadline() is None  # no clock runs for it while the bot decides
    legal = fold.game.legal_commands(fold.state, 0)
    with pytest.raises(Conflict) as refused:  # the player is too late for this decision
        service.move(ada, fold.id, timed_out.version, msgspec.to_builtins(legal[0]), "late")
    assert refused.value.code == "out_of_time"
    assert service.get(fold.id).version == timed_out.version
    keeper.start_bots(fold.id)
    after = keeper.settled(fold.id)  # the bot runner decided for it, in a write of its own
    lines = stored_lines(store, fold.id)
    timed = [i for i, line in enumerate(lines) if line["type"] == "timed_out"]
    assert len(timed) == 1
    line = lines[timed[0]]
    assert line["seat"] == "system"
    assert line["data"] == {"seat": 0, "deadline": stamp(micros(fold.created_at) + 60_000_000)}
    decision = lines[timed[0] + 1]
    assert decision["seat"] == 0 and decision["command"] is not None
    assert "clock" not in decision  # a bot decided: no time of the player's was used
    assert decision["version"] == timed_out.version + 1 and decision["at"] >= line["at"]
    assert after.forfeited == {} and 0 not in after.bots  # the seat is still the player's
    assert after.overdue == frozenset()
    if 0 in after.awaiting():  # its clock goes on: the increment and a tenth of 60 s
        assert after.clock is not None and after.clock.remaining[0] == 11_000_000
    verified(service, store, fold.id)


def test_in_a_game_older_than_bot_clocks_the_policys_bot_decides_in_the_timeouts_write(
    service: GameService,
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Games created before decisions were stamped when made (no `bot_clocks` in their
    `game_created`) keep their rules: the timeout and the policy bot's move are one write,
    stamped alike, and the export still verifies under the old rule."""
    stamped_when_made = decisions.recorded

    def as_before(*args: Any, **kwargs: Any) -> Any:  # game_created without the flag
        if args[3] == "game_created":
            args = (*args[:7], {k: v for k, v in args[7].items() if k != "bot_clocks"}, *args[8:])
        return stamped_when_made(*args, **kwargs)

    monkeypatch.setattr(decisions, "recorded", as_before)
    bots = {1: "random", 2: "random"}
    created = service.create(ada, "puerto-rico", 3, {}, bots, 0, FISCHER, "bot:greedy")
    monkeypatch.undo()
    fold = service.settled(created.id)
    assert not fold.bot_clocks
    assert "bot_clocks" not in stored_lines(store, fold.id)[0]["data"]
    assert fold.awaiting() == [0]  # the bots before ada have moved, on their own
    keeper = GameService(store, now=clock, bots=False)  # no runner: the write must do it all
    clock.advance(61)
    timed_out = keeper.time_out(fold.id)
    assert timed_out is not None and timed_out.overdue == frozenset()
    lines = stored_lines(store, fold.id)[fold.version :]
    assert lines[0]["type"] == "timed_out" and lines[0]["data"]["seat"] == 0
    decision = lines[1]
    assert decision["seat"] == 0 and decision["command"] is not None
    assert decision["at"] == lines[0]["at"]  # one write, one stamp
    assert {line["version"] for line in lines} <= set(range(1, timed_out.version + 1))
    assert timed_out.version >= fold.version + 2
    keeper.start_bots(fold.id)  # the bots after ada's seat: this process heard the commit
    keeper.settled(fold.id)
    verified(service, store, fold.id)


@pytest.mark.parametrize("seats", [2, 3])
def test_a_forfeit_ranks_the_seat_last_and_a_bot_plays_it_out(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock, seats: int
) -> None:
    fold = solo(service, ada, "forfeit", seats)
    clock.advance(61)
    timed_out = service.time_out(fold.id)  # the timeout and the forfeit, in one write
    assert timed_out is not None and timed_out.forfeited == {0: "timed_out"}
    types = [line["type"] for line in stored_lines(store, fold.id)[fold.version :]]
    assert types[:2] == ["timed_out", "seat_forfeited"]
    after = service.settled(fold.id)  # a bot plays the seat out (the bot runner)
    assert after.status == "finished"
    assert after.forfeited == {0: "timed_out"}
    assert after.result is not None and after.result.ranks[0] == seats
    assert after.result.details["forfeited"] == {"0": "timed_out"}
    if seats == 2:  # ended at once: the other seat wins
        assert timed_out.status == "finished" and timed_out.version == after.version
        assert after.result.ranks == [2, 1] and after.result.details["ended_by"] == "forfeit"
    verified(service, store, fold.id)


def test_the_audit_refuses_an_export_whose_timeout_was_not_due(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "forfeit")
    clock.advance(61)
    service.time_out(fold.id)
    service.settled(fold.id)
    lines = exported(service, store, fold.id)
    timed = next(line for line in lines if line.get("type") == "timed_out")
    timed["data"]["deadline"] = stamp(micros(timed["data"]["deadline"]) - 1)
    report = verify(lines, service.seed_hex(fold.id))
    assert not report.verified and report.first_divergent_version == timed["version"]
    early = exported(service, store, fold.id)
    line = next(line for line in early if line.get("type") == "timed_out")
    line["at"] = stamp(micros(line["at"]) - 2_000_000)  # before the deadline
    assert clock_oracle.check(early, service.seed_hex(fold.id)) != []


def test_after_a_restart_every_passed_deadline_is_applied_once_in_deadline_order(
    elsewhere: Callable[[FakeClock], GameService],
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
    runner: GamesRunner,
) -> None:
    service = GameService(store, now=clock)
    games = []
    for _ in range(5):  # deadlines 10 s apart: game i times out at 60 + 10 i
        games.append(solo(service, ada, "bot:random").id)
        clock.advance(10)
    clock.advance(45)  # now 95 s: the timekeeper was down while games 0-3 (60-90 s) ran out
    runner.caught_up(10)
    restarted = Timekeeper(elsewhere(clock).games, view_for(store))
    assert restarted.tick() == 4
    assert restarted.tick() == 0  # each once
    for game_id in games[:4]:  # under `bot:random`, the bot runner decides for each seat
        service.settled(game_id)
    order = []
    for game_id in games:
        lines = stored_lines(store, game_id)
        timed = [line for line in lines if line["type"] == "timed_out"]
        order += [(line["data"]["deadline"], str(game_id)) for line in timed]
    by_deadline = [g for _, g in sorted(order)]
    assert by_deadline == [str(g) for g in games[:4]]
    positions = _log_positions(store, [UUID(g) for g in by_deadline])
    assert positions == sorted(positions)  # written in deadline order


def _log_positions(store: EventStoreApp, games: list[UUID]) -> list[int]:
    """Where each game's timeout sits in the event log."""
    found: dict[UUID, int] = {}
    for n in store.recorder.select_notifications(start=1, limit=100_000):
        if n.originator_id in games and b"timed_out" in n.state:
            found.setdefault(n.originator_id, n.id)
    return [found[g] for g in games]


def test_two_timekeepers_at_once_apply_each_timeout_once(
    elsewhere: Callable[[FakeClock], GameService],
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
    runner: GamesRunner,
) -> None:
    service = GameService(store, now=clock)
    games = [solo(service, ada, "bot:random").id for _ in range(6)]
    clock.advance(61)
    runner.caught_up(10)
    # Their clocks differ by a microsecond: byte-identical timeouts would read as one save.
    clocks = [FakeClock(stamp(clock.us)), FakeClock(stamp(clock.us + 1))]
    keepers = [Timekeeper(elsewhere(c).games, view_for(store)) for c in clocks]
    start = threading.Barrier(2)

    def keep(keeper: Timekeeper) -> None:
        start.wait()
        keeper.tick()

    threads = [threading.Thread(target=keep, args=(k,)) for k in keepers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sum(k.applied for k in keepers) == len(games)
    for game_id in games:
        timed = [e for e in stored_lines(store, game_id) if e["type"] == "timed_out"]
        assert len(timed) == 1
        verified(service, store, game_id)


def test_a_move_saved_first_makes_the_timeout_a_no_op(
    elsewhere: Callable[[FakeClock], GameService],
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
) -> None:
    keeper_service = elsewhere(clock)  # another process
    service = GameService(store, now=clock)
    fold = solo(service, ada, "forfeit")
    assert keeper_service.get(fold.id).version == fold.version  # its cache holds the game
    clock.advance(59.9)
    moved = played(service, ada, fold, random.Random(2))
    clock.advance(0.2)  # past the old deadline, not the new one
    assert keeper_service.time_out(fold.id) is None
    assert [e for e in stored_lines(store, fold.id) if e["type"] == "timed_out"] == []
    assert service.get(fold.id).version == moved.version  # as the store holds it


def test_a_timeout_saved_first_refuses_the_lateplayed(
    elsewhere: Callable[[FakeClock], GameService],
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
) -> None:
    keeper_service = elsewhere(clock)
    service = GameService(store, now=clock)
    fold = solo(service, ada, "bot:random")
    clock.advance(60)  # exactly at the deadline: the move and the timeout are both in time
    assert keeper_service.time_out(fold.id) is not None
    legal = fold.game.legal_commands(fold.state, 0)
    with pytest.raises(Conflict) as refused:  # its cache is a version behind: the store's
        service.move(ada, fold.id, fold.version, msgspec.to_builtins(legal[0]), "racing")
    assert refused.value.code == "version_conflict"
    assert refused.value.extra["version"] > fold.version  # the store's version, not the cache's
    verified(service, store, fold.id)


def test_racing_moves_and_timeouts_exactly_one_wins(
    elsewhere: Callable[[FakeClock], GameService],
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
) -> None:
    """At the deadline both are in time: the expected-version rule lets one of them in."""
    keeper_service = elsewhere(clock)
    service = GameService(store, now=clock)
    for _ in range(8):
        fold = solo(service, ada, "bot:random")
        keeper_service.get(fold.id)
        clock.advance(60)
        move = msgspec.to_builtins(fold.game.legal_commands(fold.state, 0)[0])
        won = _race(
            lambda f=fold: keeper_service.time_out(f.id) is not None,
            lambda f=fold, m=move: service.move(ada, f.id, f.version, m, "race") is not None,
        )
        assert won[0] != won[1], won
        timed = [e for e in stored_lines(store, fold.id) if e["type"] == "timed_out"]
        assert len(timed) == (1 if won[0] else 0)
        verified(service, store, fold.id)


def _race(*writes: Callable[[], bool]) -> list[bool]:
    """Run the writes at once; which of them were applied (a refusal is not)."""
    start = threading.Barrier(len(writes))
    won = [False] * len(writes)

    def run(i: int) -> None:
        start.wait()
        try:
            won[i] = writes[i]()
        except Conflict:
            won[i] = False

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(writes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return won

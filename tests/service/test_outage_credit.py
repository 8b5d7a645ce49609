"""No clock runs while the service cannot act, and no move is refused for time because the
server was slow to save it (fake server clock, real Postgres).

- A timekeeper that takes over after a gap (the last beat long ago) credits every running
  timed game first (`clock_credit`), so no deadline passes for the gap; a move after it is
  charged only its own time; the audit and the clock oracle accept the credit, and refuse
  one that gives back more than passed.
- A process that may have missed a gap holds timed moves (503 `clocks_resuming`) until the
  beat that follows the credit; a move sent at the version before the credit is taken (a
  credit changes no decision), and so is its retry.
- A move that arrived before its deadline is decided as of its arrival, even when it is
  saved after the deadline, and a timeout does not overtake it while it is being written.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from uuid import UUID

import msgspec
import pytest

from projections.runner import GamesRunner, view_for
from service.audit import stored_lines, verify
from service.errors import Unavailable
from service.players import Player
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from tests.support import clock_oracle
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.timed import exported, played, rehashed, solo, verified
from tests.support.waits import wait_until


def _credits(store: EventStoreApp, game_id: UUID) -> list[dict[str, object]]:
    return [line for line in stored_lines(store, game_id) if line["type"] == "clock_credit"]


def test_a_takeover_after_a_gap_credits_every_running_clock_before_any_timeout(
    elsewhere: Callable[[FakeClock], GameService],
    service: GameService,
    store: EventStoreApp,
    ada: Player,
    clock: FakeClock,
    runner: GamesRunner,
) -> None:
    games = [solo(service, ada, "bot:random").id for _ in range(3)]  # deadlines at 60 s
    clock.advance(20)
    runner.caught_up(10)
    first = Timekeeper(service.games, view_for(store))
    assert first.tick() == 0 and first.credited == 0  # no beat before it: no gap known
    clock.advance(50)  # 70 s: the service was away, and every deadline passed meanwhile
    restarted = Timekeeper(elsewhere(clock).games, view_for(store))
    assert restarted.tick() == 0, "a timeout was applied for the service's own outage"
    assert restarted.credited == 3
    assert restarted.tick() == 0  # credited once: a takeover's pass, not every tick's
    for game_id in games:
        (credit,) = _credits(store, game_id)
        assert credit["data"] == {"seats": [0], "ms": 50_000, "reason": "outage"}
        assert credit["seat"] == "system"
    # the player's time is as it was when the service went away: 40 s left
    fold = elsewhere(clock).get(games[0])
    assert fold.clock is not None
    assert fold.clock.shown(fold.seats, clock.us)[0]["remaining_ms"] == 40_000
    clock.advance(5)  # ada thinks 5 s after the service came back: 25 s in all
    moved = played(service, ada, service.get(games[0]), random.Random(3))
    charged = next(e for e in stored_lines(store, moved.id) if e.get("clock") and e["seat"] == 0)
    assert charged["clock"] == {"used_ms": 25_000, "remaining_ms": 40_000}  # 60 - 25 + 5
    for game_id in games:
        verified(service, store, game_id)  # the audit and the clock oracle accept it


def test_the_audit_refuses_a_credit_of_more_time_than_passed(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "bot:random")
    clock.advance(30)
    assert service.credit(fold.id, fold.clock.since[0] if fold.clock else 0) is not None
    lines = exported(service, store, fold.id)
    assert verify(lines, service.seed_hex(fold.id)).verified
    forged = rehashed(exported(service, store, fold.id))
    credit = next(line for line in forged if line.get("type") == "clock_credit")
    credit["data"]["ms"] += 1  # a millisecond more than passed since the event before
    rehashed(forged)
    report = verify(forged, service.seed_hex(fold.id))
    assert report.chain_intact and not report.verified
    assert report.first_divergent_version == credit["version"]
    assert "more time than passed" in (report.detail or "")
    assert clock_oracle.check(forged, service.seed_hex(fold.id)) != []
    other = rehashed(exported(service, store, fold.id))
    credit = next(line for line in other if line.get("type") == "clock_credit")
    credit["data"]["seats"] = [0, 1]  # a bot's seat, whose clock did not run
    report = verify(rehashed(other), service.seed_hex(fold.id))
    assert not report.verified and "other seats" in (report.detail or "")


def test_timed_moves_wait_for_the_credit_after_a_gap_this_process_may_have_missed(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock, runner: GamesRunner
) -> None:
    fold = solo(service, ada, "bot:random")
    keeper = Timekeeper(service.games, view_for(store))
    runner.caught_up(10)
    keeper.tick()  # beats
    service.games.resuming.interrupted()  # the store failed under this process...
    clock.advance(30)  # ... for 30 s
    move = msgspec.to_builtins(fold.game.legal_commands(fold.state, 0)[0])
    with pytest.raises(Unavailable) as held:
        service.move(ada, fold.id, fold.version, move, "held")
    assert held.value.code == "clocks_resuming"
    assert service.get(fold.id).version == fold.version  # nothing written
    keeper.taking_over = True  # its tick failed meanwhile (the store was away)
    keeper.tick()  # credits, then beats: the hold ends
    assert service.get(fold.id).version == fold.version + 1  # the credit
    # sent at the version she saw before the outage: a credit changes no decision
    answer = service.move(ada, fold.id, fold.version, move, "after")
    assert answer.version > fold.version + 1
    again = service.move(ada, fold.id, fold.version, move, "after")  # its retry
    assert again.replayed and again.version == answer.version
    charged = next(e for e in stored_lines(store, fold.id) if e.get("clock") and e["seat"] == 0)
    assert charged["clock"]["used_ms"] == 0  # the 30 s were the service's, not ada's
    verified(service, store, fold.id)


def test_a_move_that_arrived_in_time_is_decided_as_of_its_arrival(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    fold = solo(service, ada, "bot:random")
    clock.advance(59)
    arrived = clock()  # 1 s before the deadline
    clock.advance(3)  # the server took 3 s to get to it: the deadline passed meanwhile
    move = msgspec.to_builtins(fold.game.legal_commands(fold.state, 0)[0])
    answer = service.move(ada, fold.id, fold.version, move, "late-saved", arrived)
    assert answer.version > fold.version
    charged = next(e for e in stored_lines(store, fold.id) if e.get("clock") and e["seat"] == 0)
    assert charged["at"] == arrived
    assert charged["clock"] == {"used_ms": 59_000, "remaining_ms": 6_000}
    verified(service, store, fold.id)


def test_a_timeout_does_not_overtake_a_move_that_arrived_in_time(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock
) -> None:
    """The timeout's write takes the game's lock first, but a move that arrived before the
    deadline is being written: the timeout is not due as of its arrival (the move is
    decided next), and nobody timed out."""
    fold = solo(service, ada, "bot:random")
    games = service.games
    move = msgspec.to_builtins(fold.game.legal_commands(fold.state, 0)[0])
    clock.advance(59.5)
    arrived = clock()
    clock.advance(1)  # 60.5 s: past the deadline

    async def race() -> tuple[object, object]:
        # the timeout's write is asked for first; the move arrives while it reads the game
        timing_out = asyncio.ensure_future(games.time_out(fold.id))
        moving = asyncio.ensure_future(
            games.move(ada, fold.id, fold.version, move, "in-time", arrived)
        )
        return await timing_out, await moving

    timed_out, moved = games.blocking(race())
    assert timed_out is None and moved is not None
    assert [e for e in stored_lines(store, fold.id) if e["type"] == "timed_out"] == []
    verified(service, store, fold.id)


def test_a_frozen_timekeeper_credits_the_freeze_whichever_of_its_threads_wakes_first(
    service: GameService, store: EventStoreApp, ada: Player, clock: FakeClock, runner: GamesRunner
) -> None:
    """The whole process stops (SIGSTOP, a suspended machine) while a player thinks, past
    her deadline. Its beats notice the gap when they wake (the beat thread, run for real
    here); a tick that wakes before them must notice it too, and credit it rather than
    apply the timeout."""
    fold = solo(service, ada, "bot:random")
    runner.caught_up(10)
    keeper = Timekeeper(service.games, view_for(store))
    stop = threading.Event()
    running = threading.Thread(target=keeper.run, args=(stop,), daemon=True)
    running.start()
    try:
        wait_until(lambda: keeper.last_beat is not None and not keeper.taking_over, 30,
                   "the timekeeper beating")  # fmt: skip
        clock.advance(70)  # frozen 70 s: her 60 s ran out meanwhile, on the wall's clock
        wait_until(lambda: _credits(store, fold.id), 30, "the freeze credited")
    finally:
        stop.set()
        running.join(30)
    assert [e for e in stored_lines(store, fold.id) if e["type"] == "timed_out"] == []
    assert _credits(store, fold.id)[0]["data"]["ms"] == 70_000
    # The tick wakes first: its beats (asleep) have not seen the gap yet.
    keeper.beating, keeper.taking_over = True, False  # as while `run` runs
    clock.advance(70)
    assert keeper.tick() == 0, "the tick applied a timeout for the freeze"
    assert [c["data"]["ms"] for c in _credits(store, fold.id)] == [70_000, 70_000]
    keeper.beating = False
    verified(service, store, fold.id)

"""The timekeeper: applies every timeout when its deadline passes (and, on the same tick,
moves the running tournaments on).

It reads the running games' next deadlines from the read model's index (rm_deadlines),
sleeps until the earliest (or at most `MAX_SLEEP`, since a move may set an earlier one),
and asks the game service to time each due game out. The service decides on the game
fresh from the store and saves through the expected-version rule, so a move that came
first, or another timekeeper, makes a timeout a no-op: nothing is applied twice. After a
restart, every deadline that passed meanwhile is due at once, and all are applied in
deadline order. On Postgres one timekeeper per database acts; another waits on a lock.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
from collections.abc import Callable
from typing import Protocol
from uuid import UUID

import structlog
from eventsourcing.persistence import InterfaceError, OperationalError

from service import clocks
from service.bot_runner import AwaitingBots, BotRunner, swept
from service.errors import Unavailable
from service.games import Games
from service.settings import Settings
from service.sole import sole
from service.store import EventStoreApp, open_store
from service.tournaments import TournamentService

log = structlog.get_logger("tabletop.timekeeper")

STORE_DOWN = (OperationalError, InterfaceError, Unavailable)
MAX_SLEEP = 1.0  # seconds: how late a timeout may come after a move set an earlier deadline
RETRY = 2.0  # seconds to wait after the store failed


class Deadlines(Protocol):
    """The read model's deadline index and running tournaments (projections/views.py)."""

    def due(self, until: int, limit: int = 1000) -> list[tuple[int, str]]: ...

    def next_deadline(self) -> int | None: ...

    def running_tournaments(self) -> list[str]: ...


class Timekeeper:
    """Applies timeouts, and directs the running tournaments (each tick records finished
    tables and starts the next rounds: service/tournaments.py)."""

    def __init__(self, games: Games, deadlines: Deadlines) -> None:
        self.games = games
        self.deadlines = deadlines
        self.tournaments = TournamentService(games.store, games)
        self.applied = 0  # timeouts written by this timekeeper (tests, metrics)

    def tick(self) -> int:
        """Apply every timeout due now, earliest deadline first; how many were written."""
        now = clocks.micros(self.games.now())
        queue = self.deadlines.due(now)
        heapq.heapify(queue)
        written = 0
        while queue:
            _, game_id = heapq.heappop(queue)
            try:
                fold = self.games.blocking(self.games.time_out(UUID(game_id)))
            except STORE_DOWN:
                raise  # nothing can be done now: the loop waits and tries again
            except Exception as error:  # a damaged game must not hold up the others
                log.error("timeout_failed", game_id=game_id, error=repr(error))
                continue
            if fold is None:
                continue  # a move (or another timekeeper) came first
            written += 1
            again = fold.next_deadline()
            if again is not None and again <= now:  # another seat of the game is due too
                heapq.heappush(queue, (again, game_id))
        self.applied += written
        for tournament in self.deadlines.running_tournaments():
            try:
                self.tournaments.advance(UUID(tournament))
            except STORE_DOWN:
                raise
            except Exception as error:  # one tournament's trouble is not the others'
                log.error("tournament_failed", tournament=tournament, error=repr(error))
        return written

    def wait(self) -> float:
        """Seconds until the next deadline, at most MAX_SLEEP."""
        upcoming = self.deadlines.next_deadline()
        if upcoming is None:
            return MAX_SLEEP
        left = (upcoming - clocks.micros(self.games.now())) / 1_000_000
        return min(MAX_SLEEP, max(0.0, left))

    def run(self, stop: threading.Event) -> None:
        """Until `stop` is set."""
        log.info("timekeeper_started")
        while not stop.is_set():
            try:
                self.tick()
                pause = self.wait()
            except Exception as error:  # the store is away: try again shortly
                log.warning("timekeeper_failed", error=repr(error))
                pause = RETRY
            stop.wait(pause)

    def keep(self, settings: Settings, stop: threading.Event) -> None:
        """`run`, as the one timekeeper of the database: on Postgres, wait on the role's lock
        while another process holds it; start again when the store comes back."""
        while not stop.is_set():
            try:
                with sole(settings, "timekeeper"):
                    self.run(stop)
            except Exception as error:  # no database now: the lock comes back with it
                log.warning("timekeeper_failed", error=repr(error))
                stop.wait(RETRY)


class Index(Deadlines, AwaitingBots, Protocol):
    """What a timekeeper of its own reads: deadlines, and the games awaiting a bot."""


def run_forever(
    settings: Settings,
    index: Callable[[EventStoreApp], Index],
    stop: threading.Event | None = None,
    bots: bool = True,
) -> None:
    """`tabletop timekeeper run`: keep time until `stop` (`index` gives the read model over
    a store). With `bots`, a bot runner plays beside it, as in `serve`: a timeout that
    leaves a bot awaited (a `bot:` policy, or the next seat a bot's) is played at once, not
    when some other process's sweep finds it."""
    store = open_store(settings)
    try:
        games = Games(store)
        view = index(store)
        runner = BotRunner(games, swept(view, games.now)) if bots else None
        try:
            asyncio.run(_keep(Timekeeper(games, view), runner, settings, stop or threading.Event()))
        finally:
            games.writes.close()
    finally:
        store.close()


async def _keep(
    keeper: Timekeeper, runner: BotRunner | None, settings: Settings, stop: threading.Event
) -> None:
    """The timekeeper in a thread, its writes and the bot runner on this loop."""
    keeper.games.writes.attach(asyncio.get_running_loop())
    playing = asyncio.ensure_future(runner.run()) if runner is not None else None
    keeping = asyncio.get_running_loop().run_in_executor(None, keeper.keep, settings, stop)
    try:
        await asyncio.shield(keeping)
    finally:  # stopped, or interrupted: the tick ends its writes, then the runner stops
        stop.set()
        await asyncio.gather(keeping, return_exceptions=True)
        if runner is not None and playing is not None:
            runner.stop()
            await asyncio.gather(playing, return_exceptions=True)
        await keeper.games.writes.drain()

"""The timekeeper: applies every timeout when its deadline passes (and, on the same tick,
moves the running tournaments on).

It reads the running games' next deadlines from the read model's index (rm_deadlines),
sleeps until the earliest (or at most `MAX_SLEEP`, since a move may set an earlier one),
and asks the game service to time each due game out. The service decides on the game
fresh from the store and saves through the expected-version rule, so a move that came
first, or another timekeeper, makes a timeout a no-op: nothing is applied twice. After a
restart, every deadline that passed meanwhile is due at once, and all are applied in
deadline order. On Postgres one timekeeper per database acts; another waits on a lock.

No clock runs while the service cannot act. The acting timekeeper beats on every tick
(service/heartbeat.py); when it takes over (it got the lock, or a tick failed because the
store was away), it first credits every running timed game for the time since the last
beat (a `clock_credit` event), and only then beats and applies the timeouts due.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
from collections.abc import Callable
from typing import Protocol
from uuid import UUID

import structlog

from service import clocks
from service.bot_runner import AwaitingBots, BotRunner, swept
from service.competition import Competition
from service.competition import Index as CompetitionIndex
from service.errors import STORE_DOWN
from service.games import Games
from service.settings import Settings
from service.sole import sole
from service.store import EventStoreApp, open_store, read_model_holds_all
from service.tournaments import TournamentService

log = structlog.get_logger("tabletop.timekeeper")

MAX_SLEEP = 1.0  # seconds: how late a timeout may come after a move set an earlier deadline
RETRY = 2.0  # seconds to wait after the store failed
BEAT = 0.25  # seconds between the heartbeat's stamps
STALE = 2.0  # seconds without a beat that make a gap (the next tick credits it)
CATCH_UP = 30.0  # seconds a takeover waits for the read model to hold every stored event


class Deadlines(CompetitionIndex, Protocol):
    """The read model's deadline index and running tournaments (projections/views.py), and
    the challenges' and seeks' lists and due seek pools (service/competition.py)."""

    def due(self, until: int, limit: int = 1000) -> list[tuple[int, str]]: ...

    def next_deadline(self) -> int | None: ...

    def running_tournaments(self) -> list[str]: ...

    def max_tracking_id(self, application_name: str) -> int | None: ...


class Timekeeper:
    """Applies timeouts, and directs the running tournaments (each tick records finished
    tables and starts the next rounds: service/tournaments.py)."""

    def __init__(self, games: Games, deadlines: Deadlines) -> None:
        self.games = games
        self.deadlines = deadlines
        self.tournaments = TournamentService(games.store, games)
        # seeks filled with bots (service/seeks.py), the pools due read from the read model
        self.competition = Competition(games, deadlines)
        self.applied = 0  # timeouts written by this timekeeper (tests, metrics)
        self.credited = 0  # games credited for a gap (tests, metrics)
        self.taking_over = True  # the next tick credits the gap before the last beat
        self.last_beat: int | None = None  # (us) this timekeeper's last beat
        self.beating = False  # its beats run beside its ticks (`run`)

    def take_over(self) -> int:
        """Credit every running timed game for the time since the service's last beat (the
        gap this timekeeper takes over after: none when no beat was ever stamped); how many
        games were credited. Then beat."""
        games = self.games
        now = clocks.micros(games.now())
        gone_since = games.heartbeat.last()
        credited = 0
        if gone_since is not None and gone_since < now:
            self._index_caught_up()
            for _, game_id in self.deadlines.due(2**62, limit=1_000_000):
                try:
                    fold = games.blocking(games.credit(UUID(game_id), gone_since))
                except STORE_DOWN:
                    raise
                except Exception as error:  # a damaged game must not hold up the others
                    log.error("credit_failed", game_id=game_id, error=repr(error))
                    continue
                credited += fold is not None
            log.info("clocks_credited", games=credited, gap_ms=(now - gone_since) // 1000)
        self.credited += credited
        self.taking_over = False
        self.beat()
        return credited

    def _frozen(self) -> bool:
        """(Running with its beats) whether no beat was made for STALE: the process was
        frozen (stopped, suspended) and this tick woke before the beats did. A tick called
        on its own (the tests' fake clocks) has no beats to miss."""
        if not self.beating or self.last_beat is None:
            return False
        return clocks.micros(self.games.now()) - self.last_beat > STALE * 1_000_000

    def _index_caught_up(self) -> None:
        """Wait (CATCH_UP at most) until the read model's index holds every event stored so
        far: a game whose clock started just before the gap must be credited too."""
        store = self.games.store
        if not read_model_holds_all(store, self.deadlines.max_tracking_id, CATCH_UP):
            log.warning("credit_index_behind", latest=store.recorder.max_notification_id())

    def beat(self) -> None:
        """The service can act: stamp it (and release this process's timed moves)."""
        at = clocks.micros(self.games.now())
        self.games.heartbeat.beat(at)
        self.last_beat = at
        self.games.resuming.beaten(at)

    def _beating(self, stop: threading.Event) -> None:
        """Beat every BEAT while this timekeeper acts, whatever its ticks are doing: the
        last beat before an outage is then at most that old. A beat that could not be made
        for STALE (the process was paused, or the store failed or stalled) is a gap: the
        next tick takes over (`take_over`) and credits it."""
        while not stop.wait(BEAT):
            if self.taking_over:
                continue  # the tick loop credits the gap, then beats
            now = clocks.micros(self.games.now())
            if self.last_beat is not None and now - self.last_beat > STALE * 1_000_000:
                log.warning("beat_gap", ms=(now - self.last_beat) // 1000)
                self.taking_over = True
                continue
            try:
                self.beat()
            except Exception as error:  # the store is away: the tick loop finds it too
                log.warning("beat_failed", error=repr(error))
                self.taking_over = True

    def tick(self) -> int:
        """Apply every timeout due now, earliest deadline first; how many were written.
        After a takeover, the gap is credited first (`take_over`)."""
        if self.taking_over or self._frozen():
            self.take_over()
        else:
            self.beat()
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
        try:  # the seeks whose bot-fill wait is over
            self.competition.tick()
        except STORE_DOWN:
            raise
        except Exception as error:
            log.error("seeks_failed", error=repr(error))
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
        self.taking_over = True  # the lock is new to us: a gap may lie before it
        done = threading.Event()  # this tenure's end: the beats stop with it
        beats = threading.Thread(target=self._beating, args=(done,), daemon=True)
        beats.start()
        self.beating = True
        try:
            while not stop.is_set():
                try:
                    self.tick()
                    pause = self.wait()
                except Exception as error:  # the store is away: try again shortly
                    log.warning("timekeeper_failed", error=repr(error))
                    self.taking_over = True  # and credit the clocks for it when it is back
                    pause = RETRY
                stop.wait(pause)
        finally:
            self.beating = False
            done.set()
            beats.join()

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

"""The bot runner: plays every seat a bot decides for, as a player of its own.

A seat is the runner's when the game awaits it and a bot holds it: a bot's seat, a seat
that forfeited (a random bot plays it out), or a seat that timed out under a `bot:` policy
(that bot makes the decision). The runner never decides inside another player's write:
after a commit leaves such a seat awaited, it reads the game, lets the bot think in a
worker thread (off the event loop, within the bot's budget; `thinkers` at once, those
whose clock runs first, earliest deadline first: `Slots`), and writes the decision
through the write driver at the version it thought on, stamped when it was made. A
conflict means someone moved first: it looks at the game again.

It hears of games three ways: the commits of its own process (a listener of the driver),
the log (`follow`, for a runner in a process of its own: `tabletop bots run`), and a sweep
of the read model's games awaiting a bot (`awaiting`), at start and then every SWEEP
seconds, which finds whatever the others missed: games left waiting while no runner ran,
or by a process that stopped. Two runners may think about the same seat: the store takes
one decision, the other is refused at its version and dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol
from uuid import UUID

import anyio
import structlog

from service import clocks
from service.decisions import choose_bot_move
from service.errors import Problem
from service.fold import Fold
from service.games import Games
from service.settings import Settings
from service.store import EventStoreApp, open_store
from service.wakeup import subscribe

log = structlog.get_logger("tabletop.bots")

SWEEP = 2.0  # seconds between sweeps of the read model
# A game swept up has awaited its bot this long: the runner that heard its commit has it.
GRACE_US = 5_000_000
MAX_TURNS = 10_000  # decisions in a row for one game before it goes back in the queue


class AwaitingBots(Protocol):
    """The read model's index of games awaiting a bot (projections/views.py)."""

    def awaiting_bots(self, before: int, limit: int = 1000) -> list[str]: ...


def swept(index: AwaitingBots, now: Callable[[], str]) -> Callable[[], list[str]]:
    """The runner's sweep over `index`: games that have awaited a bot for GRACE_US."""
    return lambda: index.awaiting_bots(clocks.micros(now()) - GRACE_US)


def run_forever(settings: Settings, index: Callable[[EventStoreApp], AwaitingBots]) -> None:
    """`tabletop bots run`: play every bot's seat of the store, hearing every commit of the
    log, until interrupted."""
    store = open_store(settings)
    games = Games(store)
    runner = BotRunner(games, swept(index(store), games.now))
    try:
        asyncio.run(runner.run(follow=True))
    finally:
        games.writes.close()
        store.close()


class Slots:
    """At most `size` bots think at once; a bot waiting for a slot that has a clock running
    gets one before those that have none, the earliest deadline first (a bot's clock runs
    from the commit that made it awaited, its wait for a slot included: the server's
    queue should cost it as little as it can)."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._arrived = itertools.count()

    @contextlib.asynccontextmanager
    async def taken(self, deadline: int | None) -> AsyncIterator[None]:
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            turn = asyncio.get_running_loop().create_future()
            rank = float("inf") if deadline is None else float(deadline)
            heapq.heappush(self._waiting, (rank, next(self._arrived), turn))
            try:
                await turn  # handed over by `_release`, the slot already ours
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # handed over as we were cancelled: pass it on
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # (a cancelled waiter's is done)
                turn.set_result(None)
                return
        self._free += 1


class BotRunner:
    def __init__(
        self,
        games: Games,
        awaiting: Callable[[], list[str]] | None = None,
        thinkers: int = 2,
        sweep: float = SWEEP,
    ) -> None:
        self.games = games
        self.awaiting = awaiting  # the read model's games awaiting a bot (ids)
        self.sweep = sweep
        self._thinkers = thinkers
        self._pending: set[UUID] = set()
        self._busy: set[UUID] = set()
        self._wake: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.decided = 0  # decisions written by this runner (tests, metrics)
        games.writes.listen(self.committed)

    def committed(self, stream: UUID, version: int, fold: Fold | None) -> None:
        """(A listener of the driver) a commit: the game is looked at if a bot is next."""
        if fold is not None and fold.bot_turn() is not None:
            self.look_at(stream)

    def look_at(self, game_id: UUID) -> None:
        """Look at `game_id` soon (from any thread)."""
        loop = self._loop
        if loop is None:
            self._pending.add(game_id)  # taken when the runner starts
            return
        loop.call_soon_threadsafe(self._add, game_id)

    def _add(self, game_id: UUID) -> None:
        self._pending.add(game_id)
        if self._wake is not None:
            self._wake.set()

    async def run(self, follow: bool = False) -> None:
        """Until `stop`: take each game that may await a bot, one task per game, at most
        `thinkers` bots thinking at once. With `follow`, every commit of the log is heard
        (a runner in a process of its own)."""
        self._loop = asyncio.get_running_loop()
        self._wake, self._stop = asyncio.Event(), asyncio.Event()
        thinking = Slots(self._thinkers)
        tasks: set[asyncio.Task[None]] = set()
        sweeper = asyncio.ensure_future(self._sweeping())
        follower = threading.Event()
        if follow:
            threading.Thread(target=self._follow, args=(follower,), daemon=True).start()
        log.info("bot_runner_started", follow=follow)
        try:
            while not self._stop.is_set():
                for game_id in list(self._pending - self._busy):
                    self._pending.discard(game_id)
                    self._busy.add(game_id)
                    task = asyncio.ensure_future(self._play(game_id, thinking))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                self._wake.clear()
                waking = asyncio.ensure_future(self._wake.wait())
                stopping = asyncio.ensure_future(self._stop.wait())
                await asyncio.wait({waking, stopping}, return_when=asyncio.FIRST_COMPLETED)
                waking.cancel()
                stopping.cancel()
        finally:
            follower.set()
            sweeper.cancel()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(sweeper, *tasks, return_exceptions=True)

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            loop.call_soon_threadsafe(stop.set)

    async def _play(self, game_id: UUID, thinking: Slots) -> None:
        """Decide for the game's bots while it awaits one."""
        try:
            await self._turns(game_id, thinking)
        except Exception as error:  # the store is away, or the game damaged: the sweep retries
            log.warning("bot_turn_failed", game_id=str(game_id), error=repr(error))
        finally:
            self._busy.discard(game_id)
            if game_id in self._pending and self._wake is not None:
                self._wake.set()

    async def _turns(self, game_id: UUID, thinking: Slots) -> None:
        read = self.games.writes.game(game_id)
        fresh = False
        refused_at: int | None = None  # the version at which the rules refused its choice
        for _ in range(MAX_TURNS):
            fold, seed = await read(fresh)
            turn = fold.bot_turn()
            if turn is None:
                if fresh:
                    return
                fresh = True  # the cache may trail: ask the store before leaving it
                continue
            seat, bot = turn
            chooser = bot if fold.version != refused_at else "random"
            clock = fold.clock
            async with thinking.taken(clock.deadline(seat) if clock is not None else None):
                command = await anyio.to_thread.run_sync(choose_bot_move, fold, seed, seat, chooser)
            try:
                written = await self.games.bot_move(game_id, fold.version, seat, bot, command)
            except Problem as refused:
                # The rules refused the bot's choice (a bot's fault): the same bot would
                # choose the same again at this version, so the random bot, which picks
                # among the legal moves, decides this one; if even that is refused, the
                # game is left to the sweep.
                log.error("bot_move_refused", game_id=str(game_id), bot=chooser, code=refused.code)
                if chooser == "random":
                    return
                refused_at = fold.version
                continue
            if written is None:  # the game changed under the bot: look again
                fresh = True
                continue
            self.decided += 1
            fresh = False
        self._pending.add(game_id)  # a long game of bots: let the others have a turn

    async def _sweeping(self) -> None:
        """Every `sweep` seconds: the games the read model says await a bot."""
        if self.awaiting is None:
            return
        while True:
            try:
                found = await anyio.to_thread.run_sync(self.awaiting)
            except Exception as error:  # no store now: the next sweep tries again
                log.warning("bot_sweep_failed", error=repr(error))
                found = []
            for game_id in found:
                self._add(UUID(game_id))
            await asyncio.sleep(self.sweep)

    def _follow(self, stop: threading.Event) -> None:
        """(A thread) every game the log says was written, looked at."""
        recorder: Any = self.games.store.recorder
        while not stop.is_set():
            try:
                with subscribe(recorder, recorder.max_notification_id()) as subscription:
                    for notification in subscription:
                        if stop.is_set():
                            return
                        self.look_at(UUID(str(notification.originator_id)))
            except Exception as error:  # the store went away: follow again shortly
                log.warning("bot_follow_failed", error=repr(error))
                stop.wait(SWEEP)

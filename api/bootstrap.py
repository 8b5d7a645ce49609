"""The wiring: a store's services, runners and read models, built once at start-up (and
handed to the handlers by Litestar's dependency injection, see api/app.py).

`open_tabletop` builds it from the settings: the store (SQLite unless DATABASE_URL is
set), the game writes and reads, the players, the read models, the live-stream hub, the bot
runner, the timekeeper, the transparency log's follower, the sentinel and the projection
runner (unless another process runs them).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any
from uuid import UUID

import anyio
from litestar import Request
from litestar.di import NamedDependency

from api import stream_tokens
from api.health import StoreWatch
from api.hub import LiveHub
from api.limits import buckets
from api.metrics import Metrics
from projections.runner import GamesRunner, view_for
from projections.views import GamesView
from service.bot_runner import BotRunner, swept
from service.chain import now_text
from service.current import Current
from service.errors import Unauthorized
from service.findings import Findings
from service.fold import Fold
from service.games import Games
from service.history import Listings
from service.players import Player, Players
from service.reads import GameReads
from service.role_lock import RoleLock
from service.sentinel import Pace, Sentinel
from service.settings import Limits, Settings
from service.store import EventStoreApp, open_store
from service.timekeeper import Timekeeper
from service.transparency import log_of
from service.wakeup import ring

STOP_WAIT = 2.0  # seconds a stopping server waits for its timekeeper's tick to end (one that
# waits on the lock of another process's timekeeper never ends: it is a daemon, and its writes
# are refused once draining)
BOT_DECIDE = "app"  # TABLETOP_BOTS: who plays the bots' seats ("elsewhere": `tabletop bots run`)


class Tabletop:
    """What the handlers share: the store, the two services on it, the read models, the
    live-stream hub and the metrics. With `projections` settings, the app also runs the
    projection runner (otherwise another process runs it: `tabletop projections run`)."""

    def __init__(
        self,
        store: EventStoreApp,
        arbiters: frozenset[str] = frozenset(),
        projections: Settings | None = None,
        create_tables: bool = True,
        now: Callable[[], str] = now_text,
        keep_time: Settings | None = None,
        limits: Limits | None = None,
        standby: EventStoreApp | None = None,
        run_bots: bool = True,
        resuming: bool = False,
        sentinel: Settings | None = None,
        pace: Pace | None = None,
    ) -> None:
        self.store = store
        self.standby = standby
        self.game_reads = GameReads(store, Current(store), standby)
        self.games = Games(store, self.game_reads, now)
        if resuming:  # a server that starts may follow a gap: see service/heartbeat.py
            self.games.resuming.interrupted()
        self.limits = limits or Limits()
        self.register = buckets(self.limits.register)  # per client address
        self.per_key = buckets(self.limits.per_key)
        self.bad_keys = buckets(self.limits.bad_keys)  # per client address
        self.players = Players(store)
        self.arbiters = arbiters
        self.reads = view_for(store)
        if create_tables:
            self.reads.create_table()
        # the read models' lists, from the standby when there is one (they trail anyway)
        self.listings: GamesView | Listings = self.reads
        if standby is not None:
            self.listings = Listings(self.game_reads.history, view_for(standby), self.reads)
        self.live = LiveHub(store)
        self.games.writes.listen(self._committed)
        # Plays the bots' seats (service/bot_runner.py), unless another process does.
        self.bots = BotRunner(self.games, swept(self.reads, self.games.now)) if run_bots else None
        self._bots_task: asyncio.Task[None] | None = None
        # Tampered games found, by this process or another (service/findings.py); with
        # `sentinel` (the store's settings) this process re-checks ended games against the
        # transparency log when it holds the sentinel's lock.
        self.findings = Findings(store)
        self.sentinel = Sentinel(store, pace or Pace(), self.findings)
        self._sentinel = sentinel
        self.metrics = Metrics(self)
        self.watch = StoreWatch(store)
        # A store found down may hide a gap: timed moves wait for the clocks' credit.
        self.watch.on_down = self.games.resuming.interrupted
        self._projections = projections
        self.runner: GamesRunner | None = None
        # Applies the timeouts, in a thread of this app with `keep_time` (the store's settings):
        # its writes then reach this process's cache and live streams at once. On Postgres
        # one process of the database keeps time; the others' timekeepers stand by.
        self.timekeeper = Timekeeper(self.games, self.reads)
        self.tournaments = self.timekeeper.tournaments
        self._keep_time = keep_time
        self._time_stop = threading.Event()
        # the timekeeper's, the log follower's and the sentinel's
        self._threads: list[threading.Thread] = []

    def _committed(self, game_id: UUID, version: int, fold: Fold | None) -> None:
        self.live.publish(game_id, version)
        ring()  # the runner of this process, on SQLite

    def start(self) -> None:
        """(On the event loop, at start-up) the write driver runs on this loop, and the
        bot runner, timekeeper and projection runner start."""
        loop = asyncio.get_running_loop()
        self.games.writes.attach(loop)
        if self.bots is not None:
            self._bots_task = loop.create_task(self.bots.run())
        if self._projections is not None:
            self.runner = GamesRunner(self._projections)
        stop = self._time_stop
        if self._keep_time is not None:
            keep = self.timekeeper.keep
            # Ended games into the transparency log, signed by the process holding its lock:
            # taken here when free, so that this process's first requests are answered
            # with heads it signs; else its follower waits for it.
            logged, lock = log_of(self.store), RoleLock(self._keep_time, "transparency")
            logged.take(lock)
            self._threads += [
                threading.Thread(target=keep, args=(self._keep_time, stop), daemon=True),
                threading.Thread(target=logged.follow, args=(lock, stop), daemon=True),
            ]
        if self._sentinel is not None:
            watch = self.sentinel.keep
            self._threads.append(
                threading.Thread(target=watch, args=(self._sentinel, stop), daemon=True)
            )
        for thread in self._threads:
            thread.start()

    async def drain(self) -> None:
        """Stop the timekeeper and the bot runner, let the writes begun end and close the
        connections (before `stop`, which closes the store)."""
        self._time_stop.set()
        for thread in self._threads:  # a tick ends its writes first (the loop is free)
            await anyio.to_thread.run_sync(thread.join, STOP_WAIT)
        if self.bots is not None and self._bots_task is not None:
            self.bots.stop()
            await asyncio.gather(self._bots_task, return_exceptions=True)
        await self.games.writes.drain()
        await self.game_reads.close()
        await self.watch.close()

    def stop(self) -> None:
        self._time_stop.set()
        self.games.writes.close()  # its own loop, if a thread's write started one
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        self.live.stop()
        self.store.close()
        if self.standby is not None:
            self.standby.close()

    def caller(self, request: Request[Any, Any, Any], required: bool) -> Player | None:
        token = bearer(request)
        if token is None:
            if required:
                raise Unauthorized("unauthorized", "send Authorization: Bearer <api_key>")
            return None
        checked: Player | None = request.scope.get(CALLER)  # type: ignore[assignment]
        if checked is not None:  # api/guard.py found the key's player already
            return checked
        player = self.players.authenticate(token) if token else None
        if player is None:
            raise Unauthorized("unauthorized", "the API key is not valid")
        return player

    def stream_caller(
        self, request: Request[Any, Any, Any], token: str | None, required: bool
    ) -> Player | None:
        """The caller of a stream route: the player of a stream token (`?token=`, what a
        browser's EventSource can send), else as `caller`."""
        if token is None:
            return self.caller(request, required)
        return stream_tokens.check(self.players, token)

    def game(self, game_id: UUID) -> Fold:
        return self.game_reads.get(game_id)

    def in_memory(self, request: Request[Any, Any, Any], game_id: UUID) -> bool:
        """Whether a read of this game by this caller needs nothing from the store."""
        token = bearer(request)
        return self.game_reads.in_memory(game_id) and (token is None or self.players.known(token))

    async def player(self, request: Request[Any, Any, Any]) -> Player:
        """The caller of a write: found on the event loop when its key is known in memory,
        else in a worker thread (authenticating may read the store)."""
        token = bearer(request)
        if token and self.players.known(token):
            player = self.caller(request, required=True)
        else:
            player = await anyio.to_thread.run_sync(self.caller, request, True)
        assert player is not None
        return player


# The scope's key for the player a request's API key was found to be (api/guard.py finds it
# before the handler runs; `Tabletop.caller` then needs no second look).
CALLER = "tabletop.caller"
# ... and when it arrived (the guard stamps it first thing): a move is decided as of then.
ARRIVED = "tabletop.arrived"


def bearer(request: Request[Any, Any, Any]) -> str | None:
    """The API key of an `Authorization: Bearer` header; "" for any other scheme, None when
    there is no header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def open_tabletop(settings: Settings) -> Tabletop:
    """The service of `settings`, as `tabletop serve` runs it."""
    # The projection runner runs inside the app unless another process runs it (serve with
    # several workers runs one beside them; `tabletop projections run` is another way).
    inside = os.environ.get("TABLETOP_PROJECTIONS", "app") == "app"
    in_memory = settings.database_url is None and settings.sqlite_path == ":memory:"
    # The timekeeper runs in the app too (one per database acts), unless it runs elsewhere
    # (`tabletop timekeeper run`): its timeouts then reach this process's reads at once.
    keeps_time = os.environ.get("TABLETOP_TIMEKEEPER", "app") == "app"
    # The bot runner plays in the app too, unless a process of its own does (`tabletop bots
    # run`): a bot's seat is never left waiting.
    plays_bots = os.environ.get("TABLETOP_BOTS", BOT_DECIDE) == "app"
    # The sentinel re-checks ended games (one process of a database acts), unless it runs
    # elsewhere (`tabletop sentinel run`).
    watches = os.environ.get("TABLETOP_SENTINEL", "app") == "app"
    standby = settings.standby()  # a hot standby for history and lists (docs/operations.md)
    return Tabletop(
        open_store(settings),
        settings.arbiters,
        projections=settings if inside and not in_memory else None,
        create_tables=settings.create_tables,
        keep_time=settings if keeps_time and not in_memory else None,
        limits=settings.limits,
        standby=open_store(standby) if standby is not None else None,
        resuming=not in_memory,  # (an in-memory store has no past, and no timekeeper)
        run_bots=plays_bots,
        sentinel=settings if watches and not in_memory else None,
        pace=Pace.from_env(),
    )


# What a handler names to be given the shared Tabletop (by Litestar's dependency injection,
# registered in api/app.py), and the settings.
Shared = NamedDependency[Tabletop]
SettingsGiven = NamedDependency[Settings]

"""The game use cases: create, join, move, read. Game-agnostic: everything game-specific
comes through the contract of `domain.contract.Game`.

Writes are optimistic: the decided state is kept in an in-process cache and the new events
are saved at the next version; the store's unique (game, version) key refuses a stale write,
which means another process moved first, so the fold is caught up and the request re-checked.
A per-game lock keeps writers of one process from racing each other for nothing.

Each write has two drivers: in a worker thread (saved by the group commit, retried after a
conflict) and, on Postgres, on the event loop (saved by the loop writer with no thread hop,
when all it needs is in memory; otherwise handed back for a thread to do from the start).
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import msgspec
import structlog
from eventsourcing.persistence import RecordConflictError

from domain.bots import BotSpecError, bot_names, resolve_bot
from domain.contract import Game, RuleError, SeatInfo
from domain.options import parse_options
from domain.randomness import commitment, rng_for
from domain.registry import GAMES
from domain.registry import get as get_game
from service import clocks, lifecycle, snapshots
from service.bounded import BoundedMap
from service.chain import GENESIS, RANDOMNESS, line_hash, now_text
from service.errors import Conflict, Forbidden, NotFound, Problem, Unprocessable
from service.fold import (
    GAME_ABORTED,
    GAME_CREATED,
    GAME_FINISHED,
    RANDOMNESS_FIXED,
    REMATCH_ACCEPTED,
    REMATCH_OFFERED,
    SEAT_FORFEITED,
    SEAT_LEFT,
    SEAT_TAKEN,
    SERVICE_EVENTS,
    SYSTEM,
    TIMED_OUT,
    UNREADABLE,
    Batch,
    Fold,
    new_fold,
)
from service.fold_cache import FoldCache
from service.game_locks import GameLock, GameLocks
from service.group_commit import GroupCommit
from service.heads import Heads
from service.history import History
from service.lines import service_line
from service.loop_writer import LoopWriter
from service.pg_recorder import LockedFunctionRecorder
from service.players import Player
from service.reader import read_events
from service.settings import Limits
from service.store import EventStoreApp, Recorded, SeedKept

log = structlog.get_logger("tabletop.games")

_T = TypeVar("_T")

SEED_NAMESPACE = UUID("6d1c2a52-4f0e-4b8e-9a57-1f3c8f0d2b11")
# The cache's bounds: TABLETOP_CACHE_MB of folds by their deep size (service/fold_cache.py),
# and TABLETOP_CACHE_GAMES games.
_LIMITS = Limits.from_env()
CACHE_BYTES = int(_LIMITS.cache_mb * 2**20)
CACHE_SIZE = _LIMITS.cache_games
SEEDS_KEPT = CACHE_SIZE  # seeds of the games held (a seed is dropped with its fold)
KEYED_NAMESPACE = UUID("0b6c8e0e-52a4-4f43-9d8e-3a1f6b7c2d90")
MAX_SEATS = 16


def seed_stream(game_id: UUID) -> UUID:
    return uuid.uuid5(SEED_NAMESPACE, game_id.hex)


def keyed_game_id(player_id: str, key: str) -> UUID:
    """The id of the game a player's create with an Idempotency-Key makes: the same for
    every retry, so the store's unique (id, version) makes the create happen once, in any
    process."""
    return uuid.uuid5(KEYED_NAMESPACE, f"{player_id}:{key}")


@dataclass(frozen=True)
class MoveAnswer:
    version: int
    events: list[dict[str, Any]]
    awaiting: list[int]
    status: str
    # The first answer again, to a retry with the same key (the same answer: not compared).
    replayed: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class _Decided:
    """A write checked and played in memory, not saved yet: the fold it makes, the events
    to save, the seat acting (None for a new game without its creator seated) and, for a
    new game, its seed."""

    new: Fold
    appended: list[Any]
    seat: int | None
    seed: bytes | None = None


@dataclass(frozen=True)
class Note:
    """One of the service's own events (SERVICE_EVENTS), to record among a write's events."""

    type: str
    data: dict[str, Any]


@dataclass(frozen=True)
class BotTurn:
    """A bot named `bot` decides for `seat` now (a seat whose time ran out)."""

    seat: int
    bot: str


# What a write records, in order: (who acted, the command, its events), or a bot's turn.
Step = tuple[int | str, Any, list[Any]] | BotTurn


@dataclass(frozen=True)
class _Again:
    """A retry of an applied move (same seat, key, move and expected version)."""

    seat: int
    batch: Batch


class GameService:
    def __init__(
        self,
        store: EventStoreApp,
        now: Callable[[], str] = now_text,
        standby: EventStoreApp | None = None,
    ) -> None:
        self.store = store
        self.history = History(store, standby)  # a game's past, from a standby when it can
        self.now = now  # the server's time as an `at` stamp (tests inject a fake clock)
        self.writer = GroupCommit(store)
        # Postgres only: writes decided on the event loop are saved there (`_on_loop`).
        pg = isinstance(store.recorder, LockedFunctionRecorder)
        self.loop_writer = LoopWriter(store) if pg else None
        self.heads = Heads(store) if pg else None  # the store's head of a game, on the loop
        self._cache = FoldCache(CACHE_BYTES, CACHE_SIZE)
        self._seeds: BoundedMap[UUID, bytes] = BoundedMap(SEEDS_KEPT)
        self._lock = GameLocks()  # self._lock(game_id): that game's lock
        self.moves_applied = 0
        # Called with (game id, new version) after each commit: wakes live streams and
        # the projection runner of this process without polling.
        self.on_commit: Callable[[UUID, int], None] | None = None

    # ---- writes -------------------------------------------------------------------------
    # Each write is decided in memory (`_new_game`, `_seating`, `_decide`), then saved, then
    # applied to the cache and answered. In a worker thread it is saved by the group commit
    # and retried on a version conflict; on the event loop (`*_on_loop`, Postgres only) it is
    # saved by the loop writer when everything it needs is in memory, and otherwise handed
    # back (None) for the thread to do from the start.

    def create(
        self,
        creator: Player,
        name: str,
        seats: int,
        options: dict[str, Any],
        bots: dict[int, str],
        seat: int | None = None,
        clock: dict[str, Any] | None = None,
        on_timeout: str | None = None,
        rated: bool = False,
        client_seed: str | None = None,
        key: str | None = None,
    ) -> Fold:
        """A new game; `seat` seats its creator in the same save (with `client_seed`). With an
        idempotency `key` it is the game `keyed_game_id` names (409 `game_exists` once it was
        created)."""
        new = (creator, name, seats, options, bots, seat, clock, on_timeout)
        game_id = keyed_game_id(creator.id, key) if key is not None else None
        extra = {"rated": True} if rated else None
        step = self._new_game(*new, extra, client_seed, game_id)
        if not self._saved(step):
            raise _not_created(game_id)
        return self._created(step)

    async def create_on_loop(
        self,
        creator: Player,
        name: str,
        seats: int,
        options: dict[str, Any],
        bots: dict[int, str],
        seat: int | None = None,
        clock: dict[str, Any] | None = None,
        on_timeout: str | None = None,
        rated: bool = False,
        client_seed: str | None = None,
        key: str | None = None,
    ) -> Fold | None:
        if self.loop_writer is None or bots:
            return None
        new = (creator, name, seats, options, bots, seat, clock, on_timeout)
        game_id = keyed_game_id(creator.id, key) if key is not None else None
        extra = {"rated": True} if rated else None
        step = self._new_game(*new, extra, client_seed, game_id)
        if not self.loop_writer.takes(step.appended):
            return None
        created = await self._saved_on_loop(step, self._created)
        if created is None:  # a new random id is its own: only a named game gets here
            raise _not_created(game_id)
        return created

    def join(
        self, player: Player, game_id: UUID, seat: int | None, client_seed: str | None = None
    ) -> Fold:
        with self._lock(game_id):
            for _ in range(5):
                step = self._seating(self._fresh(game_id), player, seat, None, client_seed)
                if self._saved(step):
                    return self._joined(step)
        raise Conflict("busy", "the game changed too often; try again")

    async def join_on_loop(
        self, player: Player, game_id: UUID, seat: int | None, client_seed: str | None = None
    ) -> Fold | None:
        return await self._on_loop(
            game_id,
            lambda fold, seed: self._seating(fold, player, seat, seed, client_seed),
            self._joined,
        )

    def move(
        self,
        player: Player,
        game_id: UUID,
        expected_version: int,
        move: Any,
        key: str,
    ) -> MoveAnswer:
        started = time.perf_counter()
        with self._lock(game_id):
            for attempt in range(5):
                fold = self._fresh(game_id) if attempt else self._cached(game_id)
                step = self._decide(fold, player, expected_version, move, key, fresh=attempt > 0)
                if step is None:
                    continue  # our cache may trail another process: look at the store
                if isinstance(step, _Again):
                    return self._answer_again(fold, step)
                if self._saved(step):
                    return self._applied(step, started)
        raise Conflict("busy", "the game changed too often; try again")

    async def move_on_loop(
        self,
        player: Player,
        game_id: UUID,
        expected_version: int,
        move: Any,
        key: str,
    ) -> MoveAnswer | None:
        started = time.perf_counter()

        def decide(fold: Fold, seed: bytes) -> _Decided | None:
            step = self._decide(fold, player, expected_version, move, key, False, seed)
            return step if isinstance(step, _Decided) else None  # a retry reads the store

        return await self._on_loop(game_id, decide, lambda step: self._applied(step, started))

    # ---- the lifecycle: timeouts, resignation, abort, leave, rematch ---------------------
    # Each is a write like a move (the same expected-version rule decides a race): decided
    # on the fold fresh from the store, in a worker thread, retried after a conflict.

    def time_out(self, game_id: UUID) -> Fold | None:
        """(The timekeeper) time out the seat whose deadline passed first, and apply the
        game's policy: a bot decides for it, or it forfeits. None when none is due now (a
        move, or another timekeeper, came first)."""
        return self._lifecycle(game_id, None, self._timeout_steps)

    def resign(self, player: Player, game_id: UUID) -> Fold:
        """The caller's seat forfeits: it ranks last, and a bot plays it out (a two-seat
        game ends at once)."""
        return self._must(self._lifecycle(game_id, player, _resign_steps))

    def abort(self, player: Player, game_id: UUID) -> Fold:
        """The creator cancels a game before any player's decision: no result."""
        return self._must(self._lifecycle(game_id, player, _abort_steps))

    def leave(self, player: Player, game_id: UUID) -> Fold:
        """The caller gives up its seat in a game that has not started."""
        return self._must(self._lifecycle(game_id, player, _leave_steps))

    def forfeit(self, game_id: UUID, seat: int, reason: str) -> Fold | None:
        """(A tournament withdrawal) `seat` forfeits its running game; None when the game is
        over or the seat has forfeited already."""

        def steps(fold: Fold, player: Player | None, at: str, seed: bytes) -> list[Step] | None:
            if fold.over or not fold.started or seat in fold.forfeited:
                return None
            return [(SYSTEM, None, [_forfeit(seat, reason)])]

        return self._lifecycle(game_id, None, steps)

    def table(
        self,
        name: str,
        seated: list[tuple[str | None, str, str | None]],
        options: dict[str, Any],
        clock: dict[str, Any] | None,
        on_timeout: str | None,
        extra: dict[str, Any],
        game_id: UUID,
    ) -> Fold | None:
        """Create the game `game_id` with every seat taken at once (a tournament's table):
        `seated` is (player id, name, bot) per seat; it starts, and bots play while they
        are awaited. None when that game exists already (another process created it)."""
        game = get_game(name)
        if game is None:
            raise Unprocessable("unknown_game", f"no game named {name!r}")
        parsed = _options(game, options, len(seated))
        clock, on_timeout = clocks.parse(clock, on_timeout)
        seed, at = secrets.token_bytes(32), self.now()
        data = {
            "game": name,
            "options": msgspec.to_builtins(parsed),
            "seats": len(seated),
            "seed_commitment": commitment(seed),
            "created_by": None,
            "randomness": RANDOMNESS,
            **({"clock": clock, "on_timeout": on_timeout} if clock is not None else {}),
            **extra,
        }
        created = recorded(game_id, 1, GENESIS, GAME_CREATED, SYSTEM, None, None, data, at)
        fold = new_fold(game_id, created)
        appended: list[Any] = [_kept(game_id, seed), created]
        for seat, (player, shown, bot) in enumerate(seated):
            taken = {"seat": seat, "player": player, "name": shown, "bot": bot}
            taken["client_seed"] = server_client_seed()  # a table's players give none
            appended.append(self._append(fold, SEAT_TAKEN, seat, taken, at))
        fold, more = self._start(fold, seed, None, at)
        step = _Decided(fold, [*appended, *more], None, seed)
        try:
            self.writer.save(*step.appended)
        except RecordConflictError:
            return None
        return self._created(step)

    def _timeout_steps(
        self, fold: Fold, player: Player | None, at: str, seed: bytes
    ) -> list[Step] | None:
        """The seat whose deadline passed first times out (under `forfeit`, every seat
        whose deadline has passed, in deadline order: seats that stalled together lose
        together, not by seat number)."""
        clock, now = fold.clock, clocks.micros(at)
        if clock is None or fold.over or not fold.started:
            return None
        due = sorted(
            (d, s) for s in clock.since if (d := clock.deadline(s)) is not None and d <= now
        )
        if not due:
            return None
        policy = fold.on_timeout or clocks.DEFAULT_POLICY
        steps: list[Step] = []
        for deadline, seat in due if policy == "forfeit" else due[:1]:
            timed_out = Note(TIMED_OUT, {"seat": seat, "deadline": clocks.stamp(deadline)})
            steps.append((SYSTEM, None, [timed_out]))
            if policy == "forfeit":
                steps.append((SYSTEM, None, [_forfeit(seat, "timed_out")]))
            else:
                steps.append(BotTurn(seat, policy.removeprefix("bot:")))
            log.info("timed_out", game_id=str(fold.id), seat=seat, policy=policy)
        return steps

    def _lifecycle(
        self,
        game_id: UUID,
        player: Player | None,
        steps_for: Callable[[Fold, Player | None, str, bytes], list[Step] | None],
    ) -> Fold | None:
        with self._lock(game_id):
            for _ in range(5):
                fold = self._fresh(game_id)
                at = self.now()
                seed = self._seed(game_id)
                steps = steps_for(fold, player, at, seed)
                if steps is None:
                    return None
                new, appended = self._play(fold, seed, None, at, steps)
                if self._saved(_Decided(new, appended, None)):
                    self._remember(new)
                    self._committed(new)
                    log.info(
                        "lifecycle",
                        game_id=str(game_id),
                        first=appended[0].type,
                        events=len(appended),
                    )
                    return new
        raise Conflict("busy", "the game changed too often; try again")

    @staticmethod
    def _must(fold: Fold | None) -> Fold:
        assert fold is not None, "a player's lifecycle write refuses or writes"
        return fold

    def rematch(self, player: Player, game_id: UUID) -> Fold:
        """Offer a rematch of a finished game, or accept the one offered: the same game,
        options and clock, each player one seat earlier (lifecycle.rematch_seat), bots
        seated at once; it starts when every player has accepted. Returns the new game."""
        with self._lock(game_id):
            for _ in range(5):
                old = self._fresh(game_id)
                seat = old.seat_of(player.id)
                if seat is None:
                    raise Forbidden("not_seated", "only the game's players ask for its rematch")
                if old.result is None:
                    raise Conflict("game_not_finished", "only a finished game has a rematch")
                at = self.now()
                marked = old.advance([], clone=False)
                if old.rematch is None:
                    step = self._offer(old, player, seat)
                    offer = {"game": str(step.new.id), "by": seat}
                    mark = self._append(marked, REMATCH_OFFERED, seat, offer, at)
                elif seat in old.rematch_accepted:
                    return self._fresh(UUID(old.rematch))
                else:
                    with self._lock(UUID(old.rematch)):
                        rematch = self._fresh(UUID(old.rematch))
                        taking = lifecycle.rematch_seat(seat, old.seats)
                        step = self._seating(rematch, player, taking)
                        answer = {"seat": seat, "game": old.rematch}
                        mark = self._append(marked, REMATCH_ACCEPTED, seat, answer, at)
                if self._saved(_Decided(step.new, [*step.appended, mark], None)):
                    for fold in (marked, step.new):
                        self._remember(fold)
                        self._committed(fold)
                    if step.seed is not None:
                        self._seeds.put(step.new.id, step.seed)
                    return step.new
        raise Conflict("busy", "the game changed too often; try again")

    def _offer(self, old: Fold, player: Player, seat: int) -> _Decided:
        """The rematch's new game, its offerer seated."""
        rotate = lifecycle.rematch_seat
        reserved: list[str | None] = [None] * old.seats
        bots: dict[int, str] = {}
        for s in range(old.seats):
            if old.players[s] is None:
                bots[rotate(s, old.seats)] = old.bots[s]
            else:
                reserved[rotate(s, old.seats)] = old.players[s]
        extra = {"rematch_of": str(old.id), "reserved": reserved, "rated": old.rated}
        return self._new_game(
            player,
            old.game.name,
            old.seats,
            msgspec.to_builtins(old.options),
            bots,
            rotate(seat, old.seats),
            old.clock_spec,
            old.on_timeout,
            extra,
        )

    async def _on_loop(
        self,
        game_id: UUID,
        decide: Callable[[Fold, bytes], _Decided | None],
        apply: Callable[[_Decided], _T],
    ) -> _T | None:
        """Decide on the cached fold and save with the loop writer, if all is in memory: the
        game (with no bots: they think longer than a loop may be held), its seed, a free game
        lock. Refusals are raised as they are; None hands the write to a worker thread."""
        seed = self._seeds.get(game_id)
        if self.loop_writer is None or seed is None or game_id not in self._cache:
            return None
        lock = self._lock(game_id)
        if not lock.acquire(blocking=False):
            return None
        try:
            fold = self._cache.get(game_id)  # as it stays while we hold the lock
            step = decide(fold, seed) if fold is not None and not fold.bots else None
        except BaseException:
            lock.release()
            raise
        if step is None or not self.loop_writer.takes(step.appended):
            lock.release()
            return None
        return await self._saved_on_loop(step, apply, lock)

    async def _saved_on_loop(
        self,
        step: _Decided,
        apply: Callable[[_Decided], _T],
        lock: GameLock | None = None,
    ) -> _T | None:
        """Save `step` with the loop writer and apply it, as one task that a cancelled
        request does not cut short (what is committed is also cached and announced); the
        game's lock is held until then. None when another process wrote first."""

        async def save_and_apply() -> _T | None:
            assert self.loop_writer is not None
            try:
                await self.loop_writer.save(step.appended)
            except RecordConflictError:
                if not await asyncio.to_thread(self._stored_already, step):
                    return None
            return apply(step)

        task = asyncio.ensure_future(save_and_apply())

        def done(finished: asyncio.Future[_T | None]) -> None:
            if lock is not None:
                lock.release()
            if not finished.cancelled():
                finished.exception()  # the request may be gone: its error is not "lost"

        task.add_done_callback(done)
        return await asyncio.shield(task)

    def _saved(self, step: _Decided) -> bool:
        """Save `step` with the group commit; False when another writer took one of its
        versions first."""
        try:
            self.writer.save(*step.appended)
        except RecordConflictError:
            return self._stored_already(step)
        return True

    def _stored_already(self, step: _Decided) -> bool:
        """Whether the store holds `step`'s own first event: a save whose answer was lost,
        retried, meets itself (its hash covers its time and its whole chain)."""
        first = next(e for e in step.appended if isinstance(e, Recorded))
        version = first.originator_version
        with _readable(first.originator_id):
            stored = list(self.store.events.get(first.originator_id, gt=version - 1, lte=version))
        return bool(stored) and getattr(stored[0], "hash", None) == first.hash

    def _new_game(
        self,
        creator: Player,
        name: str,
        seats: int,
        options: dict[str, Any],
        bots: dict[int, str],
        seat: int | None,
        clock: dict[str, Any] | None = None,
        on_timeout: str | None = None,
        extra: dict[str, Any] | None = None,
        client_seed: str | None = None,
        game_id: UUID | None = None,
    ) -> _Decided:
        """A new game's events: created, bots seated, the creator seated (`seat`), started
        when full. `extra` adds to `game_created` (a rematch's links and reserved seats)."""
        game = get_game(name)
        if game is None:
            raise Unprocessable("unknown_game", f"no game named {name!r}; see /v1/game-types")
        if not game.min_players <= seats <= game.max_players:
            raise Unprocessable(
                "invalid_seats", f"{name} seats {game.min_players}-{game.max_players} players"
            )
        parsed = _options(game, options, seats)
        clock, on_timeout = clocks.parse(clock, on_timeout)
        for bot_seat, bot in bots.items():
            if not 0 <= bot_seat < seats:
                raise Unprocessable("invalid_bot_seat", f"seat {bot_seat} is not in 0..{seats - 1}")
            try:
                resolve_bot(game, bot)
            except BotSpecError as error:
                raise Unprocessable(error.code, error.message) from None
        game_id = game_id or uuid.uuid4()
        seed = secrets.token_bytes(32)
        at = self.now()
        data = {
            "game": name,
            "options": msgspec.to_builtins(parsed),
            "seats": seats,
            "seed_commitment": commitment(seed),
            "created_by": creator.id,
            "randomness": RANDOMNESS,
        }
        if clock is not None:
            data |= {"clock": clock, "on_timeout": on_timeout}
        data |= extra or {}
        created = recorded(game_id, 1, GENESIS, GAME_CREATED, SYSTEM, None, None, data, at)
        fold = new_fold(game_id, created)
        appended: list[Any] = [_kept(game_id, seed), created]
        for bot_seat, bot in sorted(bots.items()):
            taken = {"seat": bot_seat, "player": None, "name": f"{bot} bot", "bot": bot}
            taken["client_seed"] = server_client_seed()
            appended.append(self._append(fold, SEAT_TAKEN, bot_seat, taken, at))
        if seat is not None:  # the creator's seat, checked as a join would be
            step = self._seating(fold, creator, seat, seed, client_seed)
            fold = step.new
            appended += step.appended
        elif not fold.free_seats():
            fold, more = self._start(fold, seed, None, at)
            appended += more
        return _Decided(fold, appended, seat, seed)

    def _created(self, step: _Decided) -> Fold:
        fold = step.new
        assert step.seed is not None
        self._seeds.put(fold.id, step.seed)
        self._remember(fold)
        self._committed(fold)
        log.info(
            "game_created",
            game_id=str(fold.id),
            game=fold.game.name,
            seats=fold.seats,
            bots=len(fold.bots),
        )
        return fold

    def _seating(
        self,
        fold: Fold,
        player: Player,
        seat: int | None,
        seed: bytes | None = None,
        client_seed: str | None = None,
    ) -> _Decided:
        """`player` takes `seat` (the first free one if None), with its `client_seed` (the
        server picks one when it gives none); the game starts when full. A rematch's seats
        are reserved for the players of the game before."""
        if fold.status != "open":
            raise Conflict("game_not_open", "the game has already started")
        if fold.seat_of(player.id) is not None:
            raise Conflict("already_seated", "you already hold a seat in this game")
        free = fold.free_seats()
        mine = [s for s in free if s < len(fold.reserved) and fold.reserved[s] == player.id]
        if fold.reserved and not mine:
            raise Forbidden("seat_reserved", "this rematch's seats are reserved for its players")
        if seat is None:
            seat = mine[0] if mine else free[0]
        elif not 0 <= seat < fold.seats:
            raise Unprocessable("invalid_seat", f"seat must be in 0..{fold.seats - 1}")
        elif seat not in free:
            raise Conflict("seat_taken", f"seat {seat} is taken")
        elif fold.reserved and seat not in mine:
            raise Forbidden("seat_reserved", f"seat {seat} is reserved for another player")
        at = self.now()
        if client_seed is not None and not fold.seeded:
            raise Unprocessable(
                "client_seed_unsupported", "this game predates client seeds: join without one"
            )
        taken = {"seat": seat, "player": player.id, "name": player.name, "bot": None}
        if fold.seeded:
            taken["client_seed"] = client_seed or server_client_seed()
        new = fold.advance([], clone=False)
        appended = [self._append(new, SEAT_TAKEN, seat, taken, at)]
        if not new.free_seats():
            new, more = self._start(new, seed or self._seed(fold.id), None, at)
            appended += more
        return _Decided(new, appended, seat)

    def _joined(self, step: _Decided) -> Fold:
        self._remember(step.new)
        self._committed(step.new)
        assert step.seat is not None
        player = step.new.players[step.seat]
        log.info("seat_taken", game_id=str(step.new.id), seat=step.seat, player=player)
        return step.new

    def _decide(
        self,
        fold: Fold,
        player: Player,
        expected_version: int,
        move: Any,
        key: str,
        fresh: bool,
        seed: bytes | None = None,
    ) -> _Decided | _Again | None:
        """Check a move against `fold` and play it in memory (bots that it wakes too). None
        when `fold` came from the cache and the move does not fit it: the store may be ahead,
        and a refusal must not depend on how far this process trails. Raises the refusal
        otherwise; nothing is saved here."""
        seat = fold.seat_of(player.id)
        if seat is None:
            if not fresh:
                return None  # a cache that trails may not know the seat yet
            raise Forbidden("not_seated", "you hold no seat in this game")
        command = _command(fold.game, move)
        recorded_command = msgspec.to_builtins(command)
        batch = fold.batches.get((seat, key))
        if batch is not None:
            if (batch.command, batch.expected_version) != (recorded_command, expected_version):
                raise Unprocessable(
                    "idempotency_key_reused", "this Idempotency-Key was used for another move"
                )
            return _Again(seat, batch)
        if expected_version != fold.version:
            if not fresh:
                return None
            raise Conflict(
                "version_conflict",
                f"expected_version {expected_version} but the game is at {fold.version}",
                version=fold.version,
            )
        at = self.now()
        refusal = _not_playable(fold, seat, at)
        if refusal is not None:
            if not fresh:
                return None
            raise refusal
        seed = seed or self._seed(fold.id)
        try:
            rng = rng_for(fold.rules_seed(seed), fold.version)
            outcome = fold.game.decide(fold.state, seat, command, rng)
        except RuleError as error:
            if not fresh:
                return None
            raise Unprocessable(error.code, error.message) from None
        except Exception:  # a rules bug must not become a 500 nor change anything
            if not fresh:
                return None
            log.exception("rules_failed", game=fold.game.name, move=recorded_command)
            raise Unprocessable(
                "illegal_move.not_understood", "the rules could not process this move"
            ) from None
        new, appended = self._play(fold, seed, key, at, [(seat, recorded_command, outcome)])
        return _Decided(new, appended, seat)

    def _applied(self, step: _Decided, started: float) -> MoveAnswer:
        """A saved move: cached, announced, logged and answered."""
        new, seat = step.new, step.seat
        assert seat is not None
        self._remember(new)
        self._committed(new)
        self.moves_applied += 1
        log.info(
            "move_applied",
            game_id=str(new.id),
            version=new.version,
            seat=seat,
            events=len(step.appended),
            ms=round((time.perf_counter() - started) * 1000, 2),
        )
        events = [self._visible(new, seat, e) for e in step.appended]
        return MoveAnswer(new.version, events, new.awaiting(), new.status)

    def _answer_again(self, fold: Fold, again: _Again) -> MoveAnswer:
        """A retried request's first answer: the game as it was right after it."""
        batch = again.batch
        then = self.replay(fold, batch.last)
        events = self.visible_events(
            fold, again.seat, batch.first - 1, batch.last - batch.first + 1
        )
        return MoveAnswer(batch.last, events, then.awaiting(), then.status, replayed=True)

    # ---- reads --------------------------------------------------------------------------

    def get(self, game_id: UUID) -> Fold:
        """The game as the store holds it now: the cached fold caught up with whatever
        another process appended (one indexed read), so no read shows less than a write
        any client was answered for."""
        return self._fresh(game_id)

    async def current_on_loop(self, game_id: UUID) -> Fold | None:
        """The cached fold, if it is the store's head (asked on the event loop); None when
        the game must be read in a thread (not cached, behind the store, or SQLite, whose
        file another process may write)."""
        fold = self._cache.get(game_id)
        if fold is None or self.heads is None:
            return None
        return fold if await self.heads.version(game_id) == fold.version else None

    def exists(self, game_id: UUID) -> bool:
        """Whether the store holds that game."""
        if game_id in self._cache:
            return True
        first = list(self.store.events.get(game_id, limit=1))
        return bool(first) and getattr(first[0], "type", None) == GAME_CREATED

    def in_memory(self, game_id: UUID) -> bool:
        """Whether the game is cached (its head still has to be checked)."""
        return game_id in self._cache

    def seat_for(self, fold: Fold, player: Player | None) -> int | None:
        return fold.seat_of(player.id) if player else None

    def view(self, fold: Fold, seat: int | None) -> Any:
        if not fold.started:
            return None
        return msgspec.to_builtins(fold.game.view(fold.state, seat))

    def legal_moves(
        self, fold: Fold, seat: int, offset: int = 0, limit: int | None = None
    ) -> tuple[int, list[Any]]:
        """(how many legal moves there are, a page of them). Some decisions have millions
        of legal instances (a Puerto Rico mayor layout), so games may list them lazily."""
        if fold.status != "active":
            return 0, []
        legal = fold.game.legal_commands(fold.state, seat)
        end = len(legal) if limit is None else min(len(legal), offset + limit)
        return len(legal), [msgspec.to_builtins(legal[i]) for i in range(offset, end)]

    def visible_events(
        self, fold: Fold, seat: int | None, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        with _readable(fold.id):
            shown = self.history.events(fold.id, fold.version, after, limit)
            return [self._visible(fold, seat, e) for e in shown]

    def stored(self, game_id: UUID, after: int = 0, limit: int | None = None) -> Iterator[Any]:
        return self.store.events.get(game_id, gt=after or None, limit=limit)

    def replay(self, fold: Fold, version: int) -> Fold:
        """The fold of the first `version` events (1 <= version <= the game's version)."""
        if not 1 <= version <= fold.version:
            raise Unprocessable("invalid_version", f"version must be in 1..{fold.version}")
        if version == fold.version:
            return fold  # the game as it is: nothing to read again
        with _readable(fold.id):
            past = snapshots.load(self.store, fold.id, lte=version)
            assert past is not None, "a game's stored events up to its version"
            return past

    def seed_of_finished(self, fold: Fold) -> str | None:
        return self.seed_hex(fold.id) if fold.over else None

    def seed_hex(self, game_id: UUID) -> str:
        """The secret seed: for the finished game's export and for arbiters only."""
        return self._seed(game_id).hex()

    # ---- internals ----------------------------------------------------------------------

    def _start(
        self, fold: Fold, seed: bytes, key: str | None, at: str
    ) -> tuple[Fold, list[Recorded]]:
        """All seats are filled: the client seeds fixed (a /2 game), the setup events, then
        whatever bots must play first. `fold` must be the caller's own copy."""
        fixed = []
        if fold.seeded:
            seeds = {"client_seeds": list(fold.client_seeds)}
            fixed.append(self._append(fold, RANDOMNESS_FIXED, SYSTEM, seeds, at))
        rng = rng_for(fold.rules_seed(seed), fold.version)
        setup = fold.game.setup(fold.options, fold.seats, rng)
        new, appended = self._play(fold, seed, key, at, [(SYSTEM, None, setup)])
        return new, [*fixed, *appended]

    def _play(
        self, fold: Fold, seed: bytes, key: str | None, at: str, steps: list[Step]
    ) -> tuple[Fold, list[Recorded]]:
        """Record `steps` (all stamped `at`), then let bots move while they are awaited,
        then close a game the rules (or a forfeit) ended. Returns the new fold and the
        events to save; `fold` itself is left as it was."""
        new = fold.advance([])
        appended: list[Recorded] = []

        def record(actor: int | str, command: Any, events: list[Any]) -> None:
            for i, event in enumerate(events):
                if isinstance(event, Note):
                    type_, data, decided = event.type, event.data, None
                else:
                    data = msgspec.to_builtins(event)
                    type_, decided = data.pop("type"), event
                timing = None  # a timed decision's first event records its clock
                running = new.clock is not None and actor in new.clock.since
                if i == 0 and command is not None and running:
                    assert new.clock is not None and isinstance(actor, int)
                    timing = new.clock.charged(actor, at)
                e = recorded(
                    new.id, new.version + 1, new.last_hash, type_, actor, command, key, data, at,
                    timing,
                )  # fmt: skip
                appended.append(e)
                new.apply(e, decided)

        def bot_turn(seat: int, name: str) -> None:
            bot = resolve_bot(fold.game, name)
            info = SeatInfo.of(fold.game, new.state, seat)  # never the true state
            mixed = new.rules_seed(seed)
            chosen = bot(fold.game, info, rng_for(mixed, new.version, "bot"))
            outcome = fold.game.decide(new.state, seat, chosen, rng_for(mixed, new.version))
            record(seat, msgspec.to_builtins(chosen), outcome)

        def playing() -> bool:
            return (
                new.started
                and not new.over
                and fold.game.result(new.state) is None
                and not lifecycle.ends_by_forfeit(new.seats, new.forfeited)
            )

        for step in steps:
            if isinstance(step, BotTurn):
                bot_turn(step.seat, step.bot)
            else:
                record(*step)
        while playing():
            bot_seat = next((s for s in fold.game.awaiting(new.state) if s in new.bots), None)
            if bot_seat is None:
                break
            bot_turn(bot_seat, new.bots[bot_seat])
        if new.started and not new.over:
            result = fold.game.result(new.state)
            final = None
            if result is not None:
                final = lifecycle.final_result(result, new.forfeited)
            elif lifecycle.ends_by_forfeit(new.seats, new.forfeited):
                final = lifecycle.forfeit_result(new.seats, new.forfeited)
            if final is not None:
                data = {"seed": seed.hex(), "result": msgspec.to_builtins(final)}
                record(SYSTEM, None, [Note(GAME_FINISHED, data)])
        return new, appended

    def _append(
        self, fold: Fold, type_: str, actor: int | str, data: dict[str, Any], at: str
    ) -> Recorded:
        """One of the service's own events after `fold`, applied to `fold` (which must be
        the caller's own copy)."""
        e = recorded(fold.id, fold.version + 1, fold.last_hash, type_, actor, None, None, data, at)
        fold.apply(e)
        return e

    def _visible(self, fold: Fold, seat: int | None, e: Any) -> dict[str, Any]:
        """An event as `seat` may see it: redacted by the game while it runs."""
        data = e.data
        if e.type in SERVICE_EVENTS:
            text = service_line(e.type, data, seat)
        else:
            event = fold.decode(e.type, data)
            text = fold.game.describe(event, seat)  # as `seat` saw it while the game ran
            if not fold.over:
                data = msgspec.to_builtins(fold.game.redact(event, seat))
                data.pop("type", None)
        shown = {
            "version": e.originator_version,
            "type": e.type,
            "seat": e.seat,
            "at": e.at,
            "data": data,
            "text": text,
        }
        if e.clock is not None:  # a timed decision: the time it used (and, Fischer, left)
            shown["clock"] = e.clock
        return shown

    def _committed(self, fold: Fold) -> None:
        if self.on_commit is not None:
            self.on_commit(fold.id, fold.version)

    def _cached(self, game_id: UUID) -> Fold:
        fold = self._cache.get(game_id)
        return fold if fold is not None else self._fresh(game_id)

    def _fresh(self, game_id: UUID) -> Fold:
        """The fold with every stored event applied (reads only what the cache lacks)."""
        fold = self._cache.get(game_id)
        with _readable(game_id):
            if fold is None:
                loaded = snapshots.load(self.store, game_id)
                if loaded is None:
                    raise NotFound("game_not_found", f"no game {game_id}")
                fold = loaded
            else:
                newer = read_events(self.store, game_id, gt=fold.version)
                if newer:
                    fold = fold.advance(newer)
        self._remember(fold)
        return fold

    def _remember(self, fold: Fold) -> None:
        for dropped in self._cache.keep(fold):
            self._seeds.pop(dropped)

    def _seed(self, game_id: UUID) -> bytes:
        seed = self._seeds.get(game_id)
        if seed is None:
            kept = next(iter(self.store.events.get(seed_stream(game_id), limit=1)))
            assert isinstance(kept, SeedKept), "a game's seed stream holds its SeedKept"
            seed = bytes.fromhex(kept.seed)
            self._seeds.put(game_id, seed)
        return seed


@contextmanager
def _readable(game_id: UUID) -> Iterator[None]:
    """A stored record that no longer reads, or no longer folds, is damage to that game, not
    a fault of the server: the game is refused with a stable code until it is repaired, and
    its audit (which reads the raw records) names the damaged version."""
    try:
        yield
    except UNREADABLE as error:
        log.error("game_damaged", game_id=str(game_id), error=repr(error))
        raise Conflict(
            "game_damaged",
            f"a stored event of this game cannot be read; GET /v1/games/{game_id}/audit names it",
        ) from None


def recorded(
    game_id: UUID,
    version: int,
    prev: str,
    type_: str,
    seat: int | str,
    command: Any,
    key: str | None,
    data: Any,
    at: str,
    clock: dict[str, int] | None = None,
) -> Recorded:
    line = {
        "version": version,
        "type": type_,
        "seat": seat,
        "at": at,
        "command": command,
        "idempotency_key": key,
        "data": data,
        "prev_hash": prev,
    }
    if clock is not None:  # a timed decision's clock; absent (not null) everywhere else
        line["clock"] = clock
    return Recorded(
        originator_id=game_id,
        originator_version=version,
        timestamp=datetime.fromisoformat(at),
        type=type_,
        seat=seat,
        at=at,
        command=command,
        idempotency_key=key,
        data=data,
        prev_hash=prev,
        hash=line_hash(line),
        clock=clock,
    )


def server_client_seed() -> str:
    """The client seed the server gives a seat whose player gave none (and every bot's)."""
    return secrets.token_hex(8)


def _kept(game_id: UUID, seed: bytes) -> SeedKept:
    """The game's secret seed, in a stream of its own."""
    return SeedKept(
        originator_id=seed_stream(game_id),
        originator_version=1,
        timestamp=SeedKept.create_timestamp(),
        seed=seed.hex(),
    )


def _not_created(game_id: UUID | None) -> Conflict:
    """A new game that could not be saved: a named one exists already."""
    if game_id is not None:
        return Conflict("game_exists", f"the game {game_id} exists already")
    return Conflict("busy", "the game could not be saved; try again")


def _forfeit(seat: int, reason: str) -> Note:
    """`seat` gives up for good (it resigned, timed out, or withdrew from its tournament): a
    random bot plays it out (lifecycle.py ranks it last)."""
    return Note(SEAT_FORFEITED, {"seat": seat, "reason": reason, "bot": "random"})


def _seated(fold: Fold, player: Player | None) -> int:
    seat = fold.seat_of(player.id if player else None)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")
    return seat


def _resign_steps(fold: Fold, player: Player | None, at: str, seed: bytes) -> list[Step]:
    seat = _seated(fold, player)
    if fold.over:
        raise Conflict("game_over", f"the game is {fold.status}: there is nothing to resign")
    if not fold.started:
        raise Conflict("game_not_started", "the game has not started: leave it instead")
    if seat in fold.forfeited:
        raise Conflict("seat_forfeited", "your seat has already forfeited")
    return [(seat, None, [_forfeit(seat, "resigned")])]


def _abort_steps(fold: Fold, player: Player | None, at: str, seed: bytes) -> list[Step]:
    if player is None or fold.created_by != player.id:
        raise Forbidden("not_creator", "only the game's creator may abort it")
    if fold.over:
        raise Conflict("game_over", f"the game is {fold.status}")
    if fold.decided:
        raise Conflict("abort_too_late", "a player has made a decision: resign instead")
    return [(SYSTEM, None, [Note(GAME_ABORTED, {"by": player.id, "seed": seed.hex()})])]


def _leave_steps(fold: Fold, player: Player | None, at: str, seed: bytes) -> list[Step]:
    seat = _seated(fold, player)
    if fold.status != "open":
        raise Conflict("game_not_open", "the game has started: resign instead")
    assert player is not None
    return [(seat, None, [Note(SEAT_LEFT, {"seat": seat, "player": player.id})])]


def _not_playable(fold: Fold, seat: int, at: str) -> Problem | None:
    """Why `seat` cannot move in `fold` now, whatever the move (None: it may try)."""
    if fold.aborted:
        return Conflict("game_aborted", "the game was aborted")
    if fold.result is not None:
        return Unprocessable("illegal_move.game_over", "the game is over")
    if fold.status == "open":
        return Unprocessable("illegal_move.not_started", "the game has not started")
    if seat in fold.forfeited:
        return Conflict("seat_forfeited", "your seat forfeited; a bot plays it")
    deadline = fold.clock.deadline(seat) if fold.clock is not None else None
    if deadline is not None and clocks.micros(at) > deadline:
        return Conflict(
            "out_of_time", f"your time ran out at {clocks.stamp(deadline)}; the timeout follows"
        )
    return None


def _options(game: Game[Any, Any], options: dict[str, Any], seats: int) -> Any:
    try:
        return parse_options(game, options, seats)
    except RuleError as error:
        raise Unprocessable(error.code, error.message) from None


def _command(game: Game[Any, Any], move: Any) -> Any:
    try:
        return msgspec.convert(move, game.command_type, strict=True)
    except msgspec.ValidationError as error:
        raise Unprocessable("invalid_move", f"move: {error}") from None


def game_types() -> list[dict[str, Any]]:
    return [
        {
            "name": g.name,
            "title": g.title,
            "min_players": g.min_players,
            "max_players": g.max_players,
            "options": msgspec.to_builtins(g.options_type()),
            "bots": bot_names(g),
            "clocks": list(clocks.KINDS),
            "on_timeout": list(clocks.POLICIES),
        }
        for g in GAMES.values()
    ]

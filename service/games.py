"""The game writes: create, join, move, a bot's decision, timeout, resign, abort, leave,
forfeit, a tournament's table and rematch. Game-agnostic: everything game-specific comes
through the contract of `domain.contract.Game`.

Each is a decision of service/decisions.py run by the write driver (service/writes.py):
the same read, decide, append and retry path for every kind. A seat a bot plays is never
decided inside another player's write: the bot runner (service/bot_runner.py) decides it
after the commit that leaves it awaited, and writes it here like any player.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from uuid import UUID

import anyio
import msgspec
import structlog

from domain.bots import bot_names
from domain.registry import GAMES
from service import decisions, lifecycle
from service.chain import now_text
from service.clocks import KINDS, POLICIES
from service.current import Current
from service.decisions import Again
from service.errors import STORE_DOWN, Conflict, Forbidden
from service.fold import Fold, ForfeitReason, GameStatus
from service.heartbeat import Heartbeat, Resuming
from service.players import Player
from service.reads import GameReads, visible
from service.records import Recording, keyed_game_id
from service.store import EventStoreApp
from service.writes import Answered, Decided, Writes

log = structlog.get_logger("tabletop.games")


@dataclass(frozen=True)
class MoveAnswer:
    game: str  # the game's type (its name in the registry)
    version: int
    events: list[dict[str, Any]]
    awaiting: list[int]
    status: GameStatus
    # The first answer again, to a retry with the same key (the same answer: not compared).
    replayed: bool = field(default=False, compare=False)
    # The mover's legal moves when the game awaits it again: (how many, the first page).
    legal: tuple[int, list[Any]] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Done:
    """A player's lifecycle request (resign, abort, leave): the game after it, and whether
    it was a retry answered again (its Idempotency-Key's request was carried out before)."""

    fold: Fold
    replayed: bool


LEGAL_PAGE = 1000  # the legal moves a move's answer carries (GET .../legal-moves' default)


class Games:
    def __init__(
        self,
        store: EventStoreApp,
        reads: GameReads | None = None,
        now: Any = now_text,
    ) -> None:
        self.store = store
        self.reads = reads or GameReads(store, Current(store))
        self.current = self.reads.current
        self.writes = Writes(store, self.current, now)
        self.now = now
        self.moves_applied = 0
        # The timekeeper's beat, and this process's hold on timed moves after a gap it may
        # have missed (service/heartbeat.py).
        self.heartbeat = Heartbeat(store)
        self.resuming = Resuming(self.heartbeat, now)
        # Moves being written, by game: when each arrived (a timeout waits for them).
        self._arriving: dict[UUID, list[str]] = {}

    def blocking(self, coroutine: Any) -> Any:
        """Run one of these writes from a thread (see Writes.blocking)."""
        return self.writes.blocking(coroutine)

    # ---- new games and seats -------------------------------------------------------------

    async def create(
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
        undo: bool | None = None,
    ) -> Fold:
        """A new game; `seat` seats its creator in the same save (with `client_seed`). With an
        idempotency `key` it is the game `keyed_game_id` names (409 `game_exists` once it was
        created)."""
        game_id = keyed_game_id(creator.id, key) if key is not None else uuid.uuid4()
        extra: dict[str, Any] = {"rated": True} if rated else {}
        if undo is not None:  # absent: the default (takebacks in casual games only)
            extra["undo"] = undo

        def decide(_: None, at: str) -> Decided:
            rec, seed = decisions.new_game(
                creator, name, seats, options, bots, seat, at, clock, on_timeout, extra,
                client_seed, game_id,
            )  # fmt: skip
            return _decided(rec, lambda: rec.fold, seed)

        exists = Conflict("game_exists", f"the game {game_id} exists already")
        fold: Fold = await self.writes.run(game_id, _new(exists), decide, fresh_first=True)
        log.info("game_created", game_id=str(fold.id), game=name, seats=seats, bots=len(fold.bots))
        return fold

    async def table(
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
        `seated` is (player id, name, bot) per seat; it starts, and the bot runner plays its
        bots. None when that game exists already (another process created it)."""

        def decide(_: None, at: str) -> Decided:
            rec, seed = decisions.table(
                name, seated, options, clock, on_timeout, extra, game_id, at
            )
            return _decided(rec, lambda: rec.fold, seed)

        try:
            fold: Fold = await self.writes.run(game_id, _new(_Exists()), decide, fresh_first=True)
        except _Exists:
            return None
        return fold

    async def join(
        self, player: Player, game_id: UUID, seat: int | None, client_seed: str | None = None
    ) -> Fold:
        def decide(current: tuple[Fold, bytes], at: str) -> Decided:
            fold, seed = current
            rec = Recording.on(fold, max(at, fold.last_at))
            taken = decisions.seating(rec, player, seat, seed, client_seed)
            log.info("seat_taken", game_id=str(game_id), seat=taken, player=player.id)
            return _decided(rec, lambda: rec.fold)

        joined: Fold = await self.writes.run(game_id, self.writes.game(game_id), decide)
        return joined

    # ---- decisions -------------------------------------------------------------------------

    async def move(
        self,
        player: Player,
        game_id: UUID,
        expected_version: int,
        move: Any,
        key: str,
        arrived: str | None = None,
    ) -> MoveAnswer:
        """The player's move at `expected_version`, decided when its request `arrived` (the
        time the player's clock is charged to, and its deadline judged against: the server's
        slowness is not the player's). Answered once its own events are saved."""
        started = time.perf_counter()
        arrived = arrived or self.now()
        if self.resuming.since is not None:  # after a gap: not before the clocks' credit
            fold, _ = await self.writes.game(game_id)(False)  # (404 for no such game)
            if fold.clock is not None:
                await self.resuming.check()

        def decide(current: tuple[Fold, bytes], at: str) -> Decided | Answered:
            fold, seed = current
            made = decisions.move(fold, seed, player, expected_version, move, key, arrived)
            if isinstance(made, Again):
                return Answered(made)
            seat = fold.seat_of(player.id)
            assert seat is not None
            return _decided(made, lambda: self._applied(made, seat, started))

        self._arriving.setdefault(game_id, []).append(arrived)
        try:
            answer = await self.writes.run(game_id, self.writes.game(game_id), decide)
        except STORE_DOWN:
            self.resuming.interrupted()  # the store failed under us: a gap may follow
            raise
        finally:
            waiting = self._arriving[game_id]
            waiting.remove(arrived)
            if not waiting:
                del self._arriving[game_id]
        if isinstance(answer, Again):
            fold = await anyio.to_thread.run_sync(self.reads.get, game_id)
            return await anyio.to_thread.run_sync(self._answer_again, fold, answer)
        assert isinstance(answer, MoveAnswer)
        return answer

    async def bot_move(
        self, game_id: UUID, version: int, seat: int, bot: str, command: Any
    ) -> Fold | None:
        """A bot's decision for `seat`, chosen on the game at `version` (the bot runner's);
        None when someone else decided first."""

        def decide(current: tuple[Fold, bytes], at: str) -> Decided | Answered:
            fold, seed = current
            rec = decisions.bot_move(fold, seed, seat, bot, version, command, at)
            return Answered(None) if rec is None else _decided(rec, lambda: rec.fold)

        fold: Fold | None = await self.writes.run(
            game_id, self.writes.game(game_id), decide, fresh_first=True
        )
        return fold

    # ---- the lifecycle ---------------------------------------------------------------------
    # Each is decided on the fold fresh from the store: a timeout or a resignation must not
    # act on a game this process has not seen the end of.

    async def time_out(self, game_id: UUID) -> Fold | None:
        """(The timekeeper) time out the seat whose deadline passed first, and apply the
        game's policy: it forfeits, or a bot decides for it (the bot runner, next). None
        when none is due now (a move, or another timekeeper, came first)."""

        # A move that arrived in time and is still being written comes first: its player
        # is never timed out for the server's slowness (it is decided as of its arrival).
        def due(fold: Fold, seed: bytes, at: str) -> Recording | None:
            arrived = min(self._arriving.get(game_id, ()), default=None)
            return decisions.timeout(fold, seed, at, arrived_before=arrived)

        return await self._lifecycle(game_id, due)

    async def credit(self, game_id: UUID, gone_since: int) -> Fold | None:
        """(The timekeeper, taking over after a gap) the game's running clocks get back the
        time since `gone_since` (us), the service's last sign of life; None when no clock
        of the game ran then."""
        return await self._lifecycle(game_id, lambda f, s, at: decisions.credit(f, gone_since, at))

    async def resign(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The caller's seat forfeits: it ranks last, and a bot plays it out (a two-seat
        game ends at once). A retry with the same `key` (Idempotency-Key) changes nothing."""
        return await self._asked(game_id, partial(decisions.resign, player=player, key=key))

    async def abort(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The creator cancels a game before any player's decision: no result."""
        return await self._asked(game_id, partial(decisions.abort, player=player, key=key))

    async def leave(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The caller gives up its seat in a game that has not started."""
        return await self._asked(game_id, partial(decisions.leave, player=player, key=key))

    async def _asked(self, game_id: UUID, decide_on: Any) -> Done:
        """A player's lifecycle request: written, or (its key's retry) answered again."""

        def decide(current: tuple[Fold, bytes], at: str) -> Decided | Answered:
            fold, seed = current
            made = decide_on(fold, seed, at=at)
            if isinstance(made, decisions.Repeated):
                return Answered(Done(fold, replayed=True))
            log.info("lifecycle", game_id=str(game_id), first=made.events[0].type,
                     events=len(made.events))  # fmt: skip
            return _decided(made, lambda: Done(made.fold, replayed=False))

        done: Done = await self.writes.run(
            game_id, self.writes.game(game_id), decide, fresh_first=True
        )
        return done

    async def undo(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The caller asks to take back its last decision (docs/undo.md)."""
        return await self._asked(game_id, partial(decisions.undo_request, player=player, key=key))

    async def undo_accept(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The caller accepts the standing takeback request; the last acceptance reverts."""
        answer = partial(decisions.undo_answer, player=player, accept=True, key=key)
        return await self._asked(game_id, answer)

    async def undo_decline(self, player: Player, game_id: UUID, key: str | None = None) -> Done:
        """The caller declines the standing takeback request (its requester withdraws it)."""
        answer = partial(decisions.undo_answer, player=player, accept=False, key=key)
        return await self._asked(game_id, answer)

    async def forfeit(self, game_id: UUID, seat: int, reason: ForfeitReason) -> Fold | None:
        """(A tournament withdrawal) `seat` forfeits its running game; None when the game is
        over or the seat has forfeited already."""
        return await self._lifecycle(
            game_id, lambda f, s, at: decisions.forfeit(f, s, seat, reason, at)
        )

    async def _lifecycle(self, game_id: UUID, decide_on: Any) -> Fold | None:
        def decide(current: tuple[Fold, bytes], at: str) -> Decided | Answered:
            rec: Recording | None = decide_on(*current, at)
            if rec is None:
                return Answered(None)
            log.info("lifecycle", game_id=str(game_id), first=rec.events[0].type,
                     events=len(rec.events))  # fmt: skip
            return _decided(rec, lambda: rec.fold)

        fold: Fold | None = await self.writes.run(
            game_id, self.writes.game(game_id), decide, fresh_first=True
        )
        return fold

    async def rematch(self, player: Player, game_id: UUID) -> Fold:
        """Offer a rematch of a finished game, or accept the one offered: the same game,
        options and clock, each player one seat earlier, bots seated at once; it starts when
        every player has accepted. Returns the new game."""
        old_game = self.writes.game(game_id)

        async def read(fresh: bool) -> tuple[Fold, tuple[Fold, bytes] | None]:
            old, _ = await old_game(True)
            if old.rematch is None:
                return old, None
            return old, await self.writes.game(UUID(old.rematch))(True)

        def decide(current: tuple[Fold, tuple[Fold, bytes] | None], at: str) -> Decided | Answered:
            old, offered = current
            seat = old.seat_of(player.id)
            if seat is None:
                raise Forbidden("not_seated", "only the game's players ask for its rematch")
            if old.result is None:
                raise Conflict("game_not_finished", "only a finished game has a rematch")
            if offered is None:
                rec, seed = decisions.rematch_offer(old, player, seat, at)
                offer = {"game": str(rec.fold.id), "by": seat}
                mark = decisions.rematch_mark(old, decisions.OFFERED, seat, offer, at)
                new, seeds = rec, {rec.fold.id: seed}
            elif seat in old.rematch_accepted:
                return Answered(offered[0])
            else:
                rematch, seed = offered
                new = Recording.on(rematch, max(at, rematch.last_at))
                taking = lifecycle.rematch_seat(seat, old.seats)
                decisions.seating(new, player, taking, seed)
                answer = {"seat": seat, "game": old.rematch}
                mark = decisions.rematch_mark(old, decisions.ACCEPTED, seat, answer, at)
                seeds = {}
            events = [*new.events, *mark.events]
            return Decided(events, lambda: new.fold, (mark.fold, new.fold), seeds)

        fold: Fold = await self.writes.run(game_id, read, decide, fresh_first=True)
        return fold

    # ---- answers ---------------------------------------------------------------------------

    def _applied(self, made: Recording, seat: int, started: float) -> MoveAnswer:
        """A saved move: logged (with how long its write took) and answered with its events
        as the mover sees them."""
        new = made.fold
        self.moves_applied += 1
        ms = round((time.perf_counter() - started) * 1000, 2)
        log.info("move_applied", game_id=str(new.id), version=new.version, seat=seat,
                 events=len(made.events), ms=ms)  # fmt: skip
        events = [visible(new, seat, e) for e in made.events]
        awaiting = new.awaiting()
        legal = GameReads.legal_moves(new, seat, 0, LEGAL_PAGE) if seat in awaiting else None
        return MoveAnswer(new.game.name, new.version, events, awaiting, new.status, legal=legal)

    def _answer_again(self, fold: Fold, again: Again) -> MoveAnswer:
        """A retried request's first answer: the game as it was right after it."""
        batch = again.batch
        then = self.reads.replay(fold, batch.last)
        count = batch.last - batch.first + 1
        events = self.reads.visible_events(fold, again.seat, batch.first - 1, count)
        awaiting = then.awaiting()
        legal = None  # as the first answer, while the game is still where it left it
        if batch.last == fold.version and again.seat in awaiting:
            legal = GameReads.legal_moves(fold, again.seat, 0, LEGAL_PAGE)
        name, status = fold.game.name, then.status
        return MoveAnswer(name, batch.last, events, awaiting, status, replayed=True, legal=legal)


class _Exists(Exception):
    """A tournament's table that another process created first."""


def _new(exists: Exception) -> Any:
    """The `read` of a new game's write: nothing to read; when its save meets a game of the
    same id (a conflict), `exists` is raised instead of deciding again."""
    reads = 0

    async def read(fresh: bool) -> None:
        nonlocal reads
        reads += 1
        if reads > 1:
            raise exists

    return read


def _decided(rec: Recording, answer: Any, seed: bytes | None = None) -> Decided:
    seeds = {rec.fold.id: seed} if seed is not None else {}
    return Decided(list(rec.events), answer, (rec.fold,), seeds)


def game_types() -> list[dict[str, Any]]:
    return [
        {
            "name": g.name,
            "title": g.title,
            "min_players": g.min_players,
            "max_players": g.max_players,
            "options": msgspec.to_builtins(g.options_type()),
            "bots": bot_names(g),
            "clocks": list(KINDS),
            "on_timeout": list(POLICIES),
        }
        for g in GAMES.values()
    ]

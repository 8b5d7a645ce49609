"""Reading games: a game as it stands, its views, legal moves, events and past versions.

Reads wait on the store only when memory cannot answer: a cached fold is shown on the event
loop when it is the store's head (asked on the loop, Postgres), and otherwise caught up from
the store in a worker thread. Everything a seat is shown goes through the game's own view,
redaction and description: never more than the seat may see.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import msgspec

from service import snapshots
from service.current import Current, readable
from service.errors import Unprocessable
from service.fold import SERVICE_EVENTS, Fold
from service.heads import Heads
from service.history import History
from service.lines import service_line
from service.pg_recorder import LockedFunctionRecorder
from service.players import Player
from service.store import EventStoreApp


class GameReads:
    def __init__(
        self, store: EventStoreApp, current: Current, standby: EventStoreApp | None = None
    ) -> None:
        self.store = store
        self.current = current
        self.history = History(store, standby)  # a game's past, from a standby when it can
        pg = isinstance(store.recorder, LockedFunctionRecorder)
        self.heads = Heads(store) if pg else None  # the store's head of a game, on the loop

    def get(self, game_id: UUID) -> Fold:
        """The game as the store holds it now (in a worker thread: it may read the store)."""
        return self.current.fresh(game_id)

    async def current_on_loop(self, game_id: UUID) -> Fold | None:
        """The cached fold, if it is the store's head (asked on the event loop); None when
        the game must be read in a thread (not cached, behind the store, or SQLite, whose
        file another process may write)."""
        fold = self.current.cached(game_id)
        if fold is None or self.heads is None:
            return None
        return fold if await self.heads.version(game_id) == fold.version else None

    def exists(self, game_id: UUID) -> bool:
        return self.current.exists(game_id)

    def in_memory(self, game_id: UUID) -> bool:
        """Whether the game is cached (its head still has to be checked)."""
        return game_id in self.current

    @staticmethod
    def seat_for(fold: Fold, player: Player | None) -> int | None:
        return fold.seat_of(player.id) if player else None

    @staticmethod
    def view(fold: Fold, seat: int | None) -> Any:
        if not fold.started:
            return None
        return msgspec.to_builtins(fold.game.view(fold.state, seat))

    @staticmethod
    def legal_moves(
        fold: Fold, seat: int, offset: int = 0, limit: int | None = None
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
        with readable(fold.id):
            shown = self.history.events(fold.id, fold.version, after, limit)
            return [visible(fold, seat, e) for e in shown]

    def stored(self, game_id: UUID, after: int = 0, limit: int | None = None) -> Iterator[Any]:
        return self.store.events.get(game_id, gt=after or None, limit=limit)

    def replay(self, fold: Fold, version: int) -> Fold:
        """The fold of the first `version` events (1 <= version <= the game's version)."""
        if not 1 <= version <= fold.version:
            raise Unprocessable("invalid_version", f"version must be in 1..{fold.version}")
        if version == fold.version:
            return fold  # the game as it is: nothing to read again
        with readable(fold.id):
            past = snapshots.load(self.store, fold.id, lte=version)
            assert past is not None, "a game's stored events up to its version"
            return past

    def seed_of_finished(self, fold: Fold) -> str | None:
        return self.seed_hex(fold.id) if fold.over else None

    def seed_hex(self, game_id: UUID) -> str:
        """The secret seed: for the finished game's export and for arbiters only."""
        return self.current.seed(game_id).hex()

    async def close(self) -> None:
        if self.heads is not None:
            await self.heads.close()


def visible(fold: Fold, seat: int | None, e: Any) -> dict[str, Any]:
    """An event as `seat` may see it: redacted by the game while it runs."""
    # The data names its type too (a generated client's discriminator of the event's data):
    # a redacted game event's builtins carry it already, as its tag; stored data does not.
    data: dict[str, Any] | None = None
    if e.type in SERVICE_EVENTS:
        text = service_line(e.type, e.data, seat)
    else:
        event = fold.decode(e.type, e.data)
        text = fold.game.describe(event, seat)  # as `seat` saw it while the game ran
        if not fold.over:
            data = msgspec.to_builtins(fold.game.redact(event, seat))
    if data is None:
        data = {"type": e.type, **e.data}
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

"""The quotas a new game or a join must meet before it is written (games with bots per
player, and the open-games cap), and the per-player buckets the quotas use (challenges and
seeks use them too).

The open-games cap is a count (games not over in which the player sits, from the read
model), so it is exact only if a player's admissions do not overlap: `admitted` holds the
player's lock (service/player_locks.py, across processes) from the count until the game
written is in the read model, where the next admission counts it.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from eventsourcing.postgres import PostgresDatastore
from psycopg.rows import tuple_row

from api.bootstrap import Tabletop
from api.guard import slot_given_back
from api.limits import Buckets, refused
from service.loop_writer import own_connection
from service.pg_recorder import LockedFunctionRecorder
from service.player_locks import PlayerLocks
from service.players import Player
from service.settings import Rate
from service.shared_buckets import SharedBuckets
from service.store import read_model_holds_all

ADMIT_WAIT = 30.0  # seconds a request waits for the player's earlier admissions (then 503)
PROJECTED_WAIT = 10.0  # seconds the lock waits for the read model to hold the new game

_LOCKS: weakref.WeakKeyDictionary[Tabletop, PlayerLocks] = weakref.WeakKeyDictionary()
_BUCKETS: weakref.WeakKeyDictionary[Tabletop, dict[str, Buckets | SharedBuckets]] = (
    weakref.WeakKeyDictionary()
)


@asynccontextmanager
async def admitted(t: Tabletop, player: Player, bots: bool) -> AsyncIterator[None]:
    """Around a new game or a join by `player`: its quotas (raises TooMany), then the write
    in the body."""
    limits = t.limits
    bot_games = player_buckets(t, limits.bot_games, "bot_games")
    if bots and bot_games is not None:
        wait = await anyio.to_thread.run_sync(bot_games.take, player.id)
        if wait:
            rate = limits.bot_games
            assert rate is not None
            raise refused(
                "bot_games_limited",
                f"at most {rate.count} games with bots per {rate.seconds:g} s",
                wait,
            )
    if not limits.open_games:
        yield
        return
    async with _locks(t).held(player.id, ADMIT_WAIT, slot_given_back):
        playing = await anyio.to_thread.run_sync(_playing, t, player.id, limits.open_games)
        if playing >= limits.open_games:
            raise refused(
                "too_many_open_games",
                f"you sit in {playing} games that are not over (at most "
                f"{limits.open_games}): finish, resign or leave some first",
                30,
            )
        yield  # the write: when it raises, there is nothing new to wait for
        async with slot_given_back():  # a wait, not work: the loop's slot goes to others
            await anyio.to_thread.run_sync(_projected, t)


def player_buckets(t: Tabletop, rate: Rate | None, kind: str) -> Buckets | SharedBuckets | None:
    """The buckets of a per-player quota: in the database on Postgres, so that a player
    has its rate however many processes serve it (`take` waits on the store then: call it
    in a worker thread); in this process on SQLite, which one process serves."""
    if rate is None:
        return None
    made = _BUCKETS.setdefault(t, {})
    if kind not in made:
        datastore = getattr(t.store.recorder, "datastore", None)
        if isinstance(datastore, PostgresDatastore):
            made[kind] = SharedBuckets(datastore, rate, kind)
        else:
            made[kind] = Buckets(rate)
    return made[kind]


def _locks(t: Tabletop) -> PlayerLocks:
    if t not in _LOCKS:
        recorder = t.store.recorder
        if isinstance(recorder, LockedFunctionRecorder):
            args = own_connection(recorder, row_factory=tuple_row)
            _LOCKS[t] = PlayerLocks(args, f"tabletop/{recorder.datastore.schema}")
        else:  # SQLite: one process serves
            _LOCKS[t] = PlayerLocks(None, "tabletop")
    return _LOCKS[t]


def _playing(t: Tabletop, player_id: str, cap: int) -> int:
    """How many games not over (open or active) `player_id` sits in, counted up to `cap`."""
    return sum(
        len(t.reads.list_games(None, status, player_id, None, cap)) for status in ("open", "active")
    )


def _projected(t: Tabletop) -> None:
    """Wait until the read model holds every event stored so far (the admitted write's
    among them), PROJECTED_WAIT at most: a read model that far behind is reported by
    /metrics, and the cap then counts what it holds."""
    read_model_holds_all(t.store, t.reads.max_tracking_id, PROJECTED_WAIT)

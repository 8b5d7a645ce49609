"""Seeks: "a rated 4-seat Puerto Rico at a day per decision, rating within 200 of mine".
The service seats a table as soon as enough compatible seeks are open, starts its game and
marks each seek matched with the game's id.

Seeks that may share a table (the same game, seats, options, clock, timeout policy and
ratedness) wait in one pool: a stream of hash-chained `seek_pool_*` events whose id
follows from those settings. Every seek's write (its creation, its cancellation, its
match) is a write of its pool through the write driver, so two seeks arriving at once are
decided one after the other, and no seek is ever matched twice. Each seek is a stream of
its own (`seek_created`, then `seek_matched` with the game, or `seek_cancelled`), saved in
the same transaction as its pool's event.

Compatible: each seeker's conservative rating (mu - 3 sigma of the game type, the
leaderboard's ordinal, as the read model has it when the seek is made; 0 for a player with
no rating) lies within every other's range, and no player sits twice. A new seek is
matched with the oldest compatible seeks first. A seek with `fill_with_bots_after_s` is,
once that time has passed on the service's clock with the seek still open, seated with
whichever compatible seeks are open and bots in the other seats: by the timekeeper's tick
(`tick`: the read model lists the open seeks with their fill times, so any process fills
any pool, after a restart too) or by the first read of the seek after that time,
whichever comes first.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, NamedTuple, Protocol
from uuid import UUID

import msgspec
from msgspec import Meta

from domain.bots import BotSpecError, resolve_bot
from domain.registry import get as get_game
from service import clocks
from service.challenge_log import (
    NAMESPACE,
    POOL,
    SEEK,
    Stream,
    found,
    noticed,
    read_stream,
)
from service.clocks import ClockSpec
from service.decisions import table_settings
from service.errors import Conflict, Forbidden, Unprocessable
from service.games import Games
from service.players import Player
from service.records import chained, keyed_game_id, reused
from service.writes import Answered, Decided

# (mu, sigma, rated games) of a game type, or None before any (the read model's rating_of)
RatingOf = Callable[[str, str], tuple[float, float, int] | None]
NEWCOMER = (25.0, 25.0 / 3, 0)
MAX_LISTED = 200


class NewSeek(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A seek: the game you want to play, and with whom."""

    game: Annotated[str, Meta(min_length=1, max_length=64)]  # a `name` of GET /v1/game-types
    seats: Annotated[int, Meta(ge=2, le=16)]  # how many seats the table has, yours included
    # Option name -> value; an option left out takes its default (GET /v1/game-types).
    options: dict[str, Any] = {}
    clock: ClockSpec | None = None  # the game's time control; none: nobody times out
    # What a seat whose time runs out gets (only with a `clock`; `bot:random` by default).
    on_timeout: Literal["bot:random", "bot:greedy", "forfeit"] | None = None
    rated: bool = False  # the game's result moves its players' ratings
    # How far from your conservative rating (mu - 3 sigma, the leaderboard's ordinal; 0
    # with no rated game) the others' may be, either way; null: anyone.
    rating_within: Annotated[float, Meta(ge=0, le=2000)] | None = None
    # Seconds after which the open seats are filled with bots (1 s to 30 days); absent:
    # never, the seek waits for players.
    fill_with_bots_after_s: Annotated[int, Meta(ge=1, le=30 * 86_400)] | None = None
    # The bot that fills seats, one of the game type's `bots` (GET /v1/game-types); checked
    # only with `fill_with_bots_after_s`.
    fill_bot: Annotated[str, Meta(min_length=1, max_length=32)] = "greedy"


class Keyed(NamedTuple):
    """A seek after a request, and whether it was a retry answered again."""

    stream: Stream
    replayed: bool


class Waiting(msgspec.Struct):
    """An open seek in its pool."""

    seek: str
    player: str
    name: str
    ordinal: float
    low: float | None  # the lowest rating this seeker plays with (null: any)
    high: float | None
    fill_at: str | None
    bot: str


def status(stream: Stream) -> str:
    """open | matched | cancelled."""
    last = stream.events[-1][0]
    return "open" if last == "created" else last


def summary(s: Stream) -> dict[str, Any]:
    """The seek as the API shows it (api/challenges.py SeekOut) and the read model lists
    it (projections/competition.py)."""
    c = s.first()
    matched = s.last("matched")
    table: list[str | None] = []
    if matched:
        table = [*matched["players"], *([None] * len(matched["bots"]))]
    return {
        "id": s.id,
        "status": status(s),
        "player": c["player"],
        "game": c["game"],
        "seats": c["seats"],
        "options": c["options"],
        "clock": c["clock"],
        "on_timeout": c["on_timeout"],
        "rated": c["rated"],
        "rating": c["ordinal"],
        "rating_within": c["rating_within"],
        "fill_with_bots_after_s": c["fill_with_bots_after_s"],
        "fill_bot": c["fill_bot"],
        "fill_at": c["fill_at"],
        "created_at": s.created_at,
        "game_id": matched["game"] if matched else None,
        "seat": matched["seat"] if matched else None,
        "table": table,
    }


class Listed(Protocol):
    """The read model's seeks (projections/views.py): a player's, and the pools whose
    earliest open seek's fill time has come."""

    def seeks_of(self, player_id: str, only_open: bool, limit: int) -> list[dict[str, Any]]: ...

    def seek_pools_due(self, until: int, limit: int = 1000) -> list[str]: ...


def waiting(pool: Stream | None) -> list[Waiting]:
    """The pool's open seeks, oldest first."""
    out: dict[str, Waiting] = {}
    for kind, data in pool.events if pool else []:
        if kind == "joined":
            out[data["seek"]] = msgspec.convert(data, Waiting)
        elif kind == "left":
            out.pop(data["seek"], None)
        elif kind == "matched":
            for seek in data["seeks"]:
                out.pop(seek, None)
    return list(out.values())


def _within(w: Waiting, ordinal: float) -> bool:
    return (w.low is None or w.low <= ordinal) and (w.high is None or ordinal <= w.high)


def _fits(a: Waiting, b: Waiting) -> bool:
    return _within(a, b.ordinal) and _within(b, a.ordinal) and a.player != b.player


def table_for(first: Waiting, others: list[Waiting], seats: int) -> list[Waiting]:
    """`first` and the oldest of `others` that fit everyone chosen, up to `seats`."""
    chosen = [first]
    for w in others:
        if len(chosen) == seats:
            break
        if w.seek != first.seek and all(_fits(w, c) for c in chosen):
            chosen.append(w)
    return chosen


class SeekService:
    def __init__(self, games: Games, index: Listed) -> None:
        self.games = games
        self.store = games.store
        self.index = index

    # ---- writes ------------------------------------------------------------------------

    def create(
        self, player: Player, new: NewSeek, ratings: RatingOf, key: str | None = None
    ) -> Keyed:
        config = _config(new)
        pool_id = uuid.uuid5(NAMESPACE, "pool:" + json.dumps(config, sort_keys=True))
        seek_id = keyed_game_id(player.id, "seek:" + key) if key else uuid.uuid4()
        mu, sigma, _ = ratings(new.game, player.id) or NEWCOMER
        ordinal = round(mu - 3 * sigma, 6)
        within = new.rating_within
        low, high = (None, None) if within is None else (ordinal - within, ordinal + within)
        asked = {
            **config,
            "player": player.id,
            "rating_within": new.rating_within,
            "fill_with_bots_after_s": new.fill_with_bots_after_s,
            "fill_bot": new.fill_bot,
        }

        def decide(pool: Stream | None, at: str) -> list[Any]:
            mine = found(self.store, seek_id, SEEK)
            if mine is not None:
                if {k: v for k, v in mine.first().items() if k in asked} != asked:
                    raise reused()
                return []
            if any(w.player == player.id for w in waiting(pool)):
                raise Conflict("seek_exists", "you have an open seek for this table already")
            after = new.fill_with_bots_after_s
            fill_at = None if after is None else clocks.stamp(clocks.micros(at) + after * 10**6)
            created = {"type": "created", **asked, "name": player.name, "pool": str(pool_id),
                       "ordinal": ordinal, "fill_at": fill_at}  # fmt: skip
            entry = Waiting(str(seek_id), player.id, player.name, ordinal,
                            low, high, fill_at, new.fill_bot)  # fmt: skip
            joined = {"type": "joined", **msgspec.to_builtins(entry)}
            opened = [] if pool else [{"type": "created", **config}]
            events: list[Any] = chained(seek_id, None, [created], SEEK, at, key)
            pool_events = [*opened, joined]
            table = table_for(entry, waiting(pool), config["seats"])
            table = [*table[1:], entry]  # seated in the order they sought: the new one last
            if len(table) == config["seats"]:
                pool_events.append(self._matched(table, []))
                events += self._seeks_matched(pool_events[-1], table, at, new_seek=events[0])
            events += chained(pool_id, pool, pool_events, POOL, at, key)
            return events

        written = self._run(pool_id, decide)
        seek = self.get(seek_id)
        return Keyed(seek, replayed=not written)

    def cancel(self, player: Player, seek_id: UUID, key: str | None = None) -> Keyed:
        seek = read_stream(self.store, seek_id, SEEK, "seek_not_found")
        pool_id = UUID(seek.first()["pool"])

        def decide(pool: Stream | None, at: str) -> list[Any]:
            mine = read_stream(self.store, seek_id, SEEK, "seek_not_found")
            asked = mine.keys.get(key) if key is not None else None
            if asked is not None:
                if asked["type"] != "cancelled":
                    raise reused()
                return []
            if mine.first()["player"] != player.id:
                raise Forbidden("not_seeker", "only its seeker cancels a seek")
            if status(mine) == "matched":
                raise Conflict("seek_matched", "the seek is matched: its game has started")
            if status(mine) == "cancelled":
                raise Conflict("seek_cancelled", "the seek is cancelled already")
            out: list[Any] = chained(seek_id, mine, [{"type": "cancelled"}], SEEK, at, key)
            return out + chained(pool_id, pool, [{"type": "left", "seek": str(seek_id)}], POOL, at)

        written = self._run(pool_id, decide)
        return Keyed(read_stream(self.store, seek_id, SEEK, "seek_not_found"), not written)

    def fill(self, pool_id: UUID) -> int:
        """Seat every open seek of the pool whose fill time has come, with compatible open
        seeks and bots; how many tables were made."""

        def decide(pool: Stream | None, at: str) -> list[Any]:
            if pool is None:
                return []
            open_ = waiting(pool)
            seats = pool.first()["seats"]
            now = clocks.micros(at)
            events: list[Any] = []
            pool_events: list[dict[str, Any]] = []
            taken: set[str] = set()
            for w in open_:
                if w.seek in taken or w.fill_at is None or clocks.micros(w.fill_at) > now:
                    continue
                table = table_for(w, [o for o in open_ if o.seek not in taken], seats)
                table.sort(key=open_.index)  # seated in the order they sought
                bots = [w.bot] * (seats - len(table))
                taken |= {t.seek for t in table}
                pool_events.append(self._matched(table, bots))
                events += self._seeks_matched(pool_events[-1], table, at)
            if not pool_events:
                return []
            return events + chained(pool_id, pool, pool_events, POOL, at)

        made = self._run(pool_id, decide)
        return made

    def tick(self) -> int:
        """(The timekeeper) fill the pools whose earliest fill time has come, as the read
        model lists them: whatever process made the seeks, and since whenever. A pool the
        read model still lists after its fill (it trails the log) is decided again on the
        pool as stored, and nothing is written twice."""
        due = self.index.seek_pools_due(clocks.micros(self.games.now()))
        for pool_id in due:
            self.fill(UUID(pool_id))
        return len(due)

    def made_with(self, player: Player, key: str) -> bool:
        """Whether `key` made a seek of `player`'s already (a retry: not charged against the
        limit, so checked before the create)."""
        return found(self.store, keyed_game_id(player.id, "seek:" + key), SEEK) is not None

    # ---- reads -------------------------------------------------------------------------

    def get(self, seek_id: UUID) -> Stream:
        """The seek now: filled first when its fill time has passed, its game made if a
        crash kept it from being made after the match."""
        seek = read_stream(self.store, seek_id, SEEK, "seek_not_found")
        fill_at = seek.first().get("fill_at")
        due = fill_at and clocks.micros(fill_at) <= clocks.micros(self.games.now())
        if status(seek) == "open" and due:
            self.fill(UUID(seek.first()["pool"]))
            seek = read_stream(self.store, seek_id, SEEK, "seek_not_found")
        matched = seek.last("matched")
        if matched is not None:
            self._start(UUID(seek.first()["pool"]), matched)
        return seek

    def list_for(self, player: Player, only_open: bool) -> list[dict[str, Any]]:
        """The player's seeks (the open ones with `only_open`), newest first (summaries).
        From the read model, so the list trails the log like every list (docs/api.md); but
        a row still open there after its fill time is read from the store (`get`, which
        fills it then), as a read of the seek would be."""
        out = []
        now = clocks.micros(self.games.now())
        for row in self.index.seeks_of(player.id, only_open, MAX_LISTED):
            fill_at = row["fill_at"]
            if row["status"] == "open" and fill_at and clocks.micros(fill_at) <= now:
                row = summary(self.get(UUID(row["id"])))
                if only_open and row["status"] != "open":
                    continue
            out.append(row)
        return out

    # ---- inside ------------------------------------------------------------------------

    def _matched(self, table: list[Waiting], bots: list[str]) -> dict[str, Any]:
        return {
            "type": "matched",
            "seeks": [w.seek for w in table],
            "players": [w.player for w in table],
            "names": [w.name for w in table],
            "bots": bots,
            "game": str(uuid.uuid4()),
        }

    def _seeks_matched(
        self, matched: dict[str, Any], table: list[Waiting], at: str, new_seek: Any = None
    ) -> list[Any]:
        """Each seek's `matched` event (chained after its stream as stored, or after
        `new_seek`, the seek created in this very write) and its seeker's notice."""
        out: list[Any] = []
        for seat, w in enumerate(table):
            seek_id = UUID(w.seek)
            if new_seek is not None and new_seek.originator_id == seek_id:
                after = Stream([], 1, new_seek.hash, new_seek.at, new_seek.at, {})
            else:
                after = read_stream(self.store, seek_id, SEEK, "seek_not_found")
            event = {"type": "matched", "game": matched["game"], "seat": seat,
                     "players": matched["players"], "bots": matched["bots"]}  # fmt: skip
            out += chained(seek_id, after, [event], SEEK, at)
            about = {"seek": w.seek, "game": matched["game"], "seat": seat}
            out.append(noticed(w.player, "seek_matched", seek_id, about))
        return out

    def _start(self, pool_id: UUID, matched: dict[str, Any]) -> None:
        """A matched table's game, unless it exists already."""
        game_id = UUID(matched["game"])
        if self.games.reads.exists(game_id):
            return
        pool = read_stream(self.store, pool_id, POOL, "seek_not_found")
        c = pool.first()
        seated: list[tuple[str | None, str, str | None]] = [
            (p, n, None) for p, n in zip(matched["players"], matched["names"], strict=True)
        ]
        seated += [(None, f"{b} bot", b) for b in matched["bots"]]
        self.games.blocking(
            self.games.table(
                c["game"], seated, c["options"], c["clock"], c["on_timeout"],
                {"rated": c["rated"]}, game_id,
            )
        )  # fmt: skip

    def _run(self, pool_id: UUID, decide: Callable[[Stream | None, str], list[Any]]) -> int:
        """One write of the pool (and the seeks it touches) through the write driver,
        decided in a worker thread on the pool as stored; then the games of the tables it
        matched. How many tables... or events: how many events were saved."""
        made: list[dict[str, Any]] = []

        async def read(fresh: bool) -> Stream | None:
            return await self.games.writes.in_thread(found, self.store, pool_id, POOL)

        def decided(pool: Stream | None, at: str) -> Decided | Answered:
            events = decide(pool, at)
            if not events:
                return Answered(0)
            made[:] = [e.data for e in events if getattr(e, "type", "") == POOL + "matched"]
            last = max(e.originator_version for e in events if e.originator_id == pool_id)
            return Decided(events, lambda: len(events), streams=((pool_id, last),))

        run = self.games.writes.run(pool_id, read, decided, fresh_first=True, decide_in_thread=True)
        written: int = self.games.blocking(run)
        for matched in made if written else []:
            self._start(pool_id, matched)
        return written


def _config(new: NewSeek) -> dict[str, Any]:
    """The table's settings as its pool is keyed (422 with a stable code otherwise)."""
    game = get_game(new.game)
    if game is None:
        raise Unprocessable("unknown_game", f"no game named {new.game!r}")
    if not game.min_players <= new.seats <= game.max_players:
        raise Unprocessable(
            "invalid_seats", f"{new.game} seats {game.min_players}-{game.max_players} players"
        )
    options, clock, policy = table_settings(game, new.options, new.seats, new.clock,
                                            new.on_timeout)  # fmt: skip
    if new.fill_with_bots_after_s is not None:  # (a seek that waits for people needs none)
        try:
            resolve_bot(game, new.fill_bot)
        except BotSpecError as error:
            raise Unprocessable(error.code, error.message) from None
    return {
        "game": new.game,
        "seats": new.seats,
        "options": options,
        "clock": clock,
        "on_timeout": policy,
        "rated": new.rated,
    }

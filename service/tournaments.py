"""Tournaments as event-sourced aggregates: each its own stream of hash-chained events in
the store, beside the games (`tournament_*` types), decided by the pure functions of
`domain.tournaments`.

Players register (the organiser may register bots), withdraw, and the organiser starts it.
Registration may be conditional (`entry`: a least number of rated games of the game type,
a range of the conservative rating, mu - 3 sigma, as the read model has them); bots the
organiser registers are exempt, since the organiser who set the conditions chose them.
A round's tables become games in the same save as the `round_started` event, so a round
is never half created. The director (`advance`, run by the timekeeper every tick for each
running tournament, and each open one with a `starts_at`) starts a scheduled tournament at
its time (or cancels it, with too few entrants), records each table's result once its game
has finished, withdraws an entrant who forfeited two games in a row, forfeits the running
games of entrants who withdrew, and when a round is complete starts the next one or
finishes the tournament. Every write goes through the stream's expected version, so two
directors never record a result twice. Every tournament game is rated and has a clock (a
day per decision unless the tournament says otherwise) and a timeout policy (`forfeit`
unless it says otherwise), so a round always ends. docs/tournaments.md says it for players.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, Any, NamedTuple
from uuid import UUID

import msgspec
import structlog
from msgspec import Meta

from domain.bots import BotSpecError, resolve_bot
from domain.contract import RuleError
from domain.options import parse_options
from domain.registry import get as get_game
from domain.tournaments import arena, pairing
from domain.tournaments.standings import RULESET, default_points, standings
from domain.tournaments.state import FORMATS, Tournament, evolve
from service import clocks
from service.errors import Conflict, Forbidden, NotFound, Unprocessable
from service.games import Games
from service.players import Player
from service.records import chained, keyed_game_id, reused
from service.store import EventStoreApp
from service.tournament_log import PREFIX, Folded, read_tournament
from service.writes import Answered, Decided

log = structlog.get_logger("tabletop.tournaments")

DEFAULT_CLOCK = {"kind": "deadline", "per_decision_s": 86400}
DEFAULT_POLICY = "forfeit"
MAX_ROUNDS = 50
MAX_ENTRANTS = 1024
MAX_PASSES = 200  # director passes per call: far more than any tournament's rounds
MAX_AHEAD = timedelta(days=366)  # how far ahead a start may be scheduled
MIN_ARENA_S, MAX_ARENA_S = 60, 7 * 86400  # an arena's duration
QUIET_S = 120  # an arena's quiet end by default (at most a quarter of its duration)


# What registration reads of a player's rating: (mu, sigma, rated games) of a game type, or
# None before any rated game (the read model's `rating_of(game, participant)`).
RatingOf = Callable[[str, str], tuple[float, float, int] | None]
NEWCOMER = (25.0, 25.0 / 3, 0)  # OpenSkill's first rating: what the leaderboard starts from
Ordinal = Annotated[float, Meta(ge=-1000.0, le=1000.0)]


class EntryConditions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Who may register (players; the organiser's bots are exempt), on their rating of the
    tournament's game type as the leaderboard has it (it trails the games by the projection
    lag): 422 `entry_condition.min_rated_games` or `entry_condition.rating_range` otherwise."""

    # The least number of rated games of the game type a player must have finished.
    min_rated_games: Annotated[int, Meta(ge=0, le=100_000)] = 0
    # The lowest conservative rating (mu - 3 sigma, the leaderboard's `ordinal`) admitted;
    # a player with no rated game has 0 (mu 25, sigma 25/3). Null: no lower bound.
    min_rating: Ordinal | None = None
    # The highest conservative rating admitted. Null: no upper bound.
    max_rating: Ordinal | None = None


class NewTournament(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A tournament to create: its game, format, tables, points, and its games' clock."""

    game: Annotated[str, Meta(min_length=1, max_length=64)]  # a `name` of GET /v1/game-types
    format: Annotated[str, Meta(max_length=32)]  # swiss | round-robin | knockout
    # Seats per table: within the game type's min_players..max_players (422
    # `invalid_table_size`); smaller tables seat an uneven number of entrants.
    table_size: int
    rounds: int = 0  # swiss and round-robin (1-50); knockout plays until its final
    # The games' options (GET /v1/game-types), which must suit every table size from the
    # game's min_players to `table_size`.
    options: dict[str, Any] = {}
    # Its games' time control, {"kind": "fischer", "initial_s", "increment_s"} or {"kind":
    # "deadline", "per_decision_s"} (seconds); default: a day per decision.
    clock: dict[str, Any] | None = None
    # What a seat whose time runs out gets: `bot:random`, `bot:greedy` or `forfeit` (default).
    on_timeout: str | None = None
    # Points per rank, first to last, never increasing, one per seat of `table_size`;
    # default 2 per place beaten (6/4/2/0 for four seats).
    points: Annotated[list[float], Meta(max_length=16)] | None = None
    # knockout: how many of each table go on (below `table_size`); default half a table.
    advance: int | None = None
    # Its name in lists; empty: the game's title and the format (`Puerto Rico swiss`).
    name: Annotated[str, Meta(max_length=100)] = ""
    # When it starts by itself (ISO 8601 in UTC, `2026-05-01T18:00:00Z`; in the future, at
    # most a year ahead): with enough entrants for a table it starts then, else it is
    # cancelled. Null: the organiser starts it (who still may before this time).
    starts_at: Annotated[str, Meta(max_length=40)] | None = None
    # Who may register: a least number of rated games, a rating range. Null: anyone.
    entry: EntryConditions | None = None
    # arena: how long it runs, in seconds from its start (60 to a week).
    duration_s: Annotated[int, Meta(ge=MIN_ARENA_S, le=MAX_ARENA_S)] | None = None
    # arena: no table forms in its last `quiet_s` seconds, so that games end in time;
    # default a quarter of the duration, at most 120 s.
    quiet_s: Annotated[int, Meta(ge=0, le=MAX_ARENA_S)] | None = None


class Keyed(NamedTuple):
    """A player's tournament request: the tournament after it, and whether it was a retry
    answered again (its Idempotency-Key's request was carried out before)."""

    folded: Folded
    replayed: bool


class TournamentService:
    def __init__(self, store: EventStoreApp, games: Games) -> None:
        self.store = store
        self.games = games

    # ---- the organiser's and the players' writes ---------------------------------------

    def create(self, organiser: Player, new: NewTournament, key: str | None = None) -> Keyed:
        """A new tournament; with `key`, its id is the player's and the key's, so a retry
        finds it (and is answered with it) and another request with the key is refused."""
        config = _config(new)
        event = {"type": "created", "config": config, "organiser": organiser.id}
        if key is None:
            self._check_schedule(config)
            tournament_id = uuid.uuid4()
            self._run(tournament_id, lambda _: [event], new=True)
            return Keyed(self.get(tournament_id), replayed=False)
        tournament_id = keyed_game_id(organiser.id, "tournament:" + key)

        def asked(created: dict[str, Any] | None) -> Any:  # the request, its random seed aside
            config = (created or {}).get("config") or {}
            return {k: v for k, v in config.items() if k != "seed"}

        def decide(t: Folded | None) -> list[dict[str, Any]]:
            if t is None:  # (a retry after the start time finds its tournament: no check)
                self._check_schedule(config)
                return [event]
            stored = t.keys.get(key)
            if (asked(stored), t.organiser) != (asked(event), organiser.id):
                raise reused()
            return []

        written = self._run(tournament_id, decide, new=True, key=key)
        return Keyed(self.get(tournament_id), replayed=not written)

    def register(
        self,
        player: Player,
        tournament_id: UUID,
        bot: str | None,
        key: str | None = None,
        ratings: RatingOf | None = None,
    ) -> Keyed:
        """`player` registers, or (the organiser) registers `bot`. `ratings` reads a
        player's rating for the entry conditions (the read model's `rating_of`); needed
        when the tournament has any."""

        def again(asked: dict[str, Any], t: Folded) -> bool:
            if asked["type"] != "registered" or asked.get("bot") != bot:
                return False
            return asked["entrant"] == player.id if bot is None else player.id == t.organiser

        def decide(t: Folded) -> list[dict[str, Any]]:
            state: Tournament = t.state
            _still_open(state, "registration is closed: it has started")
            if len(state.entrants) >= MAX_ENTRANTS:
                raise Conflict("tournament_full", f"at most {MAX_ENTRANTS} entrants")
            if bot is not None:
                if player.id != t.organiser:
                    raise Forbidden("not_organiser", "only the organiser registers bots")
                game = get_game(state.config["game"])
                assert game is not None
                try:
                    resolve_bot(game, bot)
                except BotSpecError as error:
                    raise Unprocessable(error.code, error.message) from None
                number = state.registrations + 1  # never reused, even after a withdrawal
                entrant, name = f"bot:{bot}:{number}", f"{bot} bot {number}"
            else:
                if player.id in state.entrants:
                    raise Conflict("already_registered", "you are registered already")
                _admit(state, player.id, ratings)
                entrant, name = player.id, player.name
            return [{"type": "registered", "entrant": entrant, "name": name, "bot": bot}]

        return self._write(tournament_id, decide, key=key, again=again)

    def withdraw(
        self, player: Player, tournament_id: UUID, entrant: str | None, key: str | None = None
    ) -> Keyed:
        """An entrant leaves (the organiser may withdraw anyone); a running game of theirs
        is forfeited by the director at its next tick (at once here too)."""
        who = entrant or player.id

        def again(asked: dict[str, Any], t: Folded) -> bool:
            allowed = player.id in (who, t.organiser)
            return asked["type"] == "withdrawn" and asked["entrant"] == who and allowed

        def decide(t: Folded) -> list[dict[str, Any]]:
            state: Tournament = t.state
            if who != player.id and player.id != t.organiser:
                raise Forbidden("not_organiser", "only the organiser withdraws others")
            if who not in state.entrants or who in state.withdrawn:
                raise Conflict("not_registered", f"{who} is not playing in this tournament")
            if state.status == "finished":
                raise Conflict("tournament_finished", "the tournament is over")
            if state.status == "cancelled":
                raise Conflict("tournament_cancelled", "the tournament was cancelled")
            reason = "requested" if who == player.id else "organiser"
            return [{"type": "withdrawn", "entrant": who, "reason": reason}]

        done = self._write(tournament_id, decide, key=key, again=again)
        self._forfeit_withdrawn(done.folded)
        return done

    def start(self, player: Player, tournament_id: UUID, key: str | None = None) -> Keyed:
        def again(asked: dict[str, Any], t: Folded) -> bool:
            return asked["type"] == "started" and player.id == t.organiser

        def decide(t: Folded) -> list[dict[str, Any]]:
            state: Tournament = t.state
            if player.id != t.organiser:
                raise Forbidden("not_organiser", "only the organiser starts the tournament")
            _still_open(state, "the tournament has started already")
            least = _least(state)
            if len(state.active) < least:
                raise Unprocessable(
                    "too_few_players", f"{len(state.active)} registered; {least} are needed"
                )
            return [self._started(state)]

        done = self._write(tournament_id, decide, first_round=True, key=key, again=again)
        return Keyed(self.advance(tournament_id), done.replayed)

    # ---- the director ------------------------------------------------------------------

    def advance(self, tournament_id: UUID) -> Folded:
        """Create the current round's games that do not exist yet, record finished tables,
        then start the next round or finish: as far as the games allow now. Safe to call
        any time, from any process: every write goes through the stream's version."""
        for _ in range(MAX_PASSES):  # each pass records a round's results or starts one
            t = self.get(tournament_id)
            self._create_games(t.state)
            self._forfeit_withdrawn(t)
            written = self._run(tournament_id, lambda t: self._next_events(t.state))
            if not written:
                return self.get(tournament_id)
            log.info("tournament_advanced", tournament=str(tournament_id), events=written)
        return self.get(tournament_id)

    def _next_events(self, state: Tournament) -> list[dict[str, Any]]:
        """An open tournament's scheduled start (or cancellation); a running one's finished
        tables' results and the withdrawals they cause, then the next round (its games' ids
        chosen here, the games created right after: see `_create_games`) or the end."""
        if state.status == "open":
            return self._scheduled(state)
        if state.status != "running":
            return []
        events: list[dict[str, Any]] = []
        if state.rounds:
            current = state.rounds[-1]
            ends = state.ends_at  # an arena counts only the games finished by its end
            for table in current.tables:
                if table.ranks is None:
                    done = self._result(current.number, table.table, UUID(table.game), ends)
                    if done is not None:
                        events.append(done)
        for event in events:
            state = evolve(state, str(state.id), event)
        for entrant in pairing.forfeited_twice(state):  # idle: paired (and forfeiting) no more
            withdrawn = {"type": "withdrawn", "entrant": entrant, "reason": "forfeited_twice"}
            state = evolve(state, str(state.id), withdrawn)
            events.append(withdrawn)
        if state.config["format"] == "arena":
            return [*events, *self._arena(state)]
        if state.rounds and not state.rounds[-1].complete:
            return events
        low, high = _game_range(state)
        if state.rounds and pairing.over(state, low):
            return [*events, {"type": "finished", "standings": standings(state)}]
        tables, byes = pairing.next_round(state, low, min(high, state.table_size))
        listed = [
            {"table": i, "seats": seats, "game": str(uuid.uuid4())}
            for i, seats in enumerate(tables)
        ]
        number = len(state.rounds) + 1
        return [*events, {"type": "round_started", "round": number, "tables": listed,
                          "byes": byes}]  # fmt: skip

    def _scheduled(self, state: Tournament) -> list[dict[str, Any]]:
        """Once its `starts_at` has come (by the service's clock): the start and the first
        round with enough entrants for a table, else the cancellation."""
        starts_at = state.config.get("starts_at")
        if starts_at is None or clocks.micros(self.games.now()) < clocks.micros(starts_at):
            return []
        least = _least(state)
        if len(state.active) < least:
            entrants = len(state.active)
            return [{"type": "cancelled", "reason": "too_few_players", "entrants": entrants,
                     "needed": least}]  # fmt: skip
        started = self._started(state) | {"scheduled": True}
        state = evolve(state, str(state.id), started)
        return [started, *self._next_events(state)]

    def _started(self, state: Tournament) -> dict[str, Any]:
        """The start; an arena's says when it ends (by the service's clock: its duration
        from now)."""
        duration = state.config.get("duration_s")
        if state.config["format"] != "arena" or duration is None:
            return {"type": "started"}
        ends = clocks.micros(self.games.now()) + int(duration) * 1_000_000
        return {"type": "started", "ends_at": clocks.stamp(ends)}

    def _arena(self, state: Tournament) -> list[dict[str, Any]]:
        """A running arena's next events: at its end, the finish (games still running do
        not count); before its quiet end, the tables the pool forms now
        (domain/tournaments/arena.py), the first ones as its one round."""
        assert state.ends_at is not None
        now, ends = clocks.micros(self.games.now()), clocks.micros(state.ends_at)
        if now >= ends:
            running = [t.game for t in arena.tables(state) if t.ranks is None]
            return [{"type": "finished", "standings": standings(state), "uncounted": running}]
        if now >= ends - int(state.config["quiet_s"]) * 1_000_000:
            return []
        formed = pairing.seated(state, arena.pair(state))
        if not formed:
            return []
        first = len(arena.tables(state))
        listed = [
            {"table": first + i, "seats": seats, "game": str(uuid.uuid4())}
            for i, seats in enumerate(formed)
        ]
        if not state.rounds:
            return [{"type": "round_started", "round": 1, "tables": listed, "byes": []}]
        return [{"type": "tables_added", "round": 1, "tables": listed}]

    def _check_schedule(self, config: dict[str, Any]) -> None:
        """A new tournament's `starts_at` is ahead, by the service's clock (422 otherwise)."""
        starts_at = config.get("starts_at")
        if starts_at is None:
            return
        now = clocks.micros(self.games.now())
        ahead = clocks.micros(starts_at) - now
        if not 0 < ahead <= MAX_AHEAD // timedelta(microseconds=1):
            raise Unprocessable(
                "invalid_starts_at", f"starts_at must be after now and at most {MAX_AHEAD.days} "
                f"days ahead (now: {clocks.stamp(now)})",
            )  # fmt: skip

    def _create_games(self, state: Tournament) -> None:
        """The current round's games that do not exist yet (a round is saved first, its
        games after it, each in a write of its own: one that failed is made next time)."""
        if state.status != "running" or not state.rounds:
            return
        number = state.rounds[-1].number
        for table in state.rounds[-1].tables:
            game_id = UUID(table.game)
            if table.ranks is None and not self.games.reads.exists(game_id):
                self._table_game(state, number, table.table, table.seats, game_id)

    def _result(
        self, number: int, table: int, game_id: UUID, by: str | None = None
    ) -> dict[str, Any] | None:
        """The table's result once its game has finished (by `by`, when given: a game that
        finished after an arena's end stays uncounted, however late the director looks)."""
        try:
            fold = self.games.reads.get(game_id)
        except NotFound:  # not made yet: `_create_games` makes it
            return None
        if fold.result is None:
            return None
        finished = fold.finished_at or fold.last_at
        if by is not None and clocks.micros(finished) > clocks.micros(by):
            return None
        return {
            "type": "table_finished",
            "round": number,
            "table": table,
            "game": str(game_id),
            "ranks": list(fold.result.ranks),
            "scores": list(fold.result.scores),
            "forfeited": sorted(fold.forfeited),
        }

    def _table_game(
        self, state: Tournament, number: int, table: int, seats: list[str], game_id: UUID
    ) -> None:
        config = state.config
        seated: list[tuple[str | None, str, str | None]] = []
        for entrant in seats:
            bot = state.entrants[entrant].get("bot")
            name = state.entrants[entrant]["name"]
            seated.append((None, name, bot) if bot else (entrant, name, None))
        extra = {"rated": True, "tournament": str(state.id), "round": number, "table": table}
        self.games.blocking(
            self.games.table(
                config["game"], seated, config["options"], config["clock"], config["on_timeout"],
                extra, game_id,
            )
        )  # fmt: skip

    def _forfeit_withdrawn(self, t: Folded) -> None:
        state: Tournament = t.state
        if state.status != "running" or not state.rounds or not state.withdrawn:
            return
        for table in state.rounds[-1].tables:
            for seat, entrant in enumerate(table.seats):
                if entrant in state.withdrawn and table.ranks is None:
                    self.games.blocking(self.games.forfeit(UUID(table.game), seat, "withdrawn"))

    # ---- reads and the stream ----------------------------------------------------------

    def get(self, tournament_id: UUID) -> Folded:
        return read_tournament(self.store, tournament_id)

    def _found(self, tournament_id: UUID) -> Folded | None:
        try:
            return self.get(tournament_id)
        except NotFound:
            return None

    def _write(
        self,
        tournament_id: UUID,
        decide: Callable[[Folded], list[dict[str, Any]]],
        first_round: bool = False,
        key: str | None = None,
        again: Callable[[dict[str, Any], Folded], bool] | None = None,
    ) -> Keyed:
        """Save what `decide` makes of the tournament now (with `first_round`, the first
        round's tables in the same save), keyed `key`: a request whose key the stream
        holds already is a retry when `again` says it asked the same (nothing is written:
        answered again), else refused."""

        def events(t: Folded) -> list[dict[str, Any]]:
            asked = t.keys.get(key) if key is not None else None
            if asked is not None:
                if again is None or not again(asked, t):
                    raise reused()
                return []
            made = decide(t)
            if first_round:
                state = t.state
                for event in made:
                    state = evolve(state, str(state.id), event)
                made += self._next_events(state)
            return made

        written = self._run(tournament_id, events, key=key)
        return Keyed(self.get(tournament_id), replayed=not written)

    def _run(
        self,
        tournament_id: UUID,
        decide: Callable[[Folded], list[dict[str, Any]]],
        new: bool = False,
        key: str | None = None,
    ) -> int:
        """One write of the tournament's stream through the write driver: `decide` on its
        state as stored (in a worker thread: the director's decisions read its games);
        how many events were saved."""

        async def read(fresh: bool) -> Folded | None:
            if new and (key is None or not fresh):  # a keyed create may find its retry's
                return None
            if new:
                return await self.games.writes.in_thread(self._found, tournament_id)
            return await self.games.writes.in_thread(self.get, tournament_id)

        def decided(t: Folded | None, at: str) -> Decided | Answered:
            made = decide(t) if t is not None else decide(None)  # type: ignore[arg-type]
            if not made:
                return Answered(0)
            out = chained(tournament_id, t, made, PREFIX, at, key)
            last = out[-1].originator_version
            return Decided(out, lambda: len(out), streams=((tournament_id, last),))

        run = self.games.writes.run(
            tournament_id, read, decided, fresh_first=True, decide_in_thread=True
        )
        written: int = self.games.blocking(run)
        return written


def _arena_times(new: NewTournament) -> dict[str, int]:
    """An arena's `duration_s` and `quiet_s` (422 `invalid_duration` without a duration, or
    with a quiet end as long as it); nothing for the other formats, which refuse them."""
    if new.format != "arena":
        if new.duration_s is not None or new.quiet_s is not None:
            raise Unprocessable("invalid_duration", "duration_s and quiet_s are an arena's")
        return {}
    if new.duration_s is None:
        raise Unprocessable("invalid_duration", "an arena needs duration_s (seconds)")
    quiet = new.quiet_s if new.quiet_s is not None else min(QUIET_S, new.duration_s // 4)
    if quiet >= new.duration_s:
        raise Unprocessable("invalid_duration", "quiet_s must be shorter than duration_s")
    return {"duration_s": new.duration_s, "quiet_s": quiet}


def _game_range(state: Tournament) -> tuple[int, int]:
    game = get_game(state.config["game"])
    assert game is not None
    return game.min_players, game.max_players


def _least(state: Tournament) -> int:
    """How many active entrants a start needs: a full table, and the game's minimum."""
    return max(state.table_size, _game_range(state)[0])


def _still_open(state: Tournament, started: str) -> None:
    """409 unless the tournament is open: `tournament_started` (saying `started`),
    `tournament_finished` or `tournament_cancelled`."""
    if state.status == "finished":
        raise Conflict("tournament_finished", "the tournament is over")
    if state.status == "cancelled":
        reason = state.cancelled_reason or "cancelled"
        raise Conflict("tournament_cancelled", f"the tournament was cancelled ({reason})")
    if state.status != "open":
        raise Conflict("tournament_started", started)


def _admit(state: Tournament, player_id: str, ratings: RatingOf | None) -> None:
    """The tournament's entry conditions, on the player's rating of its game type (422
    `entry_condition.*` naming the one not met)."""
    entry = state.config.get("entry")
    if not entry:
        return
    if ratings is None:
        raise RuntimeError("a tournament with entry conditions needs the ratings to register")
    game = state.config["game"]
    mu, sigma, rated = ratings(game, player_id) or NEWCOMER
    if rated < entry["min_rated_games"]:
        raise Unprocessable(
            "entry_condition.min_rated_games",
            f"{entry['min_rated_games']} rated games of {game} are needed; you have {rated}",
        )
    ordinal = round(mu - 3 * sigma, 6)
    low, high = entry["min_rating"], entry["max_rating"]
    if (low is not None and ordinal < low) or (high is not None and ordinal > high):
        admitted = f"{'-inf' if low is None else low} to {'inf' if high is None else high}"
        raise Unprocessable(
            "entry_condition.rating_range",
            f"your rating (mu - 3 sigma) of {game} is {ordinal:.2f}; {admitted} may enter",
        )


def _starts_at(text: str) -> str:
    """An ISO 8601 time in UTC as the service stamps times (422 `invalid_starts_at`)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.utcoffset() != timedelta(0):
        raise Unprocessable(
            "invalid_starts_at", "starts_at: an ISO 8601 time in UTC, `2026-05-01T18:00:00Z`"
        )
    return clocks.stamp(clocks.micros(moment.isoformat()))


def _entry(entry: EntryConditions | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    low, high = entry.min_rating, entry.max_rating
    if low is not None and high is not None and low > high:
        raise Unprocessable("invalid_entry_conditions", "min_rating is above max_rating")
    return msgspec.to_builtins(entry)  # type: ignore[no-any-return]


def _config(new: NewTournament) -> dict[str, Any]:
    """The tournament's settings as stored, or 422 with a stable code."""
    game = get_game(new.game)
    if game is None:
        raise Unprocessable("unknown_game", f"no game named {new.game!r}")
    if new.format not in FORMATS:
        raise Unprocessable("invalid_format", f"format must be one of {', '.join(FORMATS)}")
    if not game.min_players <= new.table_size <= game.max_players:
        raise Unprocessable(
            "invalid_table_size",
            f"{new.game} tables seat {game.min_players}-{game.max_players} players",
        )
    if new.format not in ("knockout", "arena") and not 1 <= new.rounds <= MAX_ROUNDS:
        raise Unprocessable("invalid_rounds", f"rounds must be in 1..{MAX_ROUNDS}")
    points = new.points or default_points(new.table_size)
    if len(points) != new.table_size or sorted(points, reverse=True) != list(points):
        raise Unprocessable(
            "invalid_points", "points: one per rank, from first to last, never increasing"
        )
    advance = new.advance or max(1, new.table_size // 2)
    if new.format == "knockout" and not 1 <= advance < new.table_size:
        raise Unprocessable("invalid_advance", "advance must be below the table size")
    try:  # every table the tournament may seat: smaller ones seat the uneven numbers
        for size in range(game.min_players, new.table_size + 1):
            parsed = parse_options(game, new.options, size)
        options = msgspec.to_builtins(parsed)
    except RuleError as error:
        detail = f"{error.message} (the options must suit every table size, "
        detail += f"{game.min_players}-{new.table_size})"
        raise Unprocessable(error.code, detail) from None
    clock, policy = clocks.parse(new.clock or DEFAULT_CLOCK, new.on_timeout or DEFAULT_POLICY)
    arena_times = _arena_times(new)
    return {
        "name": new.name or f"{game.title} {new.format}",
        "game": new.game,
        "format": new.format,
        "table_size": new.table_size,
        "rounds": new.rounds,
        "options": options,
        "clock": clock,
        "on_timeout": policy,
        "points": [float(p) for p in points],
        "advance": advance,
        "starts_at": None if new.starts_at is None else _starts_at(new.starts_at),
        "entry": _entry(new.entry),
        "ruleset": RULESET,  # its standings' rules (domain/tournaments/standings.py)
        **arena_times,
        "seed": secrets.token_hex(16),  # pairings are public: the seed is too
    }

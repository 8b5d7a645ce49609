"""What each kind of game write decides, as functions of the game as the write found it.

Every write of a game is one of these: a new game (`new_game`, `table`), a seat taken
(`seating`), a move (`move`), a bot's decision (`bot_move`), a timeout (`timeout`), a
resignation, an abort, a seat left, a forfeit, a rematch offered or accepted (`rematch`).
Each takes the current fold, the game's seed and the time the decision is made (`at`), and
returns `Decided` (the events to save, the folds they make, the answer) or `Answered`
(nothing to save), or raises the refusal (service/errors.py). None does I/O: the write
driver (service/writes.py) reads the fold, runs the decision, saves and retries.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import msgspec
import structlog

from domain.bots import BotSpecError, resolve_bot
from domain.contract import Game, RuleError, SeatInfo
from domain.options import parse_options
from domain.randomness import commitment, rng_for
from domain.refusals import field_at
from domain.registry import get as get_game
from service import clocks, lifecycle, undo
from service.chain import GENESIS, RANDOMNESS
from service.errors import Conflict, Forbidden, Problem, Unprocessable
from service.fold import (
    CLOCK_CREDIT,
    GAME_ABORTED,
    GAME_CREATED,
    RANDOMNESS_FIXED,
    REMATCH_ACCEPTED,
    REMATCH_OFFERED,
    SEAT_FORFEITED,
    SEAT_LEFT,
    SEAT_TAKEN,
    SYSTEM,
    TIMED_OUT,
    Batch,
    Fold,
    ForfeitReason,
    new_fold,
)
from service.players import Player
from service.records import Note, Recording, kept_seed, recorded, reused, server_client_seed
from service.undo import REVERTED, UNDO_ACCEPTED, UNDO_DECLINED, UNDO_REQUESTED

log = structlog.get_logger("tabletop.games")


@dataclass(frozen=True)
class Again:
    """A retry of an applied move (same seat, key, move and expected version)."""

    seat: int
    batch: Batch


@dataclass(frozen=True)
class Repeated:
    """A keyed lifecycle request (resign, abort, leave) this player made already with the
    same Idempotency-Key: answered again with the game, nothing written."""


# ---- new games and seats -------------------------------------------------------------------


def new_game(
    creator: Player,
    name: str,
    seats: int,
    options: dict[str, Any],
    bots: dict[int, str],
    seat: int | None,
    at: str,
    clock: dict[str, Any] | None = None,
    on_timeout: str | None = None,
    extra: dict[str, Any] | None = None,
    client_seed: str | None = None,
    game_id: UUID | None = None,
) -> tuple[Recording, bytes]:
    """A new game's events (its seed kept first): created, bots seated, the creator seated
    (`seat`), started when full. `extra` adds to `game_created` (a rematch's links and
    reserved seats). Returns the recording and the game's secret seed."""
    game = _game(name)
    if not game.min_players <= seats <= game.max_players:
        raise Unprocessable(
            "invalid_seats", f"{name} seats {game.min_players}-{game.max_players} players"
        )
    rec, seed = _created(game, seats, options, clock, on_timeout, creator.id, extra, at, game_id)
    for bot_seat, bot in bots.items():
        if not 0 <= bot_seat < seats:
            raise Unprocessable("invalid_bot_seat", f"seat {bot_seat} is not in 0..{seats - 1}")
        _bot_exists(game, bot)
    for bot_seat, bot in sorted(bots.items()):
        _take(rec, bot_seat, None, f"{bot} bot", bot, server_client_seed())
    if seat is not None:  # the creator's seat, checked as a join would be
        seating(rec, creator, seat, seed, client_seed)
    elif not rec.fold.free_seats():
        start(rec, seed)
    return rec, seed


def table(
    name: str,
    seated: list[tuple[str | None, str, str | None]],
    options: dict[str, Any],
    clock: dict[str, Any] | None,
    on_timeout: str | None,
    extra: dict[str, Any],
    game_id: UUID,
    at: str,
) -> tuple[Recording, bytes]:
    """A tournament's table: the game `game_id` with every seat taken at once (`seated` is
    (player id, name, bot) per seat), started."""
    game = _game(name)
    rec, seed = _created(game, len(seated), options, clock, on_timeout, None, extra, at, game_id)
    for seat, (player, shown, bot) in enumerate(seated):
        _take(rec, seat, player, shown, bot, server_client_seed())  # a table's players give none
    start(rec, seed)
    return rec, seed


def _created(
    game: Game[Any, Any],
    seats: int,
    options: dict[str, Any],
    clock: dict[str, Any] | None,
    on_timeout: str | None,
    created_by: str | None,
    extra: dict[str, Any] | None,
    at: str,
    game_id: UUID | None,
) -> tuple[Recording, bytes]:
    parsed, clock, on_timeout = table_settings(game, options, seats, clock, on_timeout)
    game_id = game_id or uuid.uuid4()
    seed = secrets.token_bytes(32)
    data = {
        "game": game.name,
        "options": parsed,
        "seats": seats,
        "seed_commitment": commitment(seed),
        "created_by": created_by,
        "randomness": RANDOMNESS,
    }
    if clock is not None:  # (bot_clocks: see Fold.timed_seats)
        data |= {"clock": clock, "on_timeout": on_timeout, "bot_clocks": True}
    data |= extra or {}
    created = recorded(game_id, 1, GENESIS, GAME_CREATED, SYSTEM, None, None, data, at)
    rec = Recording(new_fold(game_id, created), at)
    rec.events += [kept_seed(game_id, seed), created]  # type: ignore[list-item]
    return rec, seed


def _take(
    rec: Recording, seat: int, player: str | None, name: str, bot: str | None, client_seed: str
) -> None:
    taken = {"seat": seat, "player": player, "name": name, "bot": bot, "client_seed": client_seed}
    rec.note(SEAT_TAKEN, seat, taken)


def seating(
    rec: Recording,
    player: Player,
    seat: int | None,
    seed: bytes,
    client_seed: str | None = None,
) -> int:
    """`player` takes `seat` (the first free one if None), with its `client_seed` (the
    server picks one when it gives none); the game starts when full. A rematch's seats are
    reserved for the players of the game before. Returns the seat taken."""
    fold = rec.fold
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
    if client_seed is not None and not fold.seeded:
        raise Unprocessable(
            "client_seed_unsupported", "this game predates client seeds: join without one"
        )
    taken = {"seat": seat, "player": player.id, "name": player.name, "bot": None}
    if fold.seeded:
        taken["client_seed"] = client_seed or server_client_seed()
    rec.note(SEAT_TAKEN, seat, taken)
    if not fold.free_seats():
        start(rec, seed)
    return seat


def start(rec: Recording, seed: bytes) -> None:
    """All seats are filled: the client seeds fixed (a /2 game), then the setup events.
    Bots that must play first are the bot runner's (service/bot_runner.py)."""
    fold = rec.fold
    if fold.seeded:
        rec.note(RANDOMNESS_FIXED, SYSTEM, {"client_seeds": list(fold.client_seeds)})
    rng = rng_for(fold.rules_seed(seed), fold.version)
    rec.decision(SYSTEM, None, fold.game.setup(fold.options, fold.seats, rng))
    rec.close(seed)


# ---- decisions in a running game -----------------------------------------------------------


def move(
    fold: Fold,
    seed: bytes,
    player: Player,
    expected_version: int,
    command_in: Any,
    key: str,
    at: str,
) -> Recording | Again:
    """A player's move at `expected_version`, decided at `at`; `Again` for a retry of a
    move already applied with the same key."""
    seat = fold.seat_of(player.id)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")
    command = _command(fold.game, command_in)
    as_recorded = msgspec.to_builtins(command)
    batch = fold.batches.get((seat, key))
    if batch is not None:
        # A retry sent at the version before clock credits was applied after them (the
        # batch then starts later than the version it was sent at).
        if batch.command != as_recorded or expected_version > batch.expected_version:
            raise reused("move")
        return Again(seat, batch)
    _at_version(fold, expected_version)
    at = max(at, fold.last_at)  # the log's stamps never go back
    refusal = _not_playable(fold, seat, at)
    if refusal is not None:
        raise refusal
    return _decision(fold, seed, seat, command, as_recorded, key, at)


def bot_move(
    fold: Fold, seed: bytes, seat: int, bot: str, expected_version: int, command: Any, at: str
) -> Recording | None:
    """A bot's decision for `seat`, chosen on the game at `expected_version` (its seat's
    timeout, when the bot decided after its deadline); None when the game has moved on or
    no longer awaits that bot there (someone else decided first)."""
    if fold.version != expected_version or fold.bot_turn() != (seat, bot):
        return None
    at = max(at, fold.last_at)
    deadline = fold.clock.deadline(seat) if fold.clock is not None else None
    if deadline is not None and clocks.micros(at) > deadline:
        # The bot decided too late (the runner was away, or thought past its time): its
        # seat times out instead, as the timekeeper would have written, and the policy
        # follows. A decision after its deadline would be a missed timeout.
        return timeout(fold, seed, at)
    return _decision(fold, seed, seat, command, msgspec.to_builtins(command), None, at)


def choose_bot_move(fold: Fold, seed: bytes, seat: int, bot: str) -> Any:
    """What the bot named `bot` decides for `seat` now, from the seat's information only
    (never the true state). Its randomness comes from the seed and the version, so a game
    plays the same whoever runs its bots, and again after a takeback. It may think for a
    while: call it off the loop."""

    chosen_by = resolve_bot(fold.game, bot)
    info = SeatInfo.of(fold.game, fold.state, seat)
    # By the line's version: a position reached again after a takeback gets the same answer
    # (a takeback must not re-roll a bot's reply).
    return chosen_by(fold.game, info, rng_for(fold.rules_seed(seed), fold.line_version, "bot"))


def _decision(
    fold: Fold,
    seed: bytes,
    seat: int,
    command: Any,
    as_recorded: Any,
    key: str | None,
    at: str,
) -> Recording:
    """The rules decide `command` of `seat` and its events are recorded: the rules evolve
    the state once (`decide_evolve`), unless the game has a clock (its seats are observed
    after each event, see Recording.decision)."""
    game = fold.game
    rng = rng_for(fold.rules_seed(seed), fold.version)
    try:
        if fold.clock is None:
            events, after = game.decide_evolve(fold.state, seat, command, rng)
        else:
            events, after = game.decide(fold.state, seat, command, rng), None
    except RuleError as error:
        raise Unprocessable(error.code, error.message) from None
    except Exception:  # a rules bug must not become a 500 nor change anything
        log.exception("rules_failed", game=game.name, move=as_recorded)
        raise Unprocessable(
            "illegal_move.not_understood", "the rules could not process this move"
        ) from None
    rec = Recording.on(fold, at, key)
    rec.decision(seat, as_recorded, events, after)
    rec.close(seed)
    return rec


def timeout(
    fold: Fold, seed: bytes, at: str, arrived_before: str | None = None
) -> Recording | None:
    """The seat whose deadline passed first times out (under `forfeit`, every seat whose
    deadline has passed, in deadline order: seats that stalled together lose together, not
    by seat number). Under a `bot:` policy the seat is overdue: the bot runner decides for
    it next (in a game older than `bot_clocks`, the policy's bot decides in this same write,
    as it always did there). None when none is due at `at`, and none is due while a move
    that arrived at `arrived_before` (in time for a deadline passed since) is being written:
    that move is decided as of its arrival."""
    clock, now = fold.clock, clocks.micros(at)
    if clock is None or fold.over or not fold.started:
        return None
    if arrived_before is not None:
        now = min(now, clocks.micros(arrived_before))
    due = sorted((d, s) for s in clock.since if (d := clock.deadline(s)) is not None and d <= now)
    if not due:
        return None
    policy = fold.on_timeout or clocks.DEFAULT_POLICY
    rec = Recording.on(fold, max(at, fold.last_at))
    for deadline, seat in due if policy == "forfeit" else due[:1]:
        rec.note(TIMED_OUT, SYSTEM, {"seat": seat, "deadline": clocks.stamp(deadline)})
        if policy == "forfeit":
            rec.decision(SYSTEM, None, [forfeit_note(seat, "timed_out")])
        elif not fold.bot_clocks:  # an older game: its policy's bot decides in this write,
            _policy_decides(rec, seed, seat, policy)  # as its rules (and audit) say
        log.info("timed_out", game_id=str(fold.id), seat=seat, policy=policy)
    rec.close(seed)
    return rec


def credit(fold: Fold, gone_since: int, at: str) -> Recording | None:
    """The service could not act from `gone_since` (us: its last sign of life) until `at`:
    the game's running clocks get that time back, as far as it fell in the current
    decisions (after the game's last event). None when no clock runs or nothing is due.
    Written before any timeout is applied, so no seat times out for the service's outage."""
    clock = fold.clock
    if clock is None or fold.over or not fold.started or not clock.since:
        return None
    at = max(at, fold.last_at)
    ms = (clocks.micros(at) - max(gone_since, clocks.micros(fold.last_at))) // 1000
    if ms <= 0:
        return None
    rec = Recording.on(fold, at)
    rec.note(CLOCK_CREDIT, SYSTEM, {"seats": sorted(clock.since), "ms": ms, "reason": "outage"})
    return rec


def _policy_decides(rec: Recording, seed: bytes, seat: int, policy: str) -> None:
    """The timeout policy's bot decides for `seat` in the timeout's own write (games created
    before decisions were stamped when made; newer games leave it to the bot runner)."""
    fold = rec.fold
    command = choose_bot_move(fold, seed, seat, policy.removeprefix("bot:"))
    rng = rng_for(fold.rules_seed(seed), fold.version)
    events = fold.game.decide(fold.state, seat, command, rng)
    rec.decision(seat, msgspec.to_builtins(command), events)


def forfeit(fold: Fold, seed: bytes, seat: int, reason: ForfeitReason, at: str) -> Recording | None:
    """(A tournament withdrawal) `seat` forfeits; None when the game is over or the seat
    has forfeited already."""
    if fold.over or not fold.started or seat in fold.forfeited:
        return None
    rec = Recording.on(fold, max(at, fold.last_at))
    rec.decision(SYSTEM, None, [forfeit_note(seat, reason)])
    rec.close(seed)
    return rec


def resign(
    fold: Fold, seed: bytes, player: Player, at: str, key: str | None = None
) -> Recording | Repeated:
    if _done_before(fold, player, key, SEAT_FORFEITED):
        return Repeated()
    seat = _seated(fold, player)
    if fold.over:
        raise Conflict("game_over", f"the game is {fold.status}: there is nothing to resign")
    if not fold.started:
        raise Conflict("game_not_started", "the game has not started: leave it instead")
    if seat in fold.forfeited:
        raise Conflict("seat_forfeited", "your seat has already forfeited")
    rec = Recording.on(fold, max(at, fold.last_at), key)
    rec.decision(seat, None, [forfeit_note(seat, "resigned")])
    rec.close(seed)
    return rec


def abort(
    fold: Fold, seed: bytes, player: Player, at: str, key: str | None = None
) -> Recording | Repeated:
    if _done_before(fold, player, key, GAME_ABORTED):
        return Repeated()
    if fold.created_by != player.id:
        raise Forbidden("not_creator", "only the game's creator may abort it")
    if fold.over:
        raise Conflict("game_over", f"the game is {fold.status}")
    if fold.decided:
        raise Conflict("abort_too_late", "a player has made a decision: resign instead")
    rec = Recording.on(fold, max(at, fold.last_at), key)
    rec.decision(SYSTEM, None, [Note(GAME_ABORTED, {"by": player.id, "seed": seed.hex()})])
    return rec


def leave(
    fold: Fold, seed: bytes, player: Player, at: str, key: str | None = None
) -> Recording | Repeated:
    if _done_before(fold, player, key, SEAT_LEFT):
        return Repeated()
    seat = _seated(fold, player)
    if fold.status != "open":
        raise Conflict("game_not_open", "the game has started: resign instead")
    rec = Recording.on(fold, max(at, fold.last_at), key)
    rec.decision(seat, None, [Note(SEAT_LEFT, {"seat": seat, "player": player.id})])
    return rec


# ---- takebacks (service/undo.py, docs/undo.md) ---------------------------------------------

REFUSED = {
    "undo_nothing_to_take_back": "you have no decision to take back (or it is too far back)",
    "undo_across_randomness": "something random or hidden came out since your last decision",
}


def undo_request(
    fold: Fold, seed: bytes, player: Player, at: str, key: str | None = None
) -> Recording | Repeated:
    """The player asks to take back its last decision: its clock pauses while the request
    stands; bots accept at once (in this write: they need no thought, and the game is not
    left waiting on the bot runner), and with no other person seated the game reverts now."""
    if _done_before(fold, player, key, UNDO_REQUESTED):
        return Repeated()
    seat = _seated(fold, player)
    at = max(at, fold.last_at)
    _may_take_back(fold, seat, at)
    if fold.undo_asked is not None:
        raise Conflict("undo_pending", "a takeback request stands already: answer it first")
    code = undo.refusal(fold.game, fold.takeback, seat, fold.state)
    point = fold.takeback.point(seat)
    if code is not None or point is None:
        code = code or "undo_nothing_to_take_back"
        raise Conflict(code, REFUSED[code])
    rec = Recording.on(fold, at, key)
    rec.note(UNDO_REQUESTED, seat, {"seat": seat, "to_version": point[0]})
    for bot_seat in sorted(fold.bots):
        if bot_seat != seat:
            rec.note(UNDO_ACCEPTED, bot_seat, {"seat": bot_seat})
    _reverts(rec)
    return rec


def undo_answer(
    fold: Fold, seed: bytes, player: Player, accept: bool, at: str, key: str | None = None
) -> Recording | Repeated:
    """Another seated player accepts the standing request (the last acceptance reverts the
    game) or declines it; the requester's own decline withdraws it."""
    kind = UNDO_ACCEPTED if accept else UNDO_DECLINED
    if _done_before(fold, player, key, kind):
        return Repeated()
    seat = _seated(fold, player)
    if fold.undo_asked is None or fold.over:
        raise Conflict("not_asked", "no takeback request stands in this game")
    if accept and seat == fold.undo_asked[0]:
        raise Conflict("not_asked", "the request is yours: decline it to withdraw it")
    if seat in fold.undo_yes:
        raise Conflict("undo_answered", "you have accepted this request already")
    at = max(at, fold.last_at)
    if accept:
        _no_timeout_due(fold, at)
    rec = Recording.on(fold, at, key)
    rec.note(kind, seat, {"seat": seat})
    if accept:
        _reverts(rec)
    return rec


def _may_take_back(fold: Fold, seat: int, at: str) -> None:
    if fold.over:
        raise Conflict("game_over", f"the game is {fold.status}")
    if not fold.started:
        raise Conflict("game_not_started", "the game has not started")
    if not fold.undo:
        raise Conflict(
            "undo_not_allowed", "this game allows no takebacks (rated or tournament games "
            "allow them only when created with \"undo\": true)",
        )  # fmt: skip
    if seat in fold.forfeited:
        raise Conflict("seat_forfeited", "your seat forfeited; a bot plays it")
    if seat in fold.overdue:
        raise Conflict("out_of_time", "your time ran out: a bot makes this decision for you")
    _no_timeout_due(fold, at)


def _no_timeout_due(fold: Fold, at: str) -> None:
    """A deadline passed and its timeout is not written yet: it comes first (a takeback must
    not pause or stop a clock that has run out)."""
    clock = fold.clock
    if clock is None:
        return
    due = [s for s in clock.since if (d := clock.deadline(s)) is not None and d < clocks.micros(at)]
    if due:
        raise Conflict("out_of_time", f"seat {due[0]}'s time ran out: its timeout comes first")


def _reverts(rec: Recording) -> None:
    """Every seat but the requester has accepted: the game goes back."""
    fold = rec.fold
    if fold.undo_asked is None:
        return
    seat, to_version = fold.undo_asked
    if fold.undo_yes >= set(range(fold.seats)) - {seat}:
        rec.note(REVERTED, SYSTEM, {"seat": seat, "to_version": to_version})


def forfeit_note(seat: int, reason: ForfeitReason) -> Note:
    """`seat` gives up for good (it resigned, timed out, or withdrew from its tournament): a
    random bot plays it out (lifecycle.py ranks it last)."""
    return Note(SEAT_FORFEITED, {"seat": seat, "reason": reason, "bot": "random"})


# ---- rematches ----------------------------------------------------------------------------


def rematch_offer(old: Fold, player: Player, seat: int, at: str) -> tuple[Recording, bytes]:
    """The rematch's new game, its offerer seated: the same game, options and clock, each
    player one seat earlier (lifecycle.rematch_seat), bots seated at once."""
    rotate = lifecycle.rematch_seat
    reserved: list[str | None] = [None] * old.seats
    bots: dict[int, str] = {}
    for s in range(old.seats):
        if old.players[s] is None:
            bots[rotate(s, old.seats)] = old.bots[s]
        else:
            reserved[rotate(s, old.seats)] = old.players[s]
    extra = {"rematch_of": str(old.id), "reserved": reserved, "rated": old.rated}
    options = msgspec.to_builtins(old.options)
    seated = rotate(seat, old.seats)
    return new_game(
        player, old.game.name, old.seats, options, bots, seated, at, old.clock_spec,
        old.on_timeout, extra,
    )  # fmt: skip


def rematch_mark(old: Fold, type_: str, seat: int, data: dict[str, Any], at: str) -> Recording:
    """The finished game's note of its rematch: offered, or accepted by `seat`."""
    rec = Recording.on(old, max(at, old.last_at))
    rec.note(type_, seat, data)
    return rec


OFFERED, ACCEPTED = REMATCH_OFFERED, REMATCH_ACCEPTED


# ---- checks --------------------------------------------------------------------------------


def _at_version(fold: Fold, expected_version: int) -> None:
    """The move was made on the game as it is: at its version, or before clock credits only
    (they change no decision: a move sent before an outage is not refused for its credit)."""
    credited = fold.credited_from is not None and fold.credited_from <= expected_version
    if expected_version != fold.version and not (credited and expected_version < fold.version):
        raise Conflict(
            "version_conflict",
            f"expected_version {expected_version} but the game is at {fold.version}",
            version=fold.version,
        )


def _done_before(fold: Fold, player: Player, key: str | None, kind: str) -> bool:
    """Whether `key` is this player's request of `kind` (the type of the event it wrote)
    made before: a retry. A key the game holds for another request is refused."""
    if key is None:
        return False
    used = fold.lifecycle_keys.get(key)
    if used == (kind, player.id):
        return True
    if used is not None or any(k == key for _, k in fold.batches):  # another request's, a move's
        raise reused()
    return False


def _seated(fold: Fold, player: Player) -> int:
    seat = fold.seat_of(player.id)
    if seat is None:
        raise Forbidden("not_seated", "you hold no seat in this game")
    return seat


def _not_playable(fold: Fold, seat: int, at: str) -> Problem | None:
    """Why `seat` cannot move in `fold` at `at`, whatever the move (None: it may try)."""
    if fold.aborted:
        return Conflict("game_aborted", "the game was aborted")
    if fold.result is not None:
        return Unprocessable("illegal_move.game_over", "the game is over")
    if fold.status == "open":
        return Unprocessable("illegal_move.not_started", "the game has not started")
    if seat in fold.forfeited:
        return Conflict("seat_forfeited", "your seat forfeited; a bot plays it")
    if seat in fold.overdue:
        return Conflict("out_of_time", "your time ran out: a bot makes this decision for you")
    deadline = fold.clock.deadline(seat) if fold.clock is not None else None
    if deadline is not None and clocks.micros(at) > deadline:
        return Conflict(
            "out_of_time", f"your time ran out at {clocks.stamp(deadline)}; the timeout follows"
        )
    if fold.undo_asked is not None and fold.undo_asked[0] == seat:
        return Conflict(
            "undo_pending", "your takeback request stands: decline it to withdraw it, then move"
        )
    return None


def _game(name: str) -> Game[Any, Any]:
    game = get_game(name)
    if game is None:
        raise Unprocessable("unknown_game", f"no game named {name!r}; see /v1/game-types")
    return game


def _bot_exists(game: Game[Any, Any], bot: str) -> None:
    try:
        resolve_bot(game, bot)
    except BotSpecError as error:
        raise Unprocessable(error.code, error.message) from None


def table_settings(
    game: Game[Any, Any],
    options: dict[str, Any],
    seats: int,
    clock: Any,
    on_timeout: str | None,
) -> tuple[dict[str, Any], dict[str, Any] | None, str | None]:
    """A table's options (every one filled in), clock and timeout policy as a new game
    stores them, whoever asks for the table (a player, a challenge, a seek); 422 with a
    stable code otherwise."""
    parsed = msgspec.to_builtins(_options(game, options, seats))
    spec, policy = clocks.parse(msgspec.to_builtins(clock), on_timeout)
    return parsed, spec, policy


def _options(game: Game[Any, Any], options: dict[str, Any], seats: int) -> Any:
    try:
        return parse_options(game, options, seats)
    except RuleError as error:
        raise Unprocessable(error.code, error.message, field=error.field) from None


def _command(game: Game[Any, Any], move: Any) -> Any:
    """The move as the game's command: a field the command does not have is refused
    (`invalid_move.unknown_field`), never dropped, at any depth."""
    try:
        return msgspec.convert(move, game.command_type, strict=True)
    except msgspec.ValidationError as error:
        field, unknown = field_at(str(error), "move")
        detail = f"move: {error}"
        if unknown:
            raise Unprocessable("invalid_move.unknown_field", detail, field=field) from None
        raise Unprocessable("invalid_move", detail, field=field) from None

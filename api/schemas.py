"""Request and response bodies of API v1 (msgspec Structs: validation and OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from service.clocks import ClockSpec
from service.fold import GameStatus

Name = Annotated[str, Meta(min_length=1, max_length=64)]
Seat = Annotated[int, Meta(ge=0, le=15)]
# A seat's contribution to the game's randomness (docs/trust.md): 1-64 printable ASCII
# characters, no space; shown in the game's public data.
ClientSeed = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[!-~]+$")]


class ProblemBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """application/problem+json (RFC 9457) with a stable machine-readable `code`."""

    type: str  # the problem type's URI: `https://tabletop.example/problems/<code>`
    # A short summary in words, the same for every refusal of one code (a dotted code takes
    # its family's: "Illegal move").
    title: str
    status: int  # the HTTP status code of the answer
    detail: str  # what went wrong this time, for people: branch on `code`, never on this
    code: str  # stable and machine-readable (docs/api.md lists them): branch on this
    version: int | None = None  # the game's current version, on version_conflict only
    # The refused value's place in the request body, as a path (`move.black_market.vpp`),
    # when the refusal is about one value: an unknown field, a value of the wrong type.
    field: str | None = None


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    """A player to register."""

    # 1-64 printable characters, kept without surrounding spaces (422 `invalid_name`)
    name: Name


class PlayerCreated(msgspec.Struct):
    """A registered player, with its API key: the only time the key is shown."""

    id: str  # the player's id, 32 hex digits: its profile is GET /v1/players/{id}
    name: str  # as registered, without surrounding spaces
    # Send as `Authorization: Bearer <api_key>`; only its salted hash is kept, so a lost key
    # cannot be shown again.
    api_key: str


class StreamToken(msgspec.Struct, kw_only=True):
    """A short-lived token that opens the caller's streams without its API key."""

    token: str  # `?token=` on the stream routes only
    expires_at: str  # when it stops being accepted (RFC 3339, UTC)
    expires_in: int  # seconds from now until `expires_at` (300 unless the server says otherwise)


class PlayerOut(msgspec.Struct):
    """A player as the server knows it."""

    id: str  # the player's id, 32 hex digits
    name: str  # as registered
    created_at: str  # when the player registered (RFC 3339, UTC)


class GameType(msgspec.Struct):
    """A game this server hosts, and what a new game of it may be created with."""

    name: str  # its name in bodies and paths (`puerto-rico`): `game` in POST /v1/games
    title: str  # its name for people (`Puerto Rico`)
    min_players: int  # the fewest seats a game of it may have
    max_players: int  # the most seats a game of it may have
    options: dict[str, Any]  # each option's name -> its default value
    # The bot names `bots` accepts: `random` (every game), the game's own, and `mcts`, which
    # may carry a budget (`mcts:p=200`: playouts (p), ms, rollout (r), horizon (h)).
    bots: list[str]
    clocks: list[str]  # the time controls a game may be created with
    on_timeout: list[str]  # what may happen to a seat whose time runs out


class NewGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A game to create: its type, seats, options, bots, clock and the creator's seat."""

    game: Annotated[str, Meta(min_length=1, max_length=64)]  # a `name` of GET /v1/game-types
    # How many seats: within the game type's min_players..max_players (422 `invalid_seats`).
    seats: Annotated[int, Meta(ge=1, le=16)]
    # Option name -> value; an option left out takes its default (GET /v1/game-types); one
    # the game does not have is refused (422 `invalid_options.unknown`).
    options: dict[str, Any] = {}
    # Seat number, as a string ("1") -> the bot that plays it, one of the game type's `bots`
    # (GET /v1/game-types); the other seats are for players to take.
    bots: dict[
        Annotated[str, Meta(pattern=r"^[0-9]{1,2}$")], Annotated[str, Meta(max_length=32)]
    ] = {}
    seat: Seat | None = None  # take this seat yourself right away
    clock: ClockSpec | None = None  # no clock: nobody ever times out
    # What a seat whose time runs out gets: a bot's move, or it forfeits (ranks last). Only
    # with a `clock`; `bot:random` when a clock is given without it.
    on_timeout: Literal["bot:random", "bot:greedy", "forfeit"] | None = None
    rated: bool = False  # its result moves its players' ratings (GET /v1/leaderboards/{game})
    client_seed: ClientSeed | None = None  # your seat's seed (with `seat`); else the server's
    # Takebacks with consent (docs/undo.md): absent, a casual game allows them and a rated
    # one does not; `true` allows them in a rated game, `false` refuses them in a casual one.
    undo: bool | None = None


class JoinGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The seat to take in an open game (the whole body is optional)."""

    # The seat to take, from 0; absent: the first free one (in a rematch, the one kept for you)
    seat: Seat | None = None
    client_seed: ClientSeed | None = None  # your seat's seed; the server picks one if absent


class SeatOut(msgspec.Struct):
    """One seat of a game: who holds it and who plays it."""

    seat: int  # the seat's number, from 0
    player: str | None  # the seated player's id; null for a free seat or a bot's
    name: str | None  # the player's name, or `<bot> bot` for a bot's; null for a free seat
    # The bot that plays it: a bot's seat, or `random` once a player's seat has forfeited;
    # null for a seat a player plays (or a free one).
    bot: str | None
    client_seed: str | None = None  # its seed for the game's randomness (a /2 game)


class SeatClock(msgspec.Struct):
    """One seat's clock, as it stands when the game is read."""

    seat: int  # the seat's number, from 0
    running: bool  # the game awaits this seat now
    # Milliseconds. fischer: time left; deadline: left on the running decision (null when
    # the seat's clock is not running).
    remaining_ms: int | None
    # When the running decision times out (RFC 3339, UTC); null when the clock is not running
    deadline: str | None


class ClockOut(msgspec.Struct, kw_only=True):
    """A game's time control and every seat's clock."""

    spec: dict[str, Any]  # as created: {"kind": "fischer", ...} or {"kind": "deadline", ...}
    # What a seat whose time runs out gets: `bot:random`, `bot:greedy` (a bot makes that
    # decision) or `forfeit` (the seat forfeits and ranks last).
    on_timeout: str
    seats: list[SeatClock]  # one per seat, in seat order
    # The game's next deadline: when the first running clock runs out (RFC 3339, UTC); null
    # when no clock runs.
    deadline: str | None


class GameOut(msgspec.Struct, kw_only=True):
    """A game as the caller may see it: its seats, status, view, clock and result."""

    id: str  # the game's id (a UUID)
    game: str  # the game's type: a `name` of GET /v1/game-types
    # open: seats are being taken; active: being played; finished: over, with a result;
    # aborted: cancelled by its creator before any player's decision (no result).
    status: GameStatus
    # How many events the game has (its ETag): send it as a move's `expected_version`.
    version: int
    seats: list[SeatOut]  # one per seat, in seat order
    awaiting: list[int]  # whose decision the game waits for now (bots' seats too)
    view: Any  # what the caller may see of the game (typed per game in the document)
    result: Any  # the final outcome once finished; null before, and for an aborted game
    options: dict[str, Any]  # the game's options, every default filled in
    # SHA-256 (hex) of the server's secret 32-byte seed, published before play and revealed
    # when the game ends (docs/trust.md).
    seed_commitment: str
    your_seat: int | None  # the caller's seat; null for a spectator (no key, or no seat here)
    created_at: str  # when the game was created (RFC 3339, UTC)
    last_activity: str  # when its last event was recorded (RFC 3339, UTC)
    clock: ClockOut | None = None  # its time control and clocks; null for a game without one
    # seat -> "resigned" | "timed_out" | "withdrawn" (from its tournament): a bot plays it
    forfeited: dict[str, str] = {}
    created_by: str | None = None  # the creator's player id; null for a tournament's table
    rematch_of: str | None = None  # the game this one is a rematch of
    rematch: str | None = None  # the rematch offered after this game
    rated: bool = False  # its result moves its players' ratings (GET /v1/leaderboards/{game})
    tournament: str | None = None  # the tournament whose table this game is


class LegalMoves(msgspec.Struct, kw_only=True):
    """A page of the moves the caller's seat may make now."""

    game: str  # the game's type: the generated clients' discriminator of `moves`
    version: int  # the game's version they are legal at: a move's `expected_version`
    # Each one exactly a `move` for POST .../moves, in the game's order; empty when the
    # caller's seat is not awaited.
    moves: list[dict[str, Any]]
    total: int  # all legal moves; `moves` is the page from `offset`
    offset: int  # the place of the page's first move among all of them, from 0


class MoveRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A move, and the game's version it was chosen at."""

    # The `version` the move was chosen at; 409 `version_conflict` if the game has moved on.
    expected_version: Annotated[int, Meta(ge=0)]
    move: dict[str, Any]  # one of the seat's legal moves (GET .../legal-moves)


class EventOut(msgspec.Struct, omit_defaults=True):
    """One event of a game, as the caller's seat may see it."""

    version: int  # its place in the game's log, from 1
    type: str  # the game's own event types, or the service's (`game_created`, `seat_taken`...)
    # The seat whose decision (a bot's too) or seat it is; "system" for the service's own
    # events and the setup.
    seat: int | str
    at: str  # when its decision was made (RFC 3339, UTC)
    data: Any  # the event's data (typed per game in the document)
    clock: dict[str, int] | None = None  # a timed decision: used_ms (and remaining_ms)
    text: str = ""  # one readable line, as the caller's seat may see it (outside the export)


class MoveResult(msgspec.Struct, kw_only=True):
    """What a move did: the events it caused and whose decision the game awaits now."""

    game: str  # the game's type: the generated clients' discriminator of `events`
    version: int  # the game's version once the move's events are saved
    # The events the move caused (its own, then the service's: `game_finished`...), in
    # order, as the mover's seat sees them.
    events: list[EventOut]
    awaiting: list[int]  # whose decision the game waits for now (bots' seats too)
    status: GameStatus  # the game's status after the move: active, or finished once over
    # When the game awaits the caller again: its legal moves now (the first page of
    # GET .../legal-moves), so that a client needs one request per move.
    legal: LegalMoves | None = None


class EventPage(msgspec.Struct, kw_only=True):
    """A page of a game's events, in order."""

    game: str  # the game's type: the generated clients' discriminator of `events`
    version: int  # the game's current version (the last event's, once every page is read)
    # The events after `after`, at most `limit`, in version order, as the caller's seat (or
    # `seat`, once the game is over) sees them.
    events: list[EventOut]


class ReplayOut(msgspec.Struct, kw_only=True):
    """The game as it stood after its first `version` events."""

    game: str  # the game's type: the generated clients' discriminator of `view`
    version: int  # the version shown: the one asked
    status: str  # the game's status then: open | active | finished | aborted
    awaiting: list[int]  # whose decision the game waited for then
    # The view then: `seat`'s when asked, else the caller's seat's while the game runs; the
    # public view to a spectator, and of an ended game without `seat`.
    view: Any
    state: Any = None  # the whole state, only once the game is finished


class AuditOut(msgspec.Struct, kw_only=True):
    """The audit of a game's log: its hash chain, its seed and every command re-run."""

    verified: bool  # the chain is intact, the seed matches its commitment, the re-run agrees
    events: int  # how many events the log has
    chain_intact: bool  # every event's version, prev_hash and hash are as they should be
    # The version of the first event whose version, prev_hash or hash is wrong; null if none.
    first_broken_version: int | None
    # The revealed seed's SHA-256 equals the game's seed_commitment; null when it was not
    # checked (no seed to check: see `detail`).
    seed_matches_commitment: bool | None
    reexecuted: bool  # every event was reproduced by re-running the log (false if not run)
    first_divergent_version: int | None  # the first event the re-run differs at; null if none
    # For people: why the check stopped (not a known export format, no revealed seed) or how
    # the re-run differs; null otherwise.
    detail: str | None
    client_seeds: list[str] | None = None  # fixed into the randomness (a /2 game)
    # The record is not the one the transparency log holds for the game (its leaf: the hash
    # of its ending, and the ending's version): rewritten, or cut short, after it ended.
    tampered: bool = False
    tamper: TamperOut | None = None  # how it differs; null when it does not


class TamperOut(msgspec.Struct, kw_only=True):
    """How a game's record differs from what the transparency log holds for it."""

    game: str  # the game's id
    # final_hash_differs: its ending's hash is not the leaf's (an event changed, swapped or
    # removed, and the chain redone); not_ended: the log holds its end, its record has none
    # (its last events deleted); chain_broken: its hash chain breaks.
    what: str
    # The first version that differs or is missing, when it can be known (the chain breaks
    # there, or the record stops short of the leaf's version); null otherwise.
    first_version: int | None
    stored_events: int  # how many events the record holds now
    logged_version: int | None  # the version of the ending the log holds; null if not said
    logged_hash: str | None  # the final hash the log holds
    stored_hash: str | None  # the hash of the record's ending; null when it has none
    detail: str  # for people


class Ready(msgspec.Struct):
    """This process takes traffic."""

    status: str  # `ready`


class Health(msgspec.Struct, omit_defaults=True):
    """The server's health: its event store answers, and nothing it holds was found
    tampered with."""

    # `ok`; `degraded` when the store answers but a game was found tampered with (still a
    # 200: one bad game does not take the service down) or this process's transparency log
    # refuses to sign. (When the store does not answer, the answer is a 503 problem.)
    status: str
    tampered_games: int | None = None  # degraded: how many games (GET .../audit says how)
    tampered: list[str] | None = None  # their ids (the first 100)
    log_refusal: str | None = None  # degraded: why this process will not sign tree heads

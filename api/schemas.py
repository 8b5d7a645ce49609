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

    type: str
    title: str
    status: int
    detail: str
    code: str
    version: int | None = None  # the current version, on version_conflict
    # The refused value's place in the request body, as a path (`move.black_market.vpp`),
    # when the refusal is about one value: an unknown field, a value of the wrong type.
    field: str | None = None


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    name: Name


class PlayerCreated(msgspec.Struct):
    id: str
    name: str
    api_key: str


class StreamToken(msgspec.Struct, kw_only=True):
    token: str  # `?token=` on the stream routes only
    expires_at: str
    expires_in: int  # seconds


class PlayerOut(msgspec.Struct):
    id: str
    name: str
    created_at: str


class GameType(msgspec.Struct):
    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    bots: list[str]
    clocks: list[str]  # the time controls a game may be created with
    on_timeout: list[str]  # what may happen to a seat whose time runs out


class NewGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    game: Annotated[str, Meta(min_length=1, max_length=64)]
    seats: Annotated[int, Meta(ge=1, le=16)]
    options: dict[str, Any] = {}
    bots: dict[
        Annotated[str, Meta(pattern=r"^[0-9]{1,2}$")], Annotated[str, Meta(max_length=32)]
    ] = {}
    seat: Seat | None = None  # take this seat yourself right away
    clock: ClockSpec | None = None  # no clock: nobody ever times out
    # What a seat whose time runs out gets: a bot's move, or it forfeits (ranks last).
    on_timeout: Literal["bot:random", "bot:greedy", "forfeit"] | None = None
    rated: bool = False  # its result moves its players' ratings (GET /v1/leaderboards/{game})
    client_seed: ClientSeed | None = None  # your seat's seed (with `seat`); else the server's


class JoinGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    seat: Seat | None = None
    client_seed: ClientSeed | None = None  # your seat's seed; the server picks one if absent


class SeatOut(msgspec.Struct):
    seat: int
    player: str | None
    name: str | None
    bot: str | None
    client_seed: str | None = None  # its seed for the game's randomness (a /2 game)


class SeatClock(msgspec.Struct):
    seat: int
    running: bool  # the game awaits this seat now
    remaining_ms: int | None  # fischer: time left; deadline: left on the running decision
    deadline: str | None  # when the running decision times out


class ClockOut(msgspec.Struct, kw_only=True):
    spec: dict[str, Any]  # as created: {"kind": "fischer", ...} or {"kind": "deadline", ...}
    on_timeout: str
    seats: list[SeatClock]
    deadline: str | None  # the game's next deadline


class GameOut(msgspec.Struct, kw_only=True):
    id: str
    game: str
    status: GameStatus
    version: int
    seats: list[SeatOut]
    awaiting: list[int]
    view: Any
    result: Any
    options: dict[str, Any]
    seed_commitment: str
    your_seat: int | None
    created_at: str
    last_activity: str
    clock: ClockOut | None = None
    forfeited: dict[str, str] = {}  # seat -> "resigned" | "timed_out": a bot plays it
    created_by: str | None = None
    rematch_of: str | None = None  # the game this one is a rematch of
    rematch: str | None = None  # the rematch offered after this game
    rated: bool = False
    tournament: str | None = None  # the tournament whose table this game is


class LegalMoves(msgspec.Struct, kw_only=True):
    version: int
    moves: list[dict[str, Any]]
    total: int  # all legal moves; `moves` is the page from `offset`
    offset: int


class MoveRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    expected_version: Annotated[int, Meta(ge=0)]
    move: dict[str, Any]


class EventOut(msgspec.Struct, omit_defaults=True):
    version: int
    type: str
    seat: int | str
    at: str
    data: Any
    clock: dict[str, int] | None = None  # a timed decision: used_ms (and remaining_ms)
    text: str = ""  # one readable line, as the caller's seat may see it (outside the export)


class MoveResult(msgspec.Struct):
    version: int
    events: list[EventOut]
    awaiting: list[int]  # whose decision the game waits for now (bots' seats too)
    status: GameStatus
    # When the game awaits the caller again: its legal moves now (the first page of
    # GET .../legal-moves), so that a client needs one request per move.
    legal: LegalMoves | None = None


class EventPage(msgspec.Struct):
    version: int
    events: list[EventOut]


class ReplayOut(msgspec.Struct, kw_only=True):
    version: int
    status: str
    awaiting: list[int]
    view: Any
    state: Any = None  # the whole state, only once the game is finished


class AuditOut(msgspec.Struct, kw_only=True):
    verified: bool
    events: int
    chain_intact: bool
    first_broken_version: int | None
    seed_matches_commitment: bool | None
    reexecuted: bool
    first_divergent_version: int | None
    detail: str | None
    client_seeds: list[str] | None = None  # fixed into the randomness (a /2 game)


class Health(msgspec.Struct):
    status: str

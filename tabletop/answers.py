"""The answers of API v1 that `tabletop.client` decodes, as its own msgspec structs.

They mirror the server's response bodies (same names and fields; openapi/openapi.json lists
them) without importing the server's code, so a program that plays needs none of it. Fields a
newer server adds are ignored when decoding: an older client keeps working (a new value of a
Literal field, such as a game's `status`, would not decode).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

GameStatus = Literal["open", "active", "finished", "aborted"]


class PlayerCreated(msgspec.Struct):
    id: str
    name: str
    api_key: str  # shown only here


class GameType(msgspec.Struct):
    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    bots: list[str]
    clocks: list[str]  # the time controls a game may be created with
    on_timeout: list[str]  # what may happen to a seat whose time runs out


class GameTypeSchemas(msgspec.Struct, kw_only=True):
    """A game's types as one JSON Schema document: `options`, `command`, `view` and `event`
    refer into `$defs`."""

    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, str]
    command: dict[str, str]
    view: dict[str, str]
    event: dict[str, str]
    defs: dict[str, dict[str, Any]] = msgspec.field(name="$defs")


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
    moves: list[dict[str, Any]]  # `commands(game, moves)` types them
    total: int  # all legal moves; `moves` is the page from `offset`
    offset: int


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
    legal: LegalMoves | None = None  # the mover's next legal moves, when it is awaited again


class EventPage(msgspec.Struct):
    version: int
    events: list[EventOut]


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

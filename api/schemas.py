"""Request and response bodies of API v1 (msgspec Structs: validation and OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

Name = Annotated[str, Meta(min_length=1, max_length=64)]
Seat = Annotated[int, Meta(ge=0, le=15)]


class ProblemBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """application/problem+json (RFC 9457) with a stable machine-readable `code`."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    version: int | None = None  # the current version, on version_conflict


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    name: Name


class PlayerCreated(msgspec.Struct):
    id: str
    name: str
    api_key: str


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


class NewGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    game: Annotated[str, Meta(min_length=1, max_length=64)]
    seats: Annotated[int, Meta(ge=1, le=16)]
    options: dict[str, Any] = {}
    bots: dict[
        Annotated[str, Meta(pattern=r"^[0-9]{1,2}$")], Annotated[str, Meta(max_length=32)]
    ] = {}
    seat: Seat | None = None  # take this seat yourself right away


class JoinGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    seat: Seat | None = None


class SeatOut(msgspec.Struct):
    seat: int
    player: str | None
    name: str | None
    bot: str | None


class GameOut(msgspec.Struct, kw_only=True):
    id: str
    game: str
    status: str
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


class LegalMoves(msgspec.Struct, kw_only=True):
    version: int
    moves: list[dict[str, Any]]
    total: int  # all legal moves; `moves` is the page from `offset`
    offset: int


class MoveRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    expected_version: Annotated[int, Meta(ge=0)]
    move: dict[str, Any]


class EventOut(msgspec.Struct):
    version: int
    type: str
    seat: int | str
    at: str
    data: Any


class MoveResult(msgspec.Struct):
    version: int
    events: list[EventOut]
    awaiting: list[int]  # whose decision the game waits for now
    status: str


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


class Health(msgspec.Struct):
    status: str

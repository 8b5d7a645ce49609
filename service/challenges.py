"""Challenges: a player names the others of a game (one for two seats, more for more), who
accept or decline; when everyone has accepted, the game starts with every seat taken at
once (the challenger first, then the challenged in the order named).

A challenge is a stream of hash-chained `challenge_*` events (service/challenge_log.py):
`created`, `accepted` (one per player), `started` (with the game's id, in the same save as
the last acceptance), `declined` (one decline ends it), `cancelled` (the challenger) or
`expired`. Expiry is decided on the service's clock, lazily: the first read or write of a
challenge after its `expires_at` writes `expired`, so a late acceptance is refused and the
export says when it lapsed. The game's id follows from the challenge's, so a game that a
crash kept from being created after `started` is created by the next read, once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, NamedTuple, Protocol
from uuid import UUID

import msgspec
from msgspec import Meta

from domain.registry import get as get_game
from service import clocks
from service.challenge_log import (
    CHALLENGE,
    NAMESPACE,
    Stream,
    found,
    noticed,
    read_stream,
)
from service.clocks import ClockSpec
from service.decisions import table_settings
from service.errors import Conflict, Forbidden, Unprocessable
from service.games import Games
from service.players import Player, Players
from service.records import chained, keyed_game_id, reused
from service.writes import Answered, Decided

DEFAULT_EXPIRY_S = 86_400
MAX_LISTED = 200
PlayerId = Annotated[str, Meta(min_length=1, max_length=64)]


class NewChallenge(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A challenge: who, which game, and the game's settings (as a new game's)."""

    # The challenged players' ids (1 to 15, distinct, not yourself): seats 1, 2, ... in this
    # order; you take seat 0.
    players: Annotated[list[PlayerId], Meta(min_length=1, max_length=15)]
    game: Annotated[str, Meta(min_length=1, max_length=64)]  # a `name` of GET /v1/game-types
    # How many seats: one more than `players` (422 `invalid_seats` otherwise); absent: so.
    seats: Annotated[int, Meta(ge=2, le=16)] | None = None
    # Option name -> value; an option left out takes its default (GET /v1/game-types).
    options: dict[str, Any] = {}
    clock: ClockSpec | None = None  # the game's time control; none: nobody times out
    # What a seat whose time runs out gets (only with a `clock`; `bot:random` by default).
    on_timeout: Literal["bot:random", "bot:greedy", "forfeit"] | None = None
    rated: bool = False  # the game's result moves its players' ratings
    # Seconds the challenge stays open (60 s to 30 days; default a day), by the server's clock.
    expires_in_s: Annotated[int, Meta(ge=60, le=30 * 86_400)] = DEFAULT_EXPIRY_S


class Keyed(NamedTuple):
    """A challenge after a request, and whether it was a retry answered again."""

    stream: Stream
    replayed: bool


def status(stream: Stream) -> str:
    """open | started | declined | cancelled | expired."""
    last = stream.events[-1][0]
    return {"created": "open", "accepted": "open"}.get(last, last)


def accepted(stream: Stream) -> list[str]:
    return [d["player"] for t, d in stream.events if t == "accepted"]


def summary(s: Stream) -> dict[str, Any]:
    """The challenge as the API shows it (api/challenges.py ChallengeOut) and the read
    model lists it (projections/competition.py)."""
    c = s.first()
    declined = s.last("declined")
    started = s.last("started")
    return {
        "id": s.id,
        "status": status(s),
        "challenger": c["challenger"],
        "players": c["players"],
        "accepted": accepted(s),
        "declined_by": declined["player"] if declined else None,
        "game": c["game"],
        "seats": c["seats"],
        "options": c["options"],
        "clock": c["clock"],
        "on_timeout": c["on_timeout"],
        "rated": c["rated"],
        "created_at": s.created_at,
        "expires_at": c["expires_at"],
        "game_id": started["game"] if started else None,
    }


class Listed(Protocol):
    """The read model's list of a player's challenges (projections/views.py)."""

    def challenges_of(self, player_id: str, limit: int) -> list[dict[str, Any]]: ...


def game_of(challenge_id: UUID) -> UUID:
    """The id of the game a challenge starts: the same in every process, for every retry."""
    return uuid.uuid5(NAMESPACE, f"challenge-game:{challenge_id}")


class ChallengeService:
    def __init__(self, games: Games, index: Listed) -> None:
        self.games = games
        self.store = games.store
        self.players = Players(games.store)
        self.index = index

    # ---- writes ------------------------------------------------------------------------

    def create(self, challenger: Player, new: NewChallenge, key: str | None = None) -> Keyed:
        config = self._config(challenger, new)
        challenge_id = keyed_game_id(challenger.id, "challenge:" + key) if key else uuid.uuid4()

        def decide(s: Stream | None, at: str) -> list[Any]:
            if s is not None:  # only a keyed create finds its stream: a retry?
                if {k: v for k, v in s.first().items() if k != "expires_at"} != config:
                    raise reused()
                return []
            expires = clocks.stamp(clocks.micros(at) + new.expires_in_s * 1_000_000)
            created = {"type": "created", **config, "expires_at": expires}
            events: list[Any] = chained(challenge_id, None, [created], CHALLENGE, at, key)
            about = {"challenge": str(challenge_id), "by": challenger.id, "game": new.game}
            events += [noticed(p, "challenge_received", challenge_id, about)
                       for p in config["players"]]  # fmt: skip
            return events

        written = self._run(challenge_id, decide, new=True)
        return Keyed(self.get(challenge_id), replayed=not written)

    def accept(self, player: Player, challenge_id: UUID, key: str | None = None) -> Keyed:
        def decide(s: Stream, at: str) -> list[dict[str, Any]]:
            self._open_to(s, player)
            if player.id in accepted(s):
                raise Conflict("already_accepted", "you have accepted this challenge already")
            events: list[dict[str, Any]] = [{"type": "accepted", "player": player.id}]
            if len(accepted(s)) + 1 == len(s.first()["players"]):
                events.append({"type": "started", "game": str(game_of(challenge_id))})
            return events

        done = self._write(challenge_id, decide, key, "accepted", player)
        self._start(done.stream, challenge_id)
        return done

    def decline(self, player: Player, challenge_id: UUID, key: str | None = None) -> Keyed:
        def decide(s: Stream, at: str) -> list[dict[str, Any]]:
            self._open_to(s, player)
            return [{"type": "declined", "player": player.id}]

        return self._write(challenge_id, decide, key, "declined", player)

    def cancel(self, player: Player, challenge_id: UUID, key: str | None = None) -> Keyed:
        def decide(s: Stream, at: str) -> list[dict[str, Any]]:
            if s.first()["challenger"] != player.id:
                raise Forbidden("not_challenger", "only the challenger cancels a challenge")
            _still_open(s)
            return [{"type": "cancelled", "player": player.id}]

        return self._write(challenge_id, decide, key, "cancelled", player)

    def made_with(self, challenger: Player, key: str) -> bool:
        """Whether `key` made a challenge of `challenger`'s already (a retry: not charged
        against the limit, so checked before the create)."""
        challenge_id = keyed_game_id(challenger.id, "challenge:" + key)
        return found(self.store, challenge_id, CHALLENGE) is not None

    # ---- reads -------------------------------------------------------------------------

    def get(self, challenge_id: UUID) -> Stream:
        """The challenge now: expired first if its time has passed, and its game made if a
        crash kept it from being made after the start."""
        s = read_stream(self.store, challenge_id, CHALLENGE, "challenge_not_found")
        if status(s) == "open" and self._lapsed(s):
            self._run(challenge_id, lambda now, at: self._expiry(now, at))
            s = read_stream(self.store, challenge_id, CHALLENGE, "challenge_not_found")
        self._start(s, challenge_id)
        return s

    def list_for(self, player: Player) -> list[dict[str, Any]]:
        """The player's challenges, received and sent, newest first (summaries). From the
        read model, so the list trails the log like every list (docs/api.md); but a row
        still open there after its `expires_at` is read from the store (`get`, which
        records the expiry): a lapsed challenge is never listed as open."""
        out = []
        now = clocks.micros(self.games.now())
        for row in self.index.challenges_of(player.id, MAX_LISTED):
            if row["status"] == "open" and now >= clocks.micros(row["expires_at"]):
                row = summary(self.get(UUID(row["id"])))
            out.append(row)
        return out

    # ---- inside ------------------------------------------------------------------------

    def _config(self, challenger: Player, new: NewChallenge) -> dict[str, Any]:
        game = get_game(new.game)
        if game is None:
            raise Unprocessable("unknown_game", f"no game named {new.game!r}")
        seats = new.seats if new.seats is not None else len(new.players) + 1
        if seats != len(new.players) + 1:
            raise Unprocessable("invalid_seats", "seats: one for you and one per player named")
        if not game.min_players <= seats <= game.max_players:
            raise Unprocessable(
                "invalid_seats", f"{new.game} seats {game.min_players}-{game.max_players} players"
            )
        if len(set(new.players)) != len(new.players) or challenger.id in new.players:
            raise Unprocessable(
                "invalid_players", "name each other player once, and not yourself", field="players"
            )
        names = []
        for pid in new.players:
            found_player = self.players.get(pid)
            if found_player is None:
                raise Unprocessable("unknown_player", f"no player {pid}", field="players")
            names.append(found_player.name)
        options, clock, policy = table_settings(game, new.options, seats, new.clock,
                                                new.on_timeout)  # fmt: skip
        return {
            "challenger": challenger.id,
            "challenger_name": challenger.name,
            "players": list(new.players),
            "names": names,
            "game": new.game,
            "seats": seats,
            "options": options,
            "clock": clock,
            "on_timeout": policy,
            "rated": new.rated,
        }

    def _lapsed(self, s: Stream, at: str | None = None) -> bool:
        now = clocks.micros(at or self.games.now())
        return now >= clocks.micros(s.first()["expires_at"])

    def _expiry(self, s: Stream | None, at: str) -> list[Any]:
        if s is None or status(s) != "open" or not self._lapsed(s, at):
            return []
        return [{"type": "expired", "expires_at": s.first()["expires_at"]}]

    def _open_to(self, s: Stream, player: Player) -> None:
        """The challenge is open and names `player` (403 `not_challenged`, 409 otherwise)."""
        if player.id not in s.first()["players"]:
            raise Forbidden("not_challenged", "this challenge does not name you")
        _still_open(s)

    def _start(self, s: Stream, challenge_id: UUID) -> None:
        """The started challenge's game, unless it exists (`Games.table` says None then)."""
        started = s.last("started")
        if started is None or self.games.reads.exists(UUID(started["game"])):
            return
        c = s.first()
        seated: list[tuple[str | None, str, str | None]] = [
            (c["challenger"], c["challenger_name"], None)
        ]
        seated += [(p, n, None) for p, n in zip(c["players"], c["names"], strict=True)]
        self.games.blocking(
            self.games.table(
                c["game"], seated, c["options"], c["clock"], c["on_timeout"],
                {"rated": c["rated"]}, UUID(started["game"]),
            )
        )  # fmt: skip

    def _write(
        self,
        challenge_id: UUID,
        decide: Callable[[Stream, str], list[dict[str, Any]]],
        key: str | None,
        kind: str,
        player: Player,
    ) -> Keyed:
        """A player's write: expired first when its time has passed (then refused as
        expired); a retry of a keyed request is answered again, another refused."""

        def events(s: Stream | None, at: str) -> list[Any]:
            assert s is not None
            asked = s.keys.get(key) if key is not None else None
            if asked is not None:
                if asked["type"] != kind or asked.get("player") != player.id:
                    raise reused()
                return []
            lapsed = self._expiry(s, at)
            if lapsed:
                return chained(challenge_id, s, lapsed, CHALLENGE, at)  # then refused
            made = decide(s, at)
            return chained(challenge_id, s, made, CHALLENGE, at, key)

        written = self._run(challenge_id, events, chain=False)
        s = read_stream(self.store, challenge_id, CHALLENGE, "challenge_not_found")
        if written and status(s) == "expired":
            _still_open(s)
        return Keyed(s, replayed=not written)

    def _run(
        self,
        challenge_id: UUID,
        decide: Callable[[Stream | None, str], list[Any]],
        new: bool = False,
        chain: bool = True,
    ) -> int:
        """One write of the challenge's stream through the write driver (decided in a
        worker thread on the stream as stored); how many events were saved. With `chain`,
        `decide` gives plain events ({"type": ...}) to chain; else stored ones."""

        async def read(fresh: bool) -> Stream | None:
            if new:
                return await self.games.writes.in_thread(found, self.store, challenge_id, CHALLENGE)
            return await self.games.writes.in_thread(
                read_stream, self.store, challenge_id, CHALLENGE, "challenge_not_found"
            )

        def decided(s: Stream | None, at: str) -> Decided | Answered:
            made = decide(s, at)
            if not made:
                return Answered(0)
            if chain and not new:
                made = chained(challenge_id, s, made, CHALLENGE, at)
            last = max(e.originator_version for e in made if e.originator_id == challenge_id)
            return Decided(made, lambda: len(made), streams=((challenge_id, last),))

        run = self.games.writes.run(
            challenge_id, read, decided, fresh_first=True, decide_in_thread=True
        )
        written: int = self.games.blocking(run)
        return written


def _still_open(s: Stream) -> None:
    """409 with why the challenge is no longer open."""
    now = status(s)
    if now == "started":
        raise Conflict("challenge_started", "everyone accepted: the game has started")
    if now == "declined":
        raise Conflict("challenge_declined", "the challenge was declined")
    if now == "cancelled":
        raise Conflict("challenge_cancelled", "the challenger cancelled the challenge")
    if now == "expired":
        raise Conflict("challenge_expired", "the challenge has expired")

"""What a player is told about its games (`GET /v1/players/me/stream`), derived event by
event from each game's fold, so that a bot can serve many games from one stream.

- `your_turn`: a seat the player holds is awaited and has not been told since its last
  decision (so every decision it must make is announced once, in order; a turn can be
  announced when the game awaits the seat only for a moment while a write is applied:
  a client checks `legal-moves`, which is empty then).
- `game_started`, `game_finished` (with the rank), `game_aborted`, `timed_out`, and
  `rematch_offered` (to the other players).

A notice's id is its event's position in the log times 32 plus its index among that
event's notices: ids grow with the log, are the same after a rebuild, and let a client
resume with `Last-Event-ID`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from service import clocks
from service.fold import GAME_ABORTED, GAME_FINISHED, REMATCH_OFFERED, TIMED_OUT, Fold

PER_EVENT = 32  # notices one event may cause, at most (two per seat of 16)


class Notice(msgspec.Struct, kw_only=True):
    id: int
    player: str
    kind: str
    game: str
    data: dict[str, Any]


class Told(msgspec.Struct):
    """Per game: the seats told it is their turn since their last decision."""

    seats: set[int] = msgspec.field(default_factory=set)


def notices(
    fold: Fold, e: Any, told: Told, started_before: bool
) -> list[tuple[str, str, dict[str, Any]]]:
    """(player, kind, data) for one event, just applied to `fold`."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    # Everyone who holds a seat hears how the game goes (a forfeited seat's player too);
    # only seats people play are told it is their turn.
    players = {s: p for s, p in enumerate(fold.players) if p is not None}
    if fold.started and not started_before:
        out += [(p, "game_started", {"seat": s}) for s, p in players.items()]
    if isinstance(e.seat, int) and e.command is not None:
        told.seats.discard(e.seat)  # its decision: the next turn is news again
    kind = e.type
    if kind == TIMED_OUT and e.data["seat"] in players:
        out.append((players[e.data["seat"]], "timed_out", {"seat": e.data["seat"]}))
    elif kind == GAME_FINISHED:
        ranks = fold.result.ranks if fold.result else []
        out += [(p, "game_finished", {"seat": s, "rank": ranks[s]}) for s, p in players.items()]
    elif kind == GAME_ABORTED:
        out += [(p, "game_aborted", {"seat": s}) for s, p in players.items()]
    elif kind == REMATCH_OFFERED:
        by = e.data["by"]
        rematch = {"rematch": e.data["game"], "by": by}
        out += [
            (p, "rematch_offered", {"seat": s, **rematch}) for s, p in players.items() if s != by
        ]
    awaited = set(fold.awaiting())
    told.seats &= awaited
    for seat in sorted(awaited - told.seats):
        if seat in players and seat not in fold.bots:
            told.seats.add(seat)
            deadline = fold.clock.deadline(seat) if fold.clock is not None else None
            out.append(
                (
                    players[seat],
                    "your_turn",
                    {
                        "seat": seat,
                        "version": fold.version,
                        "deadline": clocks.stamp(deadline) if deadline is not None else None,
                    },
                )
            )
    return out


encode = msgspec.json.Encoder().encode

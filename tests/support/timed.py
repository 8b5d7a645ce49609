"""Timed games in the service's tests: a Puerto Rico table with a Fischer clock, a person's
move, and the checks every timed export must pass (the audit, and the independent clock
oracle)."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import msgspec

from service.audit import export_lines, stored_lines, verify
from service.chain import GENESIS, line_hash
from service.fold import Fold
from service.players import Player
from service.store import EventStoreApp
from tests.support import clock_oracle
from tests.support.games import GameService

FISCHER = {"kind": "fischer", "initial_s": 60, "increment_s": 5}


def played(service: GameService, player: Player, fold: Fold, rng: random.Random) -> Fold:
    """The player's move, then the game once the bots have answered it."""
    seat = fold.seat_of(player.id)
    assert seat is not None
    legal = fold.game.legal_commands(fold.state, seat)
    move = msgspec.to_builtins(rng.choice(legal))
    service.move(player, fold.id, fold.version, move, f"k{fold.version}")
    return service.settled(fold.id)


def exported(service: GameService, store: EventStoreApp, game_id: UUID) -> list[dict[str, Any]]:
    lines = stored_lines(store, game_id)
    return list(export_lines(game_id, lines, service.seed_hex(game_id)))


def verified(service: GameService, store: EventStoreApp, game_id: UUID) -> None:
    service.settled(game_id)  # no bot is writing to it now
    lines = exported(service, store, game_id)
    report = verify(lines, service.seed_hex(game_id))
    assert report.verified, report
    assert clock_oracle.check(lines, service.seed_hex(game_id)) == []


def solo(
    service: GameService, player: Player, policy: str, seats: int = 3, clock: Any = None
) -> Fold:
    """Puerto Rico, `player` in seat 0 and bots elsewhere, a 60 s + 5 s clock (or `clock`):
    the game once the bots before the player have moved (at once: the fake clock stands
    still)."""
    bots = {s: "random" for s in range(1, seats)}
    created = service.create(player, "puerto-rico", seats, {}, bots, 0, clock or FISCHER, policy)
    fold = service.settled(created.id)
    assert fold.awaiting() == [0] and fold.bot_clocks
    return fold


def rehashed(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An export's event lines chained again after a rewrite, as anyone can: the audit must
    find a forgery by what the events say, not by a broken chain."""
    prev = GENESIS
    for line in lines[1:]:
        if "version" not in line:
            continue
        line["prev_hash"] = prev
        line["hash"] = line_hash(line)
        prev = line["hash"]
    return lines

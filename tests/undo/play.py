"""Playing a game with takebacks in the service tests: random moves by the people seated
(bots answer on their own) until seat 0's last decision can, or cannot, be taken back."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import msgspec

from service import undo
from service.fold import Fold
from service.players import Player
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.timed import FISCHER

GAMES = ["puerto-rico", "caylus", "plus-ultra", "santa-maria"]


@dataclass
class Found:
    fold: Fold  # the game right after seat 0's decision (bots answered)
    view: Any  # seat 0's view right before it
    legal: Any  # seat 0's legal moves right before it
    to_version: int


def table(
    service: GameService, people: list[Player], name: str, seats: int = 2, **created: Any
) -> Fold:
    """`name` with `people` in the first seats (timed, 60 s + 5 s), bots in the others."""
    bots = {s: "random" for s in range(len(people), seats)}
    args: tuple[Any, ...] = (name, seats, {}, bots, 0, FISCHER, "bot:random")
    fold = service.create(people[0], *args, **created)
    for seat, player in enumerate(people[1:], start=1):
        service.join(player, fold.id, seat)
    return service.settled(fold.id)


def shown(fold: Fold, seat: int) -> tuple[Any, Any]:
    game = fold.game
    view = msgspec.to_builtins(game.view(fold.state, seat))
    return view, msgspec.to_builtins(list(game.legal_commands(fold.state, seat)))


def play_until(
    service: GameService,
    clock: FakeClock,
    people: list[Player],
    fold: Fold,
    seed: int,
    want: str | None,
    limit: int = 400,
) -> Found:
    """Random moves (`seed`) until seat 0's last decision is one whose takeback `refusal`
    is `want` (None: allowed)."""
    rng = random.Random(seed)
    for _ in range(limit):
        assert not fold.over, f"seed {seed}: the game ended first"
        seat = next((s for s in fold.awaiting() if s < len(people)), None)
        assert seat is not None, f"seed {seed}: nobody to play at {fold.version}"
        view, legal = shown(fold, seat)
        move = msgspec.to_builtins(rng.choice(fold.game.legal_commands(fold.state, seat)))
        clock.advance(rng.randint(1, 3))
        before = fold.version
        service.move(people[seat], fold.id, before, move, f"m{before}")
        fold = service.settled(fold.id)
        settled = seat == 0 and fold.bot_turn() is None and not fold.over
        if settled and undo.refusal(fold.game, fold.takeback, 0, fold.state) == want:
            return Found(fold, view, legal, before)
    raise AssertionError(f"seed {seed}: no decision with refusal {want} in {limit} moves")

"""Pure in-memory play loop: bots play a whole game, no store. Used by selfplay, property
tests and bot evaluations. Versions here count domain events only (the service's versions also
count its own events), which changes the random stream but not its determinism."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain.contract import Bot, Game, Result, SeatInfo
from domain.randomness import rng_for


class Played(msgspec.Struct, kw_only=True):
    state: Any
    events: list[Any]
    result: Result | None
    moves: int


def play(
    game: Game[Any, Any],
    options: Any,
    bots: Sequence[Bot],
    seed: bytes,
    *,
    max_moves: int = 100_000,
    on_decision: Callable[[Any, int, Any], None] | None = None,
    on_event: Callable[[Any, Any], None] | None = None,
) -> Played:
    """Play one game with `bots[seat]` choosing for each seat until `result` is not None.

    `on_decision(state, seat, command)` runs before each command is decided (property tests
    hook their checks there); `on_event(state, event)` after each event is applied.
    """
    seats = len(bots)
    game.validate_options(options, seats)
    state = game.initial(options, seats)
    events: list[Any] = []

    def apply(new: list[Any]) -> None:
        nonlocal state
        for event in new:
            state = game.evolve(state, event)
            events.append(event)
            if on_event is not None:
                on_event(state, event)

    apply(game.setup(options, seats, rng_for(seed, 0)))
    moves = 0
    while game.result(state) is None:
        awaited = game.awaiting(state)
        if not awaited:
            raise RuntimeError(f"{game.name}: no seat awaited but no result")
        if moves >= max_moves:
            raise RuntimeError(f"{game.name}: no end after {max_moves} moves")
        seat = awaited[0]
        info = SeatInfo.of(game, state, seat)  # the bot never holds the true state
        command = bots[seat](game, info, rng_for(seed, len(events), f"bot{seat}"))
        if on_decision is not None:
            on_decision(state, seat, command)
        apply(game.decide(state, seat, command, rng_for(seed, len(events))))
        moves += 1
    return Played(state=state, events=events, result=game.result(state), moves=moves)

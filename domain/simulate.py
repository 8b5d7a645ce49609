"""Pure in-memory play loop: bots play a whole game, no store. Used by selfplay, property
tests, bot evaluations and benchmarks.

One random generator per game, seeded from the game's seed, serves the rules and every bot
in turn: the same seed plays the same game, and nothing stored depends on this stream. The
service draws as audits re-run a game instead: a generator per version from
`rng_for(seed, version)`; `per_version=True` plays that way (two SHA-256 seeded generators a
move, about a third of a random game's time), so that the recorded commands, re-run through
`decide` with `rng_for(seed, version)`, reproduce every event."""

from __future__ import annotations

import random
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
    per_version: bool = False,
) -> Played:
    """Play one game with `bots[seat]` choosing for each seat until `result` is not None.

    `on_decision(state, seat, command)` runs before each command is decided (property tests
    hook their checks there); `on_event(state, event)` after each event is applied.
    `per_version`: draw as the service does (the module docstring says why and what for).
    """
    seats = len(bots)
    game.validate_options(options, seats)
    rng = random.Random(seed)

    def rules_rng() -> random.Random:
        return rng_for(seed, len(events)) if per_version else rng

    def bot_rng(seat: int) -> random.Random:
        return rng_for(seed, len(events), f"bot{seat}") if per_version else rng

    state = game.initial(options, seats)
    events: list[Any] = []

    def apply(new: list[Any]) -> None:
        nonlocal state
        for event in new:
            state = game.evolve(state, event)
            events.append(event)
            if on_event is not None:
                on_event(state, event)

    apply(game.setup(options, seats, rules_rng()))
    moves = 0
    while game.result(state) is None:
        awaited = game.awaiting(state)
        if not awaited:
            raise RuntimeError(f"{game.name}: no seat awaited but no result")
        if moves >= max_moves:
            raise RuntimeError(f"{game.name}: no end after {max_moves} moves")
        seat = awaited[0]
        info = SeatInfo.of(game, state, seat)  # the bot never holds the true state
        command = bots[seat](game, info, bot_rng(seat))
        if on_decision is not None:
            on_decision(state, seat, command)
        if on_event is None:  # the state `decide` evolved, not every event applied again
            new, state = game.decide_evolve(state, seat, command, rules_rng())
            events.extend(new)
        else:
            apply(game.decide(state, seat, command, rules_rng()))
        moves += 1
    return Played(state=state, events=events, result=game.result(state), moves=moves)

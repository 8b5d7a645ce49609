"""What a seat may see. Santa Maria has no private information: every seat and a
spectator see the same view. Hidden are only the orders of the ship stack and of the two
expansion stacks, shown once the game is over."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.santa_maria import events as ev
from domain.santa_maria.state import (
    Decision,
    Phase,
    PlayerState,
    SantaMariaOptions,
    SantaMariaState,
    clone,
)


class SantaMariaView(msgspec.Struct, kw_only=True):
    seats: int
    options: SantaMariaOptions
    phase: Phase
    year: int
    start_player: int
    active: int
    awaiting: list[int]
    draft_order: list[int]
    players: list[PlayerState]
    main_done: bool
    queue: list[str]
    pending: Decision | None
    white_pool: list[int]
    blue_supply: int
    docks: list[str]
    ship_stack_count: int
    double_stack_count: int
    triple_stack_count: int
    display_doubles: list[str]
    display_triples: list[str]
    out_of_game: list[str]
    road_stack: int
    retire_spaces: dict[str, int]
    retire_order: list[int]
    scholars: list[str]
    bishops: list[str]
    monks: dict[str, list[int]]
    conquistador_history: list[list[int]]
    # Revealed only once the game is over (None before).
    ship_stack: list[str] | None = None
    double_stack: list[str] | None = None
    triple_stack: list[str] | None = None


def view(s: SantaMariaState, seat: int | None) -> SantaMariaView:
    over = s.phase == "over"
    c = clone(s)  # a copy, so callers cannot mutate the state through the view
    return SantaMariaView(
        seats=c.seats,
        options=c.options,
        phase=c.phase,
        year=c.year,
        start_player=c.start_player,
        active=c.active,
        awaiting=[c.active] if c.phase in ("draft", "play") and c.active >= 0 else [],
        draft_order=c.draft_order,
        players=c.players,
        main_done=c.main_done,
        queue=c.queue,
        pending=c.pending,
        white_pool=c.white_pool,
        blue_supply=c.blue_supply,
        docks=c.docks,
        ship_stack_count=len(c.ship_stack),
        double_stack_count=len(c.double_stack),
        triple_stack_count=len(c.triple_stack),
        display_doubles=c.display_doubles,
        display_triples=c.display_triples,
        out_of_game=c.out_of_game,
        road_stack=c.road_stack,
        retire_spaces=c.retire_spaces,
        retire_order=c.retire_order,
        scholars=c.scholars,
        bishops=c.bishops,
        monks=c.monks,
        conquistador_history=c.conquistador_history,
        ship_stack=c.ship_stack if over else None,
        double_stack=c.double_stack if over else None,
        triple_stack=c.triple_stack if over else None,
    )


def redact(event: Any, seat: int | None) -> Any:
    """Blank the stack orders; the same for every seat (nobody holds private information).
    GameEnded reveals the remaining orders: it is only served once the game is over."""
    if type(event) is ev.ShipStackShuffled:
        return ev.ShipStackShuffled(count=event.count, order=None)
    if type(event) is ev.ExpansionStacksShuffled:
        return ev.ExpansionStacksShuffled(
            doubles_count=event.doubles_count,
            triples_count=event.triples_count,
            doubles=None,
            triples=None,
        )
    return event

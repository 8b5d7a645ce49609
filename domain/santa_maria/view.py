"""What a seat may see. Santa Maria has no private information: every seat and a
spectator see the same view. Hidden are only the orders of the ship stack and of the two
expansion stacks, shown once the game is over."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.enums import one_of
from domain.santa_maria import data
from domain.santa_maria import events as ev
from domain.santa_maria.state import (
    BishopId,
    Decision,
    DoubleTile,
    Effect,
    MonkSpace,
    Phase,
    PlayerState,
    RetireSpace,
    SantaMariaOptions,
    SantaMariaState,
    ScholarId,
    StandardShip,
    TileId,
    TripleTile,
    clone,
)


class SantaMariaView(msgspec.Struct, kw_only=True):
    seats: int  # number of players (2..4)
    options: SantaMariaOptions  # the options the game was created with
    # setup, draft (boards being chosen), play, year_end (between the years), over
    phase: Phase
    year: int  # the current year, 1..3
    start_player: int  # the seat that started this year
    active: int  # the seat to move (or to draft a board); -1 when nobody (the game is over)
    awaiting: list[int]  # seats whose command is awaited: the active seat in draft/play, else []
    # Seats still to choose a colony board, the next first (empty outside the draft).
    draft_order: list[int]
    players: list[PlayerState]  # every player's colony and holdings, by seat
    main_done: bool  # the active player has taken this turn's main action
    queue: list[Effect]  # atomic effects still to resolve this turn, the next first
    pending: Decision | None  # the active player's decision to answer; None: nothing pending
    white_pool: list[int]  # faces (1..6) of the white dice still in the common pool, ascending
    blue_supply: int  # blue dice not yet owned by a player
    # Ship tile waiting at each common-board dock, docks 1..4; "" an empty dock (stack empty).
    docks: list[Annotated[str, one_of(("", *data.SHIPS))]]
    ship_stack_count: int  # ship tiles left in the face-down ship stack
    double_stack_count: int  # double tiles left in the face-down stack
    triple_stack_count: int  # triple tiles left in the face-down stack
    display_doubles: list[DoubleTile]  # double tiles of this year's display, left to take
    display_triples: list[TripleTile]  # triple tiles of this year's display, left to take
    # Expansion tiles out of the game (left in an earlier year's display), in discard order.
    out_of_game: list[TileId]
    road_stack: int  # road tiles left on retire space RS5 (3 at the start, never refilled)
    # The seat on each retire space this year, keyed by space; -1: vacant.
    retire_spaces: dict[RetireSpace, int]
    retire_order: list[int]  # seats that retired this year, first to retire first
    scholars: list[ScholarId]  # the scholar tiles over scholar-1..3, in that order
    bishops: list[BishopId]  # the bishop tiles over bishop-1..3, in that order
    # Seats with a monk on each monk space, keyed by space, in recruitment order.
    monks: dict[MonkSpace, list[int]]
    # Year-end conquistador points: one list per year scored, each by seat.
    conquistador_history: list[list[int]]
    # Revealed only once the game is over (None before): the ship stack, top first.
    ship_stack: list[StandardShip] | None = None
    # The double tiles left in their stack, top first, once the game is over (None before).
    double_stack: list[DoubleTile] | None = None
    # The triple tiles left in their stack, top first, once the game is over (None before).
    triple_stack: list[TripleTile] | None = None


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

"""One readable line per event, as `seat` (None: a spectator) may see it while the game runs.
The event is redacted first, so a line never tells a stack order before the end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.narrate import (
    amounts,
    by_seat,
    described,
    does,
    game_over,
    listing,
    name,
    plural,
    seats,
    who,
    whose,
)
from domain.santa_maria import events as E
from domain.santa_maria.view import redact


def _cells(cells: list[list[int]]) -> str:
    return listing(f"row {c[0]} col {c[1]}" for c in cells if len(c) >= 2)


def _effects(effects: list[str]) -> str:
    return f": {listing(effects)}" if effects else ""


# A pending decision as the verb phrase of "may ..." and "declined to ...".
DECISIONS = {
    "trade": "trade",
    "ship": "ship",
    "religion": "advance on the religion track",
    "conquistador": "advance the conquistador",
    "recruit": "recruit a monk",
    "road": "build a road",
}


def _decision(kind: str) -> str:
    return DECISIONS.get(kind, name(kind))


LINES: dict[type, Callable[[Any, int | None], str]] = {
    E.StartPlayerChosen: lambda e, v: f"{does(e.seat, v, 'is')} the start player.",
    E.StartingShipsPlaced: lambda e, v: f"Ships at the docks: {listing(e.docks)}.",
    E.MonkTilesDrawn: lambda e, v: (
        f"Scholars {listing(e.scholars)}; bishops " + f"{listing(e.bishops)}."
    ),
    E.ShipStackShuffled: lambda e, v: f"The ship stack ({plural(e.count, 'ship')}) was shuffled.",
    E.ExpansionStacksShuffled: lambda e, v: (
        f"The expansion stacks ({e.doubles_count} doubles, "
        + f"{e.triples_count} triples) were shuffled."
    ),
    E.DisplayDealt: lambda e, v: (
        f"Year {e.year} display: doubles {listing(e.doubles)}; "
        + f"triples {listing(e.triples)}"
        + (f"; leaving the game: {listing(e.discarded)}." if e.discarded else ".")
    ),
    E.WhiteDiceRolled: lambda e, v: f"Year {e.year} white dice: {listing(e.faces)}.",
    E.ColoniesDealt: lambda e, v: "Colony boards: " + by_seat([name(b) for b in e.boards], v) + ".",
    E.DraftStarted: lambda e, v: f"Colony draft order: {seats(e.order, v)}.",
    E.ColonyChosen: lambda e, v: f"{who(e.seat, v)} chose the {name(e.board)} colony.",
    E.StartingGoodsGiven: lambda e, v: (
        "Starting goods: "
        + "; ".join(
            f"{does(s, v, 'gets', False)} {w} wood and {plural(c, 'coin')}"
            for s, (w, c) in enumerate(zip(e.wood, e.coins, strict=False))
        )
        + "."
    ),
    E.BlueDiceRolled: lambda e, v: (
        f"Year {e.year} blue dice: "
        + ", ".join(
            f"{whose(r[0], v, False)} die {r[1]} shows {r[2]}" for r in e.rolls if len(r) >= 3
        )
        + "."
    ),
    E.YearStarted: lambda e, v: (
        f"Year {e.year} begins; {does(e.start_player, v, 'starts', False)}."
    ),
    E.ResourcesSold: lambda e, v: (
        f"{who(e.seat, v)} sold {e.count} {name(e.resource)} for " + f"{plural(e.coins, 'coin')}."
    ),
    E.ResourcesBought: lambda e, v: (
        f"{who(e.seat, v)} bought {e.count} {name(e.resource)} for " + f"{plural(e.coins, 'coin')}."
    ),
    E.AlchemyUsed: lambda e, v: (
        f"{who(e.seat, v)} turned {name(e.pay)} into {name(e.gain)} " + "(alchemy)."
    ),
    E.TilePlaced: lambda e, v: (
        f"{who(e.seat, v)} placed {name(e.tile)} on {_cells(e.cells)}, "
        + f"paying {amounts(e.paid)}."
    ),
    E.BuildingActivated: lambda e, v: (
        f"{who(e.seat, v)} activated row {e.row} col {e.col} "
        + f"for {plural(e.price, 'coin')}{_effects(e.effects)}."
    ),
    E.DieActivated: lambda e, v: (
        f"{who(e.seat, v)} used a {name(e.die)} die ({e.face}"
        + (f", set to {e.value} for {plural(e.cost, 'coin')}" if e.value != e.face else "")
        + f") on {_cells(e.cells)}{_effects(e.effects)}."
    ),
    E.Retired: lambda e, v: (
        f"{who(e.seat, v)} retired to {name(e.space)} " + f"(#{e.position}){_effects(e.effects)}."
    ),
    E.ShippingIncomeQueued: lambda e, v: (
        f"{does(e.seat, v, 'collects')} shipping income{_effects(e.effects)}."
    ),
    E.EffectStarted: lambda e, v: f"{does(e.seat, v, 'resolves')} {name(e.effect)}.",
    E.ResourceGained: lambda e, v: (
        f"{who(e.seat, v)} gained {e.kept} {name(e.resource)}"
        + (f", sold {e.sold} for {plural(e.coins, 'coin')}." if e.sold else ".")
    ),
    E.CoinsGained: lambda e, v: f"{who(e.seat, v)} gained {plural(e.amount, 'coin')}.",
    E.PointsScored: lambda e, v: (
        f"{who(e.seat, v)} scored {plural(e.amount, 'point')} " + f"({name(e.reason)})."
    ),
    E.DecisionOpened: lambda e, v: (
        f"{who(e.seat, v)} may {_decision(e.decision)}"
        + (f" at the {name(e.building)}" if e.building else "")
        + "."
    ),
    E.Declined: lambda e, v: f"{who(e.seat, v)} declined to {_decision(e.decision)}.",
    E.Traded: lambda e, v: (
        f"{who(e.seat, v)} traded 1 {name(e.pay)} for {e.amount} {name(e.gain)}."
    ),
    E.Shipped: lambda e, v: (
        f"{who(e.seat, v)} shipped {name(e.tile)} from dock {e.dock}, "
        + f"paying {amounts(e.paid)}."
    ),
    E.DockRefilled: lambda e, v: (
        f"Dock {e.dock} " + (f"gets {name(e.tile)}." if e.tile else "stays empty (no ship left).")
    ),
    E.ReligionAdvanced: lambda e, v: (
        f"{who(e.seat, v)} advanced on the religion track from "
        + f"{e.from_space} to {e.to_space}"
        + (f" ({plural(e.lost_steps, 'lost step')} scored)" if e.lost_steps else "")
        + "."
    ),
    E.ConquistadorAdvanced: lambda e, v: (
        f"{who(e.seat, v)} advanced the conquistador from " + f"{e.from_space} to {e.to_space}."
    ),
    E.BlueDieUnlocked: lambda e, v: (
        f"{who(e.seat, v)} unlocked blue die {e.index} "
        + f"showing {e.value}"
        + (" (usable next year)." if e.locked else ".")
    ),
    E.MonkRecruited: lambda e, v: f"{who(e.seat, v)} recruited a monk to {name(e.space)}.",
    E.RoadPlaced: lambda e, v: f"{who(e.seat, v)} built a road at row {e.row} col {e.col}.",
    E.TurnEnded: lambda e, v: (
        f"{who(e.seat, v)} ended the turn"
        + (f"; {does(e.next, v, 'is', False)} next." if e.next >= 0 else "; the year ends.")
    ),
    E.ConquistadorScored: lambda e, v: (
        f"Year {e.year} conquistadors: " + by_seat([plural(p, "point") for p in e.points], v) + "."
    ),
    E.YearCleanedUp: lambda e, v: f"Year {e.year} ends.",
    E.GameEnded: lambda e, v: game_over(e.scores, v),
}


def describe(event: Any, seat: int | None) -> str:
    return described(LINES, redact, event, seat)

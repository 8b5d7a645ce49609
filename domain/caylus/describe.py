"""One readable line per event, as `seat` (None: a spectator) may see it. Caylus hides
nothing; the event still goes through `redact` first, like every game's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.caylus import events as E
from domain.caylus.view import redact
from domain.narrate import (
    article,
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

CUBES = {"F": "food", "W": "wood", "S": "stone", "C": "cloth", "G": "gold"}
ROWS = {"a": "prestige", "b": "deniers", "c": "resources", "d": "buildings"}
SECTIONS = {0: "dungeon", 1: "walls", 2: "towers"}
PHASES = {
    1: "income",
    2: "placement",
    3: "special buildings",
    4: "provost",
    5: "road",
    6: "castle",
    7: "end of turn",
}


def _auto(e: Any) -> str:
    return " (the only option)" if getattr(e, "auto", False) else ""


def _target(t: int | str) -> str:
    return f"road space {t}" if isinstance(t, int) else f"the {name(t)}"


def _cubes(code: str) -> str:
    """A choice or batch of cubes by their letters ("FWS" -> "food, wood and stone"), or the
    choice as it is (a building to build: "wood peddler")."""
    if code and all(c in CUBES for c in code):
        return listing(CUBES[c] for c in code)
    return name(code)


def _changed(e: E.ResourcesChanged, v: int | None) -> str:
    fields = ["food", "wood", "stone", "cloth", "gold", "prestige"]
    amounts = [("denier", e.deniers, True)] + [(f, getattr(e, f), False) for f in fields]
    bits = [
        ("+" if n > 0 else "") + (plural(n, f) if counted else f"{n} {f}")
        for f, n, counted in amounts
        if n
    ]
    return f"{who(e.seat, v)}: {', '.join(bits) or 'no change'} ({name(e.reason)})."


def _activated(e: E.Activated, v: int | None) -> str:
    choice = "declined" if e.choice == "none" else _cubes(e.choice)
    return (
        f"{who(e.seat, v)} used the {name(e.tile)} on space {e.space}: "
        f"{name(e.action)}, {choice}{_auto(e)}."
    )


def _section(n: int) -> str:
    return SECTIONS.get(n, f"section {n}")


LINES: dict[type, Callable[[Any, int | None], str]] = {
    E.TurnOrderDrawn: lambda e, v: f"Turn order drawn: {seats(e.order, v)}.",
    E.RoadSetUp: lambda e, v: f"Neutral buildings on the road: {listing(e.neutral)}.",
    E.ResourcesChanged: _changed,
    E.TurnStarted: lambda e, v: f"Turn {e.turn} begins.",
    E.PhaseStarted: lambda e, v: f"Phase {e.phase}: {PHASES.get(e.phase, 'phase')}.",
    E.WorkerPlaced: lambda e, v: (
        f"{who(e.seat, v)} placed a worker on {_target(e.target)} "
        + f"for {plural(e.cost, 'denier')}{_auto(e)}."
    ),
    E.Passed: lambda e, v: f"{who(e.seat, v)} passed (position {e.position}){_auto(e)}.",
    E.GateMoved: lambda e, v: (
        f"{who(e.seat, v)} moved the gate worker to "
        + ("nowhere: it returns" if e.target == "none" else _target(e.target))
        + f"{_auto(e)}."
    ),
    E.TradingPostUsed: lambda e, v: f"{who(e.seat, v)} used the trading post.",
    E.ProvostMoved: lambda e, v: (
        f"{who(e.seat, v)} moved the provost {e.delta:+d} to space "
        + f"{e.position} ({name(e.source)}){_auto(e)}."
    ),
    E.JoustResolved: lambda e, v: (
        f"{who(e.seat, v)} " + ("jousted" if e.accepted else "declined to joust") + f"{_auto(e)}."
    ),
    E.StablesResolved: lambda e, v: f"Stables: new turn order {seats(e.order, v)}.",
    E.InnResolved: lambda e, v: (
        f"Inn: {who(e.moved, v, False)} moved to the right space"
        + (f"; {whose(e.returned, v, False)} worker returned." if e.returned >= 0 else ".")
    ),
    E.InnDecided: lambda e, v: (
        does(e.seat, v, "stays" if e.stay else "leaves") + f" the inn{_auto(e)}."
    ),
    E.Activated: _activated,
    E.OwnerBonusTaken: lambda e, v: (
        f"{who(e.seat, v)} took {article(_cubes(e.cube))} cube as owner of space "
        + f"{e.space}{_auto(e)}."
    ),
    E.WorkerReturned: lambda e, v: f"{whose(e.seat, v)} worker returned from space {e.space}.",
    E.SweepEnded: lambda e, v: (
        "Road done"
        + (
            f"; workers beyond the provost returned from {listing(e.returned)}."
            if e.returned
            else "."
        )
    ),
    E.TileBuilt: lambda e, v: (
        f"{who(e.seat, v)} built {article(e.tile)} on space {e.space}"
        + (f", replacing {article(e.replaced)}." if e.replaced else ".")
    ),
    E.TransformationScheduled: lambda e, v: (
        f"{who(e.seat, v)} will turn space {e.space} into " + "a residence (lawyer)."
    ),
    E.Transformed: lambda e, v: (
        f"{who(e.seat, v)} turned the {name(e.removed)} on space " + f"{e.space} into a residence."
    ),
    E.FavoursGained: lambda e, v: (
        f"{who(e.seat, v)} earned {plural(e.count, 'favour')} " + f"({name(e.reason)})."
    ),
    E.FavourTaken: lambda e, v: (
        f"{who(e.seat, v)} took a favour on the "
        + f"{ROWS.get(e.row, e.row)} row (column {e.marker})"
        + (", effect declined" if e.column == 0 else "")
        + f"{_auto(e)}."
    ),
    E.FavourLost: lambda e, v: f"{who(e.seat, v)} lost a favour (no row left).",
    E.BatchDelivered: lambda e, v: (
        f"{who(e.seat, v)} built a house in the "
        + f"{_section(e.section)} ({_cubes(e.batch)}){_auto(e)}."
    ),
    E.CastleDone: lambda e, v: (
        does(e.seat, v, "is") + f" done at the castle: {plural(e.batches, 'batch')}{_auto(e)}."
    ),
    E.CastleResolved: lambda e, v: (
        "Castle done"
        + (
            f"; {does(e.best_builder, v, 'is', False)} the best builder."
            if e.best_builder >= 0
            else "; nobody built."
        )
    ),
    E.BailiffMoved: lambda e, v: (
        f"The bailiff moves to space {e.bailiff}; the provost returns " + f"to space {e.provost}."
    ),
    E.SectionScoringStarted: lambda e, v: f"Scoring of the {_section(e.section)}.",
    E.SectionScored: lambda e, v: (
        f"{who(e.seat, v)}: {plural(e.houses, 'house')} in the "
        + f"{_section(e.section)}, {plural(e.favours, 'favour')}."
    ),
    E.SectionClosed: lambda e, v: f"The {_section(e.section)} section is closed.",
    E.TurnEnded: lambda e, v: f"Turn {e.turn} ends; next order {seats(e.order, v)}.",
    E.GameEnded: lambda e, v: game_over(e.scores, v, "Prestige"),
}


def describe(event: Any, seat: int | None) -> str:
    return described(LINES, redact, event, seat)

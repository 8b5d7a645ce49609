"""One readable line per event, as `seat` (None: a spectator) may see it while the game runs.
The event is redacted for that seat first, so a line never tells what `redact` hides (the
stack order, a forest's identity, a hacienda tile awaiting its placement)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.narrate import (
    amounts,
    article,
    by_seat,
    described,
    does,
    game_over,
    listing,
    name,
    plural,
    seats,
    who,
)
from domain.puerto_rico import events as E
from domain.puerto_rico.view import redact


def _settled(e: E.Settled, v: int | None) -> str:
    what = {
        "face_up": f"a face-up {name(e.tile)} plantation",
        "quarry": "a quarry",
        "forest": "a forest",
    }.get(e.source, name(e.tile))
    extra = ""
    if e.hospice:
        extra += f", with a colonist from the {e.hospice} (hospice)"
    if e.library:
        extra += " (library)"
    return f"{who(e.seat, v)} took {what}{extra}."


def _built(e: E.Built, v: int | None) -> str:
    line = f"{who(e.seat, v)} built {article(e.building)} for {plural(e.paid, 'doubloon')}"
    if e.university:
        line += f", manned from the {e.university} (university)"
    if e.black_market is not None:
        line += " using the black market"
    if e.church_vp:
        line += f", church +{e.church_vp} VP"
    if e.city_full:
        line += "; the city is full"
    return line + "."


def _hacienda_drawn(e: E.HaciendaDrawn, v: int | None) -> str:
    tile = f"a tile ({name(e.tile)})" if e.tile else "a tile"
    then = "to place" if e.pending else "and placed it as a plantation"
    return f"{who(e.seat, v)} drew {tile} with the hacienda {then}."


def _hacienda_placed(e: E.HaciendaPlaced, v: int | None) -> str:
    if e.as_forest:
        return f"{who(e.seat, v)} placed the hacienda tile face down as a forest."
    return f"{who(e.seat, v)} placed the hacienda's {name(e.tile or 'tile')} plantation."


def _produced(e: E.Produced, v: int | None) -> str:
    goods = sum(e.goods)
    line = f"{who(e.seat, v)} produced {plural(goods, 'barrel')}"
    if e.factory:
        line += f", factory +{e.factory}"
    if e.specialty:
        line += f", specialty +{e.specialty}"
    return line + "."


LINES: dict[type, Callable[[Any, int | None], str]] = {
    E.GovernorChosen: lambda e, v: f"{does(e.seat, v, 'is')} the first governor.",
    E.StackShuffled: lambda e, v: f"The plantation stack ({plural(e.size, 'tile')}) was shuffled.",
    E.RowDrawn: lambda e, v: f"Face-up plantations drawn: {listing(e.tiles)}.",
    E.RowDiscarded: lambda e, v: f"Unused plantations discarded: {listing(e.tiles)}.",
    E.TurnStarted: lambda e, v: f"{who(e.seat, v)} to act ({name(e.step)}).",
    E.BuildingDrafted: lambda e, v: f"{who(e.seat, v)} drafted the {name(e.building)}.",
    E.DraftFinished: lambda e, v: f"Draft over; removed: {listing(e.removed)}.",
    E.RoundStarted: lambda e, v: (
        f"Round {e.round} begins; {does(e.governor, v, 'is', False)} the governor."
    ),
    E.RoleChosen: lambda e, v: (
        f"{who(e.seat, v)} chose the {name(e.role)}"
        + (f" and took {plural(e.doubloons, 'doubloon')}." if e.doubloons else ".")
    ),
    E.HaciendaDrawn: _hacienda_drawn,
    E.HaciendaPlaced: _hacienda_placed,
    E.Settled: _settled,
    E.Passed: lambda e, v: f"{who(e.seat, v)} passed ({name(e.step)}).",
    E.ColonistsDistributed: lambda e, v: "Colonists handed out: " + by_seat(e.counts, v) + ".",
    E.ColonistsPlaced: lambda e, v: (
        f"{who(e.seat, v)} placed colonists"
        + (f" (+{e.privilege} mayor's privilege)" if e.privilege else "")
        + f"; {e.san_juan} in San Juan."
    ),
    E.ColonistShipRefilled: lambda e, v: (
        f"The colonist ship takes {plural(e.count, 'colonist')}"
        + (" (the supply ran out: last round)." if e.end_triggered else ".")
    ),
    E.Built: _built,
    E.Produced: _produced,
    E.CraftsmanBonusTaken: lambda e, v: (
        f"{who(e.seat, v)} took the craftsman's bonus " + f"{listing(e.goods)}."
    ),
    E.Sold: lambda e, v: (
        f"{who(e.seat, v)} sold {name(e.good)} ({name(e.venue)}) for "
        + f"{plural(e.price, 'doubloon')}."
    ),
    E.TradingHouseEmptied: lambda e, v: f"The trading house was emptied ({listing(e.goods)}).",
    E.LighthousePaid: lambda e, v: f"{who(e.seat, v)} got a doubloon from the lighthouse.",
    E.UnionHallScored: lambda e, v: f"{who(e.seat, v)} scored {e.vp} VP with the union hall.",
    E.Loaded: lambda e, v: (
        f"{who(e.seat, v)} shipped {e.count} {name(e.good)} on ship "
        + f"{e.ship + 1} for {e.vp} VP"
        + (f" and {plural(e.doubloons, 'doubloon')}." if e.doubloons else ".")
    ),
    E.WharfShipped: lambda e, v: (
        f"{who(e.seat, v)} shipped {e.count} {name(e.good)} with the " + f"wharf for {e.vp} VP."
    ),
    E.SmallWharfShipped: lambda e, v: (
        f"{who(e.seat, v)} shipped {amounts(e.goods)} with the " + f"small wharf for {e.vp} VP."
    ),
    E.GoodsStored: lambda e, v: (
        f"{who(e.seat, v)} kept {amounts(e.keep)}; returned " + f"{amounts(e.returned)}."
    ),
    E.ShipsUnloaded: lambda e, v: (
        "Full ships unloaded: " + listing(f"ship {i + 1}" for i in e.ships) + "."
    ),
    E.PhaseEnded: lambda e, v: f"The {name(e.role)} phase ends.",
    E.GuestWindowOpened: lambda e, v: (
        f"Guest house moves open for {seats(e.seats, v)} " + f"(before {name(e.before)})."
    ),
    E.GuestMoved: lambda e, v: f"{who(e.seat, v)} moved a guest to the {name(e.to)}.",
    E.GuestsFinished: lambda e, v: f"{who(e.seat, v)} finished moving guests.",
    E.Prospected: lambda e, v: f"{who(e.seat, v)} prospected {plural(e.doubloons, 'doubloon')}.",
    E.RoundEnded: lambda e, v: (
        "Round over" + (f"; bonus doubloons on {listing(e.bonus)}." if e.bonus else ".")
    ),
    E.GameEnded: lambda e, v: game_over(e.scores, v),
}


def describe(event: Any, seat: int | None) -> str:
    return described(LINES, redact, event, seat)

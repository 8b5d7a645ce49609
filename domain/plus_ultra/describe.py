"""One readable line per event, as `seat` (None: a spectator) may see it while the game runs.
The event is redacted for that seat first, so a line never tells a stack order, another
seat's character pick, war commitment or estate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.narrate import (
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
from domain.plus_ultra import events as E
from domain.plus_ultra.view import redact

# A yes/no parameter in words: (when true, when false).
FLAGS = {
    "tired": ("tired tercio", "active tercio"),
    "rose_window": ("a rose window", "no rose window"),
}


def _params(p: Any) -> list[str]:
    import msgspec

    given = {k: x for k, x in msgspec.structs.asdict(p).items() if x is not None}
    return [
        FLAGS.get(k, (name(k), f"no {name(k)}"))[0 if x else 1]
        if isinstance(x, bool)
        else f"{name(k)} {name(x)}"
        for k, x in given.items()
    ]


def _action(e: Any, v: int | None, what: str, details: list[str]) -> str:
    details = details + _params(e.params)
    return (
        f"{who(e.seat, v)} {what}"
        + (f" ({'; '.join(details)})" if details else "")
        + (" with a bull" if e.bull else "")
        + "."
    )


def _auto(e: Any) -> str:
    return " (automatic)" if getattr(e, "automatic", False) else ""


def _picked(e: E.CharacterPicked, v: int | None) -> str:
    what = f"the {name(e.character)}" if e.character else "a character"
    return f"{who(e.seat, v)} picked {what}{_auto(e)}."


def _committed(e: E.TercioCommitted, v: int | None) -> str:
    what = plural(e.count, "tercio") if e.count is not None else "tercios in secret"
    return f"{who(e.seat, v)} committed {what} to the war."


def _estate(e: E.EstateTaken, v: int | None) -> str:
    what = f"the {name(e.estate)} estate" if e.estate else "an estate"
    return f"{who(e.seat, v)} took {what}."


def _gains(v: int | None, verb: str, *amounts: tuple[list[int], str]) -> str:
    """What each seat gains, mid-sentence: "you gain 2 GP, seat 1 gains 1 ducat and 1 GP"
    (the seats that gain nothing left out; "nobody gains anything" when none gains)."""
    count = max((len(values) for values, _ in amounts), default=0)
    parts = []
    for s in range(count):
        got = [_amount(values[s], unit) for values, unit in amounts if s < len(values)]
        if any(got):
            parts.append(f"{does(s, v, verb, False)} {listing(x for x in got if x)}")
    return ", ".join(parts) or f"nobody {verb} anything"


def _amount(n: int, unit: str) -> str:
    return "" if not n else f"{n} GP" if unit == "GP" else plural(n, unit)


def _revealed(e: E.CharactersRevealed, v: int | None) -> str:
    held = [
        f"{does(s, v, 'has', False)} " + listing(f"the {name(c)}" for c in picks)
        for s, picks in enumerate(e.picks)
        if picks
    ]
    return "Characters revealed: " + ("; ".join(held) or "none") + "."


LINES: dict[type, Callable[[Any, int | None], str]] = {
    E.PeerTrackSet: lambda e, v: f"Peer track order: {seats(e.order, v)}.",
    E.NewWorldShuffled: lambda e, v: f"The New World stack ({e.count} tiles) was shuffled.",
    E.EstatesShuffled: lambda e, v: "The estates were shuffled.",
    E.NewWorldDealt: lambda e, v: f"New World tiles dealt face down to {plural(e.rows, 'row')}.",
    E.TileTurnedUp: lambda e, v: f"Row {e.row}: {name(e.tile)} turned face up.",
    E.TurnStarted: lambda e, v: f"Turn {e.turn} begins; acting: {seats(e.acting, v)}.",
    E.ExplorationRefilled: lambda e, v: f"Row {e.row} refilled with {name(e.tile)}.",
    E.ReactivationAnswered: lambda e, v: (
        f"{who(e.seat, v)} "
        + ("reactivated" if e.accept else "declined to reactivate")
        + " tercios."
    ),
    E.WarDiceRolled: lambda e, v: f"War dice rolled {listing(e.dice)}: war level {e.level}.",
    E.CharactersShuffled: lambda e, v: "The characters were shuffled; one is set aside.",
    E.CharacterPicked: _picked,
    E.CharactersRevealed: _revealed,
    E.SecretaryBonus: lambda e, v: f"{who(e.seat, v)} gained {e.gp} GP (secretary of state).",
    E.ViceroyIncome: lambda e, v: (
        f"{who(e.seat, v)} collected " + f"{plural(e.ducats, 'ducat')} (viceroy)."
    ),
    E.PeerIncome: lambda e, v: (
        f"Peer income: {_gains(v, 'gets', (e.ducats, 'ducat'), (e.gp, 'GP'))}."
    ),
    E.BullAnswered: lambda e, v: (
        f"{who(e.seat, v)} "
        + ("accepted" if e.accept else "declined")
        + " a bull"
        + (
            f"; {does(e.cardinal, v, 'gets', False)} a ducat as the cardinal."
            if e.cardinal is not None
            else "."
        )
    ),
    E.BlueColonyPlaced: lambda e, v: f"The {name(e.tile)} is placed on colony space {e.space}.",
    E.CommitmentsOpened: lambda e, v: f"War commitments open for {seats(e.asked, v)}.",
    E.TercioCommitted: _committed,
    E.WarPlaced: lambda e, v: (
        "Tercios revealed: " + by_seat(e.counts, v) + f"; on the war spaces: {seats(e.placed, v)}."
    ),
    E.CharacterActionTaken: lambda e, v: _action(
        e, v, f"used the {name(e.character)}", [f"action {e.action}"]
    ),
    E.CharacterPassed: lambda e, v: (
        f"{who(e.seat, v)} passed with the " + f"{name(e.character)}{_auto(e)}."
    ),
    E.CommonActionTaken: lambda e, v: _action(e, v, f"took the common action {name(e.action)}", []),
    E.TileExplored: lambda e, v: (
        f"{who(e.seat, v)} explored row {e.row}: {name(e.tile)}"
        + (" (from the stack)." if e.from_stack else ".")
    ),
    E.EstateTaken: _estate,
    E.EstateDiscarded: lambda e, v: f"{who(e.seat, v)} discarded the {name(e.estate)} estate.",
    E.NativesResolved: lambda e, v: (
        f"{who(e.seat, v)} dealt with natives: " + f"{name(e.method)}{_auto(e)}."
    ),
    E.ColonyResolved: lambda e, v: (
        f"{who(e.seat, v)} "
        + ("placed a house in the colony." if e.place_house else "placed no house.")
    ),
    E.LevyResolved: lambda e, v: (
        f"{who(e.seat, v)} "
        + ("paid the levy" if e.pay else "did not pay the levy")
        + f"{_auto(e)}."
    ),
    E.RaidResolved: lambda e, v: (
        f"{who(e.seat, v)} answered the raid: {name(e.choice)}" + f"{_auto(e)}."
    ),
    E.RoundEnded: lambda e, v: f"{who(e.seat, v)} ended the round{_auto(e)}.",
    E.WarResolved: lambda e, v: (
        ("The war is won" if e.won else "The war is lost")
        + f"; {_gains(v, 'gains', (e.gp, 'GP'))}."
    ),
    E.NativesAttacked: lambda e, v: (
        f"Natives attacked row {e.row}; " + f"{who(e.seat, v, False)} lost a house."
    ),
    E.GoodShipped: lambda e, v: f"From row {e.row}, {name(e.tile)} went to the {name(e.to)}.",
    E.CrownHoarded: lambda e, v: (
        f"The crown hoarded; set aside {name(e.set_aside)}, "
        + f"leftovers {listing(e.leftovers)}, removed {listing(e.removed)}."
    ),
    E.TurnEnded: lambda e, v: f"Turn {e.turn} ends.",
    E.GameEnded: lambda e, v: game_over(e.scores, v),
}


def describe(event: Any, seat: int | None) -> str:
    return described(LINES, redact, event, seat)

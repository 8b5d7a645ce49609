"""Small pure helpers for the games' `describe(event, seat)`: one plain English line per
event. Nothing here knows any game; the lines are text (the page escapes them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any


def who(seat: Any, viewer: int | None, capital: bool = True) -> str:
    """ "You" for the viewer's own seat, else "Seat 2" (or "seat 2" mid-sentence)."""
    if isinstance(seat, int) and seat == viewer:
        return "You" if capital else "you"
    if seat is None or seat == -1:
        return "Nobody" if capital else "nobody"
    return f"{'Seat' if capital else 'seat'} {seat}"


def name(thing: Any) -> str:
    return str(thing).replace("_", " ")


def listing(items: Iterable[Any]) -> str:
    xs = [name(x) for x in items]
    if not xs:
        return "nothing"
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def amounts(mapping: Mapping[str, Any]) -> str:
    """{"corn": 2, "sugar": 0} -> "2 corn"; nothing -> "nothing"."""
    parts = [f"{v} {name(k)}" for k, v in mapping.items() if v]
    return listing(parts) if parts else "nothing"


def seats(xs: Iterable[Any], viewer: int | None) -> str:
    return listing(who(s, viewer, capital=False) for s in xs)


def by_seat(values: Iterable[Any], viewer: int | None) -> str:
    """[3, 5] -> "you 3, seat 1 5" (for seat 0's viewer)."""
    return ", ".join(f"{who(s, viewer, False)} {x}" for s, x in enumerate(values))


def game_over(scores: Iterable[Any], viewer: int | None, what: str = "Scores") -> str:
    return f"Game over. {what}: {by_seat(scores, viewer)}."


def described(
    lines: Mapping[type, Callable[[Any, int | None], str]],
    redact: Callable[[Any, int | None], Any],
    event: Any,
    seat: int | None,
) -> str:
    """A game's `describe`: the line of the event as the game redacts it for `seat`, so a
    line can never tell what the seat may not see."""
    shown = redact(event, seat)
    return polish(lines[type(shown)](shown, seat))


def plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_AGREE = {
    " is ": " are ",
    " resolves ": " resolve ",
    " starts": " start",
    " collects ": " collect ",
}


def polish(line: str) -> str:
    """Verb agreement where the line's subject is the viewer ("You is" -> "You are")."""
    for subject in ("You", "you"):
        for wrong, right in _AGREE.items():
            line = line.replace(subject + wrong, subject + right)
    return line

"""Small pure helpers for the games' `describe(event, seat)`: one plain English line per
event. Nothing here knows any game; the lines are text (the page escapes them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any


def who(seat: Any, viewer: int | None, capital: bool = True) -> str:
    """The subject or object naming `seat`: "You" for the viewer's own seat, else "Seat 2"
    ("you", "seat 2" mid-sentence); "Nobody" for no seat (None or -1)."""
    if _yours(seat, viewer):
        return "You" if capital else "you"
    if seat is None or seat == -1:
        return "Nobody" if capital else "nobody"
    return f"{'Seat' if capital else 'seat'} {seat}"


def whose(seat: Any, viewer: int | None, capital: bool = True) -> str:
    """The possessive of `who`: "Your" for the viewer's own seat, else "Seat 2's" ("your",
    "seat 2's" mid-sentence). Never "You's"."""
    if _yours(seat, viewer):
        return "Your" if capital else "your"
    return who(seat, viewer, capital) + "'s"


# The verbs whose "you" form is not the third person's without its -s.
_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "goes": "go"}


def agree(seat: Any, viewer: int | None, verb: str) -> str:
    """`verb`, written as it goes with "Seat 2" ("is", "stays", "collects", "took"), in the
    form that agrees with `who(seat, viewer)`: "are", "stay", "collect" for the viewer's own
    seat (a past tense or a modal stays as it is)."""
    if not _yours(seat, viewer):
        return verb
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"  # carries -> carry
    if verb.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb[:-2]  # passes -> pass, reaches -> reach
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]  # stays -> stay
    return verb


def does(seat: Any, viewer: int | None, verb: str, capital: bool = True) -> str:
    """Subject and agreeing verb: "You are" / "Seat 2 is", "you start" / "seat 2 starts"."""
    return f"{who(seat, viewer, capital)} {agree(seat, viewer, verb)}"


def _yours(seat: Any, viewer: int | None) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and seat == viewer


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


def article(thing: Any) -> str:
    """ "an alchemist", "a wood peddler", "a university": `name(thing)` with its article."""
    text = name(thing)
    low = text.lower()
    vowel = low[:1] in ("a", "e", "i", "o") or (
        low.startswith("u") and not low.startswith(("uni", "use", "usu", "uti"))
    )
    return ("an " if vowel else "a ") + text


def seats(xs: Iterable[Any], viewer: int | None) -> str:
    """Seats mid-sentence: "you, seat 1 and seat 2"; "nobody" for none."""
    listed = [who(s, viewer, capital=False) for s in xs]
    return listing(listed) if listed else "nobody"


def by_seat(values: Iterable[Any], viewer: int | None) -> str:
    """[3, 5] -> "3 for you, 5 for seat 1" (for seat 0's viewer)."""
    return ", ".join(f"{x} for {who(s, viewer, False)}" for s, x in enumerate(values))


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
    return lines[type(shown)](shown, seat)


def plural(n: Any, word: str) -> str:
    """ "1 denier", "-1 denier", "2 deniers", "2 batches"."""
    if n in (1, -1):
        return f"{n} {word}"
    return f"{n} {word}" + ("es" if word.endswith(("s", "x", "z", "ch", "sh")) else "s")

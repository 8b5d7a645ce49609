"""Small pure helpers for the games' renderers (`domain/<game>/render.py`): escaped HTML
fragments for the web viewer. A renderer takes a view as the API returns it (JSON builtins)
and answers HTML; every text goes through `esc`. Nothing here knows any game.

Accessibility: parts are sections with headings, grids are tables with captions and header
cells, and everything shown in colour is also written as text (a chip carries its label).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any


def esc(value: Any) -> str:
    """Any value as escaped text (quotes too: safe inside attributes)."""
    return escape(str(value), quote=True)


def words(name: Any) -> str:
    """`small_indigo_plant` -> `small indigo plant` (escaped)."""
    return esc(str(name).replace("_", " "))


def seat_name(seat: Any, viewer: Any = None) -> str:
    if seat is None or seat == -1:
        return "nobody"
    return f"seat {esc(seat)}" + (" (you)" if viewer is not None and seat == viewer else "")


def chip(label: Any, kind: str = "", count: Any = None) -> str:
    """A token: its name as text (colour, if any, only repeats it) and an optional count."""
    css = f"chip k-{esc(kind or label)}"
    text = words(label)
    if count is not None:
        text = f"{text} &times;{esc(count)}"
    return f'<span class="{css}">{text}</span>'


def chips(items: Iterable[Any] | None, kind: str = "", empty: str = "none") -> str:
    shown = [chip(item, kind or str(item)) for item in items or [] if item is not None]
    return " ".join(shown) if shown else f'<span class="empty">{esc(empty)}</span>'


def counts(mapping: Mapping[str, Any] | None, empty: str = "none") -> str:
    """{"corn": 2, "sugar": 0} -> chips of the non-zero ones."""
    if not mapping:
        return f'<span class="empty">{esc(empty)}</span>'
    shown = [chip(k, k, v) for k, v in mapping.items() if v]
    return " ".join(shown) if shown else f'<span class="empty">{esc(empty)}</span>'


def hidden(what: str = "hidden") -> str:
    return f'<span class="hidden-info" title="hidden from this viewer">{esc(what)}</span>'


def value(v: Any) -> str:
    """Any JSON value, readable: None as a dash, lists and dicts nested."""
    if v is None:
        return '<span class="empty">&mdash;</span>'
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Mapping):
        if not v:
            return '<span class="empty">none</span>'
        rows = "".join(f"<dt>{words(k)}</dt><dd>{value(x)}</dd>" for k, x in v.items())
        return f'<dl class="kv">{rows}</dl>'
    if isinstance(v, list | tuple):
        if not v:
            return '<span class="empty">none</span>'
        if all(not isinstance(x, Mapping | list | tuple) for x in v):
            return ", ".join(value(x) for x in v)
        return "<ol>" + "".join(f"<li>{value(x)}</li>" for x in v) + "</ol>"
    return words(v) if isinstance(v, str) else esc(v)


def section(part: str, title: str, body: str, css: str = "") -> str:
    """A titled part of the board; `data-part` names the view key(s) it shows."""
    return (
        f'<section class="part {esc(css)}" data-part="{esc(part)}" aria-label="{esc(title)}">'
        f"<h3>{esc(title)}</h3>{body}</section>"
    )


def facts(items: Iterable[tuple[str, str]]) -> str:
    """A definition list of (label, already-escaped HTML) pairs."""
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in items)
    return f'<dl class="kv">{rows}</dl>'


def table(caption: str, head: list[str], rows: Iterable[list[str]], css: str = "") -> str:
    """A table; `head` is plain text, cells are already-escaped HTML."""
    th = "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<table class="{esc(css)}"><caption>{esc(caption)}</caption>'
        f"<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
    )


def track(caption: str, length: int, marks: Mapping[int, list[str]], start: int = 0) -> str:
    """A numbered track (spaces `start`..`start+length-1`) with text marks on some spaces."""
    cells = []
    for i in range(start, start + length):
        here = marks.get(i, [])
        label = f"space {i}: " + (", ".join(here) if here else "empty")
        inner = "".join(f'<span class="mark">{esc(m)}</span>' for m in here)
        cells.append(
            f'<li class="space{" taken" if here else ""}" aria-label="{esc(label)}">'
            f'<span class="num">{i}</span>{inner}</li>'
        )
    return (
        f'<figure class="track"><figcaption>{esc(caption)}</figcaption>'
        f"<ol>{''.join(cells)}</ol></figure>"
    )


class Board:
    """One rendering's bookkeeping: the viewer, the view keys its parts show, and the
    fragment they make (`html`, which adds what no part showed)."""

    def __init__(self, game: str, view: Mapping[str, Any], shown: Iterable[str] = ()) -> None:
        self.game, self.view, self.me = game, view, view.get("viewer")
        self.shown: set[str] = set(shown)

    def part(self, keys: str, title: str, body: str, css: str = "") -> str:
        """A section showing the view keys `keys` (space-separated)."""
        self.shown.update(keys.split())
        return section(keys, title, body, css)

    def seats(self, xs: Any) -> str:
        return ", ".join(seat_name(s, self.me) for s in xs or []) or "nobody"

    def html(self, parts: list[str]) -> str:
        return board(self.game, self.view, parts, self.shown)


def board(game: str, view: Mapping[str, Any], parts: list[str], shown: set[str]) -> str:
    """The whole fragment: the game's parts, then any view key no part showed (so every part
    of a view is visible somewhere, even one a renderer does not know yet)."""
    rest = [k for k in view if k not in shown]
    if rest:
        extra = facts((str(k).replace("_", " "), value(view[k])) for k in rest)
        parts.append(section(" ".join(rest), "More", extra, "more"))
    return f'<div class="board game-{esc(game)}">{"".join(parts)}</div>'

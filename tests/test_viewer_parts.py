"""The viewer's parts of every game: `describe(event, seat)` has a line for every event type
and never tells what `redact` hides; `render(view)` shows every part of a view, escapes all
text and shows no more than the view holds."""

from __future__ import annotations

import importlib
import typing
from functools import cache
from typing import Any

import msgspec
import pytest

from domain.contract import random_bot
from domain.registry import GAMES
from domain.simulate import play

HOSTED = ["caylus", "plus-ultra", "puerto-rico", "santa-maria"]


def _module(name: str, part: str) -> Any:
    return importlib.import_module(f"{type(GAMES[name]).__module__}.{part}")


@cache
def _played(name: str) -> tuple[int, list[Any]]:
    """Events of a few whole games (2 to 4 seats), bots playing."""
    game = GAMES[name]
    events: list[Any] = []
    for seats in (2, 3, 4):
        if game.min_players <= seats <= game.max_players:
            played = play(game, game.options_type(), [random_bot] * seats, b"viewer%d" % seats)
            events.extend(played.events)
    return 4, events


@pytest.mark.parametrize("name", HOSTED)
def test_every_event_type_has_a_description(name: str) -> None:
    lines = _module(name, "describe").LINES
    types = set(typing.get_args(GAMES[name].event_type))
    assert types, name
    assert types <= set(lines), f"{name}: no line for {types - set(lines)}"


@pytest.mark.parametrize("name", HOSTED)
def test_descriptions_read_and_never_tell_what_redact_hides(name: str) -> None:
    game = GAMES[name]
    seats, events = _played(name)
    kinds = set()
    for event in events:
        kinds.add(type(event))
        for seat in [None, *range(seats)]:
            line = game.describe(event, seat)
            assert isinstance(line, str) and line.strip(), (name, event)
            assert "\n" not in line
            # The line depends only on what the viewer may see: the redacted event gives it.
            redacted = game.redact(event, seat)
            assert game.describe(redacted, seat) == line, (name, event, seat)
            if redacted is not event:  # something is hidden from this seat
                hidden = _hidden_values(event, redacted)
                for value in hidden:
                    assert value not in line, (name, event, seat, value)
    assert len(kinds) >= len(typing.get_args(game.event_type)) // 2


def _hidden_values(event: Any, redacted: Any) -> list[str]:
    """The words a redaction blanked (only distinctive ones: names, not small numbers)."""
    full, shown = msgspec.to_builtins(event), msgspec.to_builtins(redacted)
    out: list[str] = []
    for key, value in full.items():
        if shown.get(key) != value:
            items = value if isinstance(value, list) else [value]
            out.extend(str(x).replace("_", " ") for x in items if isinstance(x, str) and len(x) > 3)
    return out


@pytest.mark.parametrize("name", HOSTED)
def test_render_shows_every_part_of_each_view_and_escapes(name: str) -> None:
    game = GAMES[name]
    _played(name)  # warms the cache the other tests share
    state = game.initial(game.options_type(), 2)
    played = play(game, game.options_type(), [random_bot] * 2, b"render")
    for i, event in enumerate(played.events):
        state = game.evolve(state, event)
        if i % 25 and i != len(played.events) - 1:
            continue
        for seat in (None, 0, 1):
            view = msgspec.to_builtins(game.view(state, seat))
            html = game.render(view)
            assert html.startswith('<div class="board')
            assert 'data-part="' in html
            assert "<script" not in html
            # every key of the view is shown by a named part, none left to the catch-all
            assert 'class="part more"' not in html, (name, seat)
            for p in range(len(view.get("players", []))):
                assert f'data-part="players.{p}"' in html or name == "caylus"


@pytest.mark.parametrize("name", HOSTED)
def test_render_escapes_every_text(name: str) -> None:
    game = GAMES[name]
    state = game.initial(game.options_type(), 2)
    played = play(game, game.options_type(), [random_bot] * 2, b"escape")
    for event in played.events[:40]:
        state = game.evolve(state, event)
    view = msgspec.to_builtins(game.view(state, None))
    evil = "<img src=x onerror=alert(1)>"
    view["injected"] = evil

    def poison(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: poison(x) for k, x in v.items()}
        if isinstance(v, list):
            return [poison(x) for x in v]
        return evil if isinstance(v, str) else v

    html = game.render(poison(view))
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_plus_ultra_spectator_board_hides_what_the_seat_sees() -> None:
    """Characters, estates and war commitments of a seat: on its own board, never on a
    spectator's."""
    game = GAMES["plus-ultra"]
    played = play(game, game.options_type(), [random_bot] * 3, b"hidden")
    state = game.initial(game.options_type(), 3)
    checked = 0
    for event in played.events:
        state = game.evolve(state, event)
        if game.result(state) is not None:
            break
        mine = msgspec.to_builtins(game.view(state, 0))
        public = msgspec.to_builtins(game.view(state, None))
        secret = [*(mine["players"][0]["estates"] or [])]
        if not public["players"][0]["characters"]:
            secret += mine["players"][0]["characters"] or []
        secret += mine["offered"] or []
        if not secret:
            continue
        spectator = game.render(public)
        seat = game.render(mine)
        section = spectator.split('data-part="players.0"', 1)[1].split("</section>", 1)[0]
        for value in secret:
            shown = value.replace("_", " ")
            assert shown in seat
            assert shown not in section
        checked += 1
    assert checked > 10

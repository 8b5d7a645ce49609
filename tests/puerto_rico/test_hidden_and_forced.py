# ruff: noqa: B023  (the callbacks run synchronously inside play, within the loop body)
"""Hidden information (R24) and the `auto_forced` option."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from domain.contract import SeatInfo, random_bot
from domain.puerto_rico import GAME
from domain.puerto_rico import commands as C
from domain.puerto_rico import events as E
from domain.simulate import play
from tests.puerto_rico.helpers import act, give, pick, table
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)


def _forest_loving_bot(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    """Random, but prefers forests, haciendas and forest-house buildings (more secrets)."""
    legal = info.legal
    for cmd in legal:
        secret = isinstance(cmd, (C.HaciendaDraw, C.HaciendaPlace)) or (
            isinstance(cmd, C.Settle) and cmd.source == "forest"
        )
        wanted = isinstance(cmd, (C.Build, C.DraftBuilding)) and cmd.building in (
            "forest_house",
            "hacienda",
        )
        if (secret or wanted) and rng.random() < 0.8:
            return cmd
    return rng.choice(legal)


def test_views_and_events_hide_secrets() -> None:
    options = GAME.options_type(expansion="new-buildings")
    for n in (2, 4):
        label = f"puerto-rico/hidden/{n}p"
        for index, seed in enumerate(game_seeds(label, 2)):
            where = describe(label, index)
            secrets_seen = {"forest": 0}

            sampler = random.Random(seed)

            def on_event(state: Any, event: Any) -> None:
                if state.over:
                    return
                full = sampler.random() < 0.1 or isinstance(event, (E.HaciendaDrawn, E.Settled))
                for viewer in [None, *range(n)]:
                    red = GAME.redact(event, viewer)
                    if isinstance(event, E.StackShuffled):
                        assert red.order is None and red.size == event.size, where
                    if isinstance(event, E.Settled) and event.source == "forest":
                        secrets_seen["forest"] += 1
                        assert red.tile == "forest", where
                    if isinstance(event, E.HaciendaDrawn) and event.pending:
                        assert (red.tile is None) == (viewer != event.seat), where
                    if isinstance(event, E.HaciendaPlaced) and event.as_forest:
                        assert red.tile is None, where
                    if not full:
                        continue
                    view = GAME.view(state, viewer)
                    assert view.stack is None and view.stack_size == len(state.stack), where
                    for pv in view.players:
                        assert pv.forest_tiles is None, where
                        assert (pv.vp is None) == (pv.seat != viewer), where
                    if view.hacienda_tile is not None:
                        assert viewer == state.actor, where
                    # the stack order appears nowhere in the encoded view
                    if len(state.stack) >= 12:
                        blob = msgspec.json.encode(view).decode()
                        assert ",".join(f'"{t}"' for t in state.stack[::-1]) not in blob, where

            def on_decision(state: Any, seat: int, command: Any) -> None:
                for cmd in GAME.legal_commands(state, seat):
                    if isinstance(cmd, C.Settle) and cmd.source == "forest":
                        assert cmd.kind is None, where

            played = play(
                GAME,
                options,
                [_forest_loving_bot] * n,
                seed,
                on_event=on_event,
                on_decision=on_decision,
            )
            final = GAME.view(played.state, 0)
            assert final.stack is not None and all(p.vp is not None for p in final.players)


def test_forest_tile_hidden_in_view() -> None:
    s = table(4, expansion=True)
    give(s, 1, buildings={"forest_house": 1}, tiles={"corn": 3})
    s.stack.append("coffee")
    pick(s, 0, "settler")
    act(s, 0, C.Pass())
    ev = act(s, 1, C.Settle(source="forest"))
    settled = next(e for e in ev if isinstance(e, E.Settled))
    assert settled.tile == "coffee"
    for viewer in (None, 0, 1, 2):
        assert GAME.redact(settled, viewer).tile == "forest"
        v = GAME.view(s, viewer)
        assert v.players[1].forests == 1 and v.players[1].forest_tiles is None


def test_auto_forced_off_waits() -> None:
    s = table(4, auto_forced=False)
    s.ship_good, s.ship_load = [-1, 0, -1], [0, 3, 0]
    give(s, 0, goods={"corn": 2, "sugar": 6})
    give(s, 3, goods={"corn": 1})
    pick(s, 0, "captain")
    act(s, 0, C.Load(good="sugar", ship=2))
    # seat 1 has nothing: with auto_forced off even the forced pass waits for him
    assert s.actor == 1 and GAME.legal_commands(s, 1) == [C.Pass()]
    act(s, 1, C.Pass())
    act(s, 2, C.Pass())
    assert s.actor == 3 and GAME.legal_commands(s, 3) == [C.Load(good="corn", ship=1)]


def test_auto_forced_on_applies_in_same_decide() -> None:
    s = table(4)
    s.ship_good, s.ship_load = [-1, 0, -1], [0, 3, 0]
    give(s, 0, goods={"corn": 2, "sugar": 6})
    give(s, 3, goods={"corn": 1})
    pick(s, 0, "captain")
    ev = act(s, 0, C.Load(good="sugar", ship=2))
    assert [(e.seat, e.good) for e in ev if isinstance(e, E.Loaded)][1:] == [
        (3, "corn"),
        (0, "corn"),
    ]
    assert s.step == "choose_role"


def test_auto_forced_off_full_games() -> None:
    options = GAME.options_type(auto_forced=False)
    for seed in game_seeds("puerto-rico/manual-smoke", 2):
        played = play(GAME, options, [random_bot] * 3, seed)
        assert played.result is not None


def test_greedy_bot_plays_expansion_games() -> None:
    from domain.puerto_rico.bots import greedy

    for n in (2, 4):
        for seed in game_seeds(f"puerto-rico/greedy/{n}", 1):
            played = play(
                GAME,
                GAME.options_type(expansion="new-buildings"),
                [greedy] + [random_bot] * (n - 1),
                seed,
            )
            assert played.result is not None

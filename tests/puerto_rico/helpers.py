"""Given/when/then helpers: build a table in a chosen position, act, read the events."""

from __future__ import annotations

import random
from typing import Any

from domain.puerto_rico import GAME, rules
from domain.puerto_rico.data import BUILDINGS, DRAFT_SLOTS, GOOD_INDEX, ISLAND_INDEX, copies
from domain.puerto_rico.state import Options, State


def table(n: int = 4, expansion: bool = False, **opts: Any) -> State:
    """A started game (governor 0, round 1) with empty boards and no doubloons."""
    options = Options(expansion="new-buildings" if expansion else "none", **opts)
    s = GAME.initial(options, n)
    rules.setup_events(s, random.Random(7))
    if expansion:
        s.buildings_left = {b: copies(b, n) for b in BUILDINGS}
        s.copies_total = dict(s.buildings_left)
        s.draft_slots = {k: 0 for k in DRAFT_SLOTS}
    for p in s.players:
        p.tiles = [0] * 6
        p.occupied = [0] * 6
        p.doubloons = 0
    s.round = 1
    s.governor = s.first_governor = 0
    s.phase, s.step, s.actor = "roles", "choose_role", 0
    return s


def give(
    s: State,
    seat: int,
    *,
    buildings: dict[str, int] | None = None,
    tiles: dict[str, int] | None = None,
    occupied: dict[str, int] | None = None,
    goods: dict[str, int] | None = None,
    doubloons: int | None = None,
    vp: int | None = None,
    san_juan: int | None = None,
    forests: int = 0,
) -> None:
    p = s.players[seat]
    if buildings is not None:
        p.buildings = dict(buildings)
    if tiles is not None:
        p.tiles = [0] * 6
        for k, v in tiles.items():
            p.tiles[ISLAND_INDEX[k]] = v
    if occupied is not None:
        p.occupied = [0] * 6
        for k, v in occupied.items():
            p.occupied[ISLAND_INDEX[k]] = v
    if goods is not None:
        p.goods = [0] * 5
        for k, v in goods.items():
            p.goods[GOOD_INDEX[k]] = v
    if doubloons is not None:
        p.doubloons = doubloons
    if vp is not None:
        p.vp = vp
    if san_juan is not None:
        p.san_juan = san_juan
    if forests:
        p.forests = ["corn"] * forests


def act(s: State, seat: int, cmd: Any, seed: int = 3) -> list[Any]:
    """Decide and apply; returns the events."""
    events = GAME.decide(s, seat, cmd, random.Random(seed))
    for e in events:
        GAME.evolve(s, e)
    return events


def pick(s: State, seat: int, role: str) -> list[Any]:
    """Seat `seat` (made governor, first pick of the round) picks `role`."""
    s.governor = seat
    s.picks, s.picked = 0, []
    s.phase, s.step, s.actor = "roles", "choose_role", seat
    from domain.puerto_rico.commands import ChooseRole

    return act(s, seat, ChooseRole(role=role))


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]

"""Invariants of the Plus Ultra rules (docs/games/plus-ultra.md), checked after every event of
the property games."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.plus_ultra import data as D
from domain.plus_ultra import events as E
from domain.plus_ultra.rules import awaiting, legal_commands, score_components
from domain.plus_ultra.state import State


class Tracker:
    """Carries what the invariants compare across events (face-down count, acting order)."""

    def __init__(self) -> None:
        self.face_down: int | None = None
        self.acting: list[int] | None = None
        self.turns_ended = 0


def tile_places(st: State) -> list[str]:
    tiles: list[str] = list(st.stack)
    tiles += [t for t in st.exploration if t is not None]
    tiles += [c.tile for c in st.colonies]
    tiles += st.blue_reserve + st.market + st.surplus + [t for t in st.church if t is not None]
    for p in st.players:
        tiles += p.captured
    tiles += st.out
    return tiles


def check(st: State, event: Any, tr: Tracker) -> list[str]:
    errs: list[str] = []
    n = st.n
    setup_done = st.phase != "setup"
    # 1 conservation of tiles
    if setup_done and type(event) is not E.PeerTrackSet:
        places = tile_places(st)
        if Counter(places) != Counter(D.ALL_TILE_IDS):
            errs.append(
                f"I1 tiles: extra {sorted((Counter(places) - Counter(D.ALL_TILE_IDS)).items())}"
                f" missing {sorted((Counter(D.ALL_TILE_IDS) - Counter(places)).items())}"
            )
    # 2 pieces per player
    for s, p in enumerate(st.players):
        if p.active + p.tired + st.war.count(s) + p.tercio_box != D.TERCIOS_PER_PLAYER:
            errs.append(f"I2 tercios of {s}")
        if (
            p.stock + sum(c.houses.count(s) for c in st.colonies) + p.house_box
            != D.HOUSES_PER_PLAYER
        ):
            errs.append(f"I2 houses of {s}")
        if (
            min(
                p.active,
                p.tired,
                p.tercio_box,
                p.stock,
                p.house_box,
                p.rose_up,
                p.rose_down,
                p.bulls,
                p.magellan,
            )
            < 0
        ):
            errs.append(f"negative piece count for {s}")
    # 3 supplies
    if st.bull_supply + sum(p.bulls for p in st.players) != D.BULLS_BY_PLAYERS[n]:
        errs.append("I3 bulls")
    if st.rose_supply + sum(p.rose_up + p.rose_down for p in st.players) != D.ROSE_WINDOWS:
        errs.append("I3 rose windows")
    if st.magellan_supply + sum(p.magellan for p in st.players) != D.MAGELLAN_BY_PLAYERS[n]:
        errs.append("I3 magellan")
    if st.estate_stack or st.estates_unused:
        held = sum(len(p.estates) for p in st.players)
        if len(st.estate_stack) + held + len(st.estates_discarded) != D.ESTATES_IN_PLAY:
            errs.append("I3 estates")
    # 4 market and church
    if len(st.market) > D.MARKET_SPACES or any(t is None for t in st.market):
        errs.append("I4 market")
    if sum(1 for t in st.church if t is not None) > D.CHURCH_SPACES - 1:
        errs.append("I4 church")
    # 5 ranges
    if not 0 <= st.crown <= D.CROWN_MAX:
        errs.append(f"I5 crown {st.crown}")
    for s, p in enumerate(st.players):
        if p.ducats < 0:
            errs.append(f"I5 ducats of {s}: {p.ducats}")
        if not 0 <= p.sea_trade <= D.SEA_TRADE_MAX:
            errs.append(f"I5 sea trade of {s}")
    # 6 colonies
    if len(st.colonies) > D.COLONY_SPACES:
        errs.append("I6 too many colonies")
    for c in st.colonies:
        if len(c.houses) > c.size:
            errs.append(f"I6 colony {c.tile} over size")
    # 7 war track
    if len(st.war) > max(st.war_level, 0) or len(st.war) > D.WAR_SPACES:
        errs.append("I7 war track above level")
    if st.war and st.phase not in ("rounds", "end_turn"):
        errs.append("I7 war track outside the action phase")
    # 8 face-down tiles never increase after set-up
    down = sum(1 for r, t in enumerate(st.exploration) if t is not None and not st.face_up[r])
    if type(event) is E.NewWorldDealt:
        tr.face_down = down
    elif tr.face_down is not None:
        if down > tr.face_down:
            errs.append("I8 face-down tiles increased")
        tr.face_down = down
    # 9 turn structure
    if type(event) is E.CharactersRevealed:
        cards = [st.set_aside] + [c for p in st.players for c in p.characters] + st.hand
        if sorted(cards) != sorted(D.CHARACTERS) or any(len(p.characters) != 2 for p in st.players):  # type: ignore[type-var]
            errs.append("I9 draft cards")
    for s, p in enumerate(st.players):
        if len(set(p.used)) != len(p.used) or not set(p.used) <= set(p.characters):
            errs.append(f"I9 used characters of {s}")
    if type(event) is E.RoundEnded:
        p = st.players[event.seat]
        wrapped = st.actor_index == 0
        ended = 2 if st.phase == "end_turn" else st.round - 1 if wrapped else st.round
        if len(p.used) != ended:
            errs.append(f"I9 seat {event.seat} used {len(p.used)} characters after round {ended}")
    # 10 common actions
    if len(set(st.common_taken)) != len(st.common_taken):
        errs.append("I10 common action taken twice")
    for s, p in enumerate(st.players):
        if p.common_count > st.options.common_actions_per_turn:
            errs.append(f"I10 allowance of {s}")
    # 11 peer track and acting order
    if sorted(st.peer) != list(range(n)) or sorted(st.acting) != list(range(n)):
        errs.append("I11 peer track not a permutation")
    if (
        tr.acting is not None
        and st.acting != tr.acting
        and type(event) not in (E.TurnStarted, E.TurnEnded, E.PeerTrackSet)
    ):
        errs.append("I11 acting order changed during a turn")
    tr.acting = list(st.acting)
    # 12 Magellan
    if st.magellan_complete != (st.magellan_supply == 0):
        errs.append("I12 Magellan completion")
    # 13 end of game
    if type(event) is E.TurnEnded:
        tr.turns_ended += 1
    if type(event) is E.GameEnded:
        if tr.turns_ended != D.TURNS or st.turn != D.TURNS:
            errs.append("I13 game did not last 7 turns")
        comp = score_components(st)
        for s, p in enumerate(st.players):
            if event.scores[s] != p.gp + sum(comp[s].values()):
                errs.append("I13 total")
        if sorted(event.ranks) != list(range(1, n + 1)):
            errs.append("I13 ranks not strict")
    return errs


def check_settled(st: State) -> list[str]:
    """I14 at a decision point (after a decide call has fully resolved)."""
    errs = []
    waiting = awaiting(st)
    if st.phase == "over":
        if waiting:
            errs.append("I14 awaiting after the end")
    else:
        if not waiting:
            errs.append(f"I14 nobody awaited in phase {st.phase}")
        for s in waiting:
            if not legal_commands(st, s):
                errs.append(f"I14 awaited seat {s} has no legal command")
    return errs

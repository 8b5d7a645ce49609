"""Given-state builders for the scenario tests: a real set-up, then the scenario's "given"."""

from __future__ import annotations

import random
from typing import Any

from domain.plus_ultra import commands as C
from domain.plus_ultra import data as D
from domain.plus_ultra.evolve import evolve
from domain.plus_ultra.rules import awaiting, decide, initial, legal_commands, setup
from domain.plus_ultra.state import Colony, Options, State


def fresh(n: int, seed: int = 1, options: Options | None = None) -> State:
    options = options or Options(initial_order="seats")
    st = initial(options, n)
    for ev in setup(options, n, random.Random(seed)):
        evolve(st, ev)
    return st


def at_rounds(
    st: State,
    chars: dict[int, list[str]],
    *,
    set_aside: str = "merchant",
    level: int = 3,
    actor: int | None = None,
) -> State:
    """The action phase of the current turn, with the given picks, nobody at war yet."""
    taken = {c for cs in chars.values() for c in cs} | {set_aside}
    st.set_aside = set_aside
    st.hand = [c for c in D.CHARACTERS if c not in taken]
    st.holder = {}
    for s, p in enumerate(st.players):
        p.characters = list(chars.get(s, []))
        p.used = []
        for c in p.characters:
            st.holder[c] = s
    st.picks_done = 2 * st.n
    st.revealed = True
    st.war_level = level
    st.dice = [level] * 3
    st.war = []
    st.phase = "rounds"
    st.round = 1
    st.actor_index = 0 if actor is None else st.acting.index(actor)
    st.step1_char = None
    st.common_in_round = False
    st.pending = []
    return st


def set_order(st: State, order: list[int]) -> None:
    st.peer = list(order)
    st.acting = list(order)


def clear_new_world(st: State) -> None:
    """No colonies and no exploration tiles (they go out of the game), for isolated tests."""
    for t in st.exploration:
        if t is not None:
            st.out.append(t)
    st.exploration = [None] * D.EXPLORATION_SPACES
    st.face_up = [False] * D.EXPLORATION_SPACES
    for c in st.colonies:
        st.out.append(c.tile)
    st.colonies = []


def colony(tile: str, houses: list[int]) -> Colony:
    return Colony(tile=tile, size=D.colony_size(tile), houses=list(houses))


def act(st: State, seat: int, cmd: Any, seed: int = 0) -> list[Any]:
    events = decide(st, seat, cmd, random.Random(seed))
    for ev in events:
        evolve(st, ev)
    return events


def finish_turn(st: State, stop_after: type | None = None) -> list[Any]:
    """Everyone passes his characters and ends his rounds until the turn has ended (and the
    game, after turn 7). With `stop_after`, stop right after the first event of that type."""
    from domain.plus_ultra import events as E

    out: list[Any] = []
    while True:
        seat = awaiting(st)[0]
        legal = legal_commands(st, seat)
        cmd = next((m for m in legal if isinstance(m, C.PassCharacter)), None)
        if cmd is None:
            cmd = next((m for m in legal if isinstance(m, C.EndRound)), legal[0])
        for ev in decide(st, seat, cmd, random.Random(0)):
            evolve(st, ev)
            out.append(ev)
            if stop_after is not None and type(ev) is stop_after:
                return out
        if any(type(e) is E.TurnEnded for e in out) and stop_after is None:
            return out


def drive_until(st: State, kind: type, choose: Any = None) -> list[Any]:
    """Answer every decision with the first legal command (or `choose(legal)`) until an event
    of type `kind` has been applied."""
    out: list[Any] = []
    while not any(type(e) is kind for e in out):
        seat = awaiting(st)[0]
        legal = legal_commands(st, seat)
        cmd = choose(legal) if choose else legal[0]
        out += act(st, seat, cmd)
    return out


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if type(e) is kind]

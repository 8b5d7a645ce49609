"""Hidden information: no view, redacted event or error shows a hidden value to a viewer
who may not see it yet."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.contract import RuleError, random_bot
from domain.plus_ultra import GAME
from domain.plus_ultra import commands as C
from domain.plus_ultra import events as E
from domain.plus_ultra.state import Options, State
from domain.simulate import play
from tests.plus_ultra.helpers import act, at_rounds, fresh
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

enc = msgspec.json.encode


def hidden_ids(st: State, viewer: int | None) -> list[str]:
    """Ids that must not appear anywhere in `viewer`'s view right now."""
    ids = list(st.stack) + list(st.estate_stack) + list(st.estates_unused)
    ids += [t for r, t in enumerate(st.exploration) if t is not None and not st.face_up[r]]
    for s, p in enumerate(st.players):
        if s != viewer:
            ids += p.estates
    return ids


def check_view(st: State, viewer: int | None, where: str) -> None:
    v = GAME.view(st, viewer)
    raw = enc(v)
    for tid in hidden_ids(st, viewer):
        assert b'"' + tid.encode() + b'"' not in raw, f"{where}: {tid} visible to {viewer}"
    if not st.hoarded:
        assert v.set_aside is None and v.leftovers is None, where
    for pv in v.players:
        if pv.seat != viewer:
            assert pv.estates is None, where
            assert pv.commitment is None, where
            if not st.revealed:
                assert pv.characters is None, where
    if viewer is None or viewer not in GAME.awaiting(st) or st.phase != "draft":
        assert v.offered is None, where


def check_redact(event: Any, n: int, where: str) -> None:
    for viewer in [None, *range(n)]:
        r = GAME.redact(event, viewer)
        if isinstance(event, E.NewWorldShuffled):
            assert r.stack is None, where
        elif isinstance(event, E.EstatesShuffled):
            assert r.stack is None and r.unused is None, where
        elif isinstance(event, E.CharactersShuffled):
            assert r.order is None, where
        elif isinstance(event, E.CharacterPicked):
            assert (r.character is None) == (viewer != event.seat), where
        elif isinstance(event, E.TercioCommitted):
            assert (r.count is None) == (viewer != event.seat), where
        elif isinstance(event, E.EstateTaken):
            assert (r.estate is None) == (viewer != event.seat), where
        else:
            assert r is event, where
        msgspec.json.encode(r)  # still a valid event


@pytest.mark.parametrize("n", [2, 3, 4])
def test_views_and_events_hide_secrets(n: int) -> None:
    label = f"plus-ultra/hidden/{n}p"
    for i, seed in enumerate(game_seeds(label, 6)):
        where = describe(label, i)

        def on_event(state: Any, event: Any, where: str = where) -> None:
            check_redact(event, n, where)
            if state.phase in ("setup", "over"):
                return
            for viewer in [None, *range(n)]:
                check_view(state, viewer, where)

        played = play(GAME, Options(), [random_bot] * n, seed, on_event=on_event)
        final = GAME.view(played.state, None)
        assert final.stack is not None and final.result is not None, where
        assert all(p.estates is not None for p in final.players), where


def test_draft_pick_hidden_until_reveal() -> None:
    st = fresh(3)
    picker = GAME.awaiting(st)[0]
    offered = GAME.view(st, picker).offered
    assert offered is not None and len(offered) == 8
    other = (picker + 1) % 3
    assert GAME.view(st, other).offered is None
    (ev,) = act(st, picker, C.PickCharacter(character=offered[0]))
    assert GAME.redact(ev, other).character is None and GAME.redact(ev, None).character is None
    assert GAME.view(st, other).players[picker].characters is None
    assert GAME.view(st, picker).players[picker].characters == [offered[0]]


def test_commitments_simultaneous_and_secret() -> None:
    st = fresh(3)
    at_rounds(st, {0: ["admiral", "cardinal"], 1: ["merchant", "pirate"], 2: ["king", "viceroy"]})
    st.phase, st.commit_asked, st.commitments = "commit", [0, 1, 2], {}
    assert GAME.awaiting(st) == [0, 1, 2]
    (ev,) = act(st, 2, C.CommitTercios(count=2))
    assert GAME.awaiting(st) == [0, 1]
    for viewer in (None, 0, 1):
        assert GAME.redact(ev, viewer).count is None
        v = GAME.view(st, viewer)
        assert v.players[2].commitment is None and v.players[2].has_committed is True
        assert v.players[2].tercios_active == 2  # nothing moves before the reveal
        assert b'"commitment":2' not in enc(v)
    assert GAME.view(st, 2).players[2].commitment == 2
    assert GAME.legal_commands(st, 2) == []
    for cmd in (C.CommitTercios(count=0), C.CommitTercios(count=2), C.CommitTercios(count=5)):
        with pytest.raises(RuleError) as exc:
            GAME.decide(st, 2, cmd, random.Random(0))
        assert (
            exc.value.code == "illegal_move.not_your_turn"
            and "2" not in exc.value.message.replace("seat 2", "")
        )
    # errors to the other seats depend only on their own reserve
    with pytest.raises(RuleError) as exc:
        GAME.decide(st, 0, C.CommitTercios(count=3), random.Random(0))
    assert exc.value.code == "illegal_move.invalid_count"
    act(st, 0, C.CommitTercios(count=0))
    last = act(st, 1, C.CommitTercios(count=1))
    (placed,) = [e for e in last if isinstance(e, E.WarPlaced)]
    assert placed.counts == [0, 1, 2]


def test_estate_visible_to_owner_only() -> None:
    st = fresh(3)
    seat = st.acting[0]
    at_rounds(st, {seat: ["secretary_of_state", "merchant"]})
    events = act(st, seat, C.CharacterAction(character="secretary_of_state", action=2))
    (taken,) = [e for e in events if isinstance(e, E.EstateTaken)]
    assert taken.estate is not None
    others = [s for s in range(3) if s != seat]
    for viewer in [None, *others]:
        assert GAME.redact(taken, viewer).estate is None
        v = GAME.view(st, viewer)
        assert v.players[seat].estates is None and v.players[seat].estate_count == 1
        assert b'"' + taken.estate.encode() + b'"' not in enc(v)
    assert GAME.view(st, seat).players[seat].estates == [taken.estate]

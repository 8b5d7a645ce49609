"""Takebacks with consent, at the service (docs/undo.md): in each game an accepted one (the
game goes on from the state before the decision, and the export still verifies, clocks
included), a declined one, one refused across randomness; off in rated games unless asked;
retries with the same Idempotency-Key."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from service.audit import stored_lines
from service.errors import Conflict, Problem
from service.players import Player, Players
from service.store import EventStoreApp
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.sampling import (
    base_seed,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)
from tests.support.timed import FISCHER, solo, verified
from tests.undo.play import GAMES, play_until, shown, table

SEED = 7  # the random moves' seed (printed by a failure)


@pytest.fixture
def bob(store: EventStoreApp) -> Player:
    return Players(store).register("bob")[0]


@pytest.mark.parametrize("name", GAMES)
def test_an_accepted_takeback_goes_back(
    service: GameService,
    store: EventStoreApp,
    clock: FakeClock,
    ada: Player,
    bob: Player,
    name: str,
) -> None:
    fold = table(service, [ada, bob], name, seats=3 if name == "puerto-rico" else 2)
    found = play_until(service, clock, [ada, bob], fold, SEED, None)
    clock.advance(2)
    asked = service.undo(ada, fold.id, "u1")
    assert not asked.replayed and asked.fold.undo_asked == (0, found.to_version)
    assert 0 not in asked.fold.clock.since  # the requester's clock is paused
    clock.advance(5)
    done = service.undo_accept(bob, fold.id, "a1")
    after = service.settled(fold.id)
    assert done.fold.undo_asked is None and after.version >= done.fold.version
    assert shown(done.fold, 0) == (found.view, found.legal)
    assert done.fold.awaiting() == service.reads.replay(done.fold, found.to_version).awaiting()
    types = [e["type"] for e in service.reads.visible_events(done.fold, 0, found.fold.version, 9)]
    bots_accept = ["undo_accepted"] * (done.fold.seats - 2)  # in the request's own write
    assert types == ["undo_requested", *bots_accept, "undo_accepted", "reverted"]
    # The game goes on from there, and the whole log verifies (audit and clock oracle).
    play_until(service, clock, [ada, bob], done.fold, SEED + 1, None)
    verified(service, store, fold.id)


@pytest.mark.parametrize("name", GAMES)
def test_a_declined_takeback_changes_nothing(
    service: GameService,
    store: EventStoreApp,
    clock: FakeClock,
    ada: Player,
    bob: Player,
    name: str,
) -> None:
    fold = table(service, [ada, bob], name)
    found = play_until(service, clock, [ada, bob], fold, SEED, None)
    service.undo(ada, fold.id, "u1")
    clock.advance(3)
    done = service.undo_decline(bob, fold.id, "d1")
    assert done.fold.undo_asked is None and done.fold.state == found.fold.state
    with pytest.raises(Conflict) as refused:
        service.undo_accept(bob, fold.id, "a1")
    assert refused.value.code == "not_asked"
    verified(service, store, fold.id)


# Caylus draws nothing and hides nothing after its setup: there every decision can be taken
# back (test_caylus_never_refuses).
@pytest.mark.parametrize("name", [g for g in GAMES if g != "caylus"])
def test_no_takeback_across_randomness(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player, name: str
) -> None:
    fold = table(service, [ada], name)
    found = play_until(service, clock, [ada], fold, SEED, "undo_across_randomness", 2000)
    with pytest.raises(Conflict) as refused:
        service.undo(ada, fold.id, "u1")
    assert refused.value.code == "undo_across_randomness"
    assert service.reads.get(fold.id).version == found.fold.version  # nothing written
    verified(service, store, fold.id)


def test_alone_with_bots_the_game_goes_back_at_once(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player
) -> None:
    fold = table(service, [ada], "puerto-rico", seats=3)
    found = play_until(service, clock, [ada], fold, SEED, None)
    done = service.undo(ada, fold.id, "u1")
    assert shown(done.fold, 0) == (found.view, found.legal)
    again = service.undo(ada, fold.id, "u1")  # a retry: answered again, nothing written
    assert again.replayed and again.fold.version == done.fold.version
    with pytest.raises(Problem) as reused:
        service.undo_decline(ada, fold.id, "u1")
    assert reused.value.code == "idempotency_key_reused"
    with pytest.raises(Conflict) as nothing:  # the point went with the decision
        service.undo(ada, fold.id, "u2")
    assert nothing.value.code == "undo_nothing_to_take_back"
    verified(service, store, fold.id)


def test_rated_games_take_back_only_when_created_so(
    service: GameService, clock: FakeClock, ada: Player
) -> None:
    rated = table(service, [ada], "caylus", rated=True)
    assert not rated.undo
    play_until(service, clock, [ada], rated, SEED, "undo_nothing_to_take_back", 1)
    with pytest.raises(Conflict) as refused:
        service.undo(ada, rated.id, "u1")
    assert refused.value.code == "undo_not_allowed"
    allowed = table(service, [ada], "caylus", rated=True, undo=True)
    assert allowed.undo
    casual_off = table(service, [ada], "caylus", undo=False)
    assert not casual_off.undo and table(service, [ada], "caylus").undo


def test_the_requester_waits_and_a_move_ends_the_request(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player, bob: Player
) -> None:
    fold = table(service, [ada, bob], "santa-maria")
    found = play_until(service, clock, [ada, bob], fold, SEED, None)
    asked = service.undo(ada, fold.id, "u1").fold
    with pytest.raises(Conflict) as pending:
        service.undo(bob, fold.id, "u2")
    assert pending.value.code == "undo_pending"
    mover = next(s for s in asked.awaiting())
    player = (ada, bob)[mover]
    move = asked.game.legal_commands(asked.state, mover)[0]

    if mover == 0:  # the requester's own move waits for the answer
        with pytest.raises(Conflict) as waits:
            service.move(ada, fold.id, asked.version, msgspec.to_builtins(move), "m-x")
        assert waits.value.code == "undo_pending"
        service.undo_decline(ada, fold.id, "w1")  # withdrawn
    else:
        clock.advance(2)
        service.move(player, fold.id, asked.version, msgspec.to_builtins(move), "m-x")
    assert service.settled(fold.id).undo_asked is None
    assert found.fold.version < service.reads.get(fold.id).version
    verified(service, store, fold.id)


def test_caylus_never_refuses(service: GameService, clock: FakeClock, ada: Player) -> None:
    fold = table(service, [ada], "caylus")
    with pytest.raises(AssertionError, match="the game ended first"):
        play_until(service, clock, [ada], fold, SEED, "undo_across_randomness", 2000)


def test_a_snapshot_keeps_the_takeback(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player, bob: Player
) -> None:
    from service import snapshots
    from service.reader import read_events

    fold = table(service, [ada, bob], "santa-maria")
    play_until(service, clock, [ada, bob], fold, SEED, None)
    asked = service.undo(ada, fold.id, "u1").fold
    assert asked.takeback.points and asked.undo_asked is not None
    restored = snapshots.restore(
        fold.id, read_events(store, fold.id, lte=1)[0], snapshots.encode(asked)
    )
    differ = [f for f in asked.__dataclass_fields__ if getattr(asked, f) != getattr(restored, f)]
    assert differ == ["clock"] and snapshots.same(restored, asked), (
        differ
    )  # (clock: compared by value)


@pytest.mark.parametrize("name", ["caylus", "puerto-rico"])
def test_a_takeback_does_not_reroll_the_bots_reply(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player, name: str
) -> None:
    """Ada moves, the random bots answer; she takes it back (they accept at once) and plays
    the same move again: they answer the same, so she cannot fish for a reply she likes.
    (A bot decides from the seed and the position's version on the game's line.)"""
    rng = random.Random(f"{base_seed()}/reroll/{name}")
    seats = 3 if name == "puerto-rico" else 2
    bots = {s: "random" for s in range(1, seats)}
    created = service.create(
        ada, name, seats, {}, bots, 0, FISCHER, "bot:random", rated=True, undo=True
    )
    fold = service.settled(created.id)
    replayed = 0
    for _ in range(40):
        if fold.over:
            break
        move = msgspec.to_builtins(rng.choice(fold.game.legal_commands(fold.state, 0)))
        before = fold.version
        service.move(ada, fold.id, before, move, f"m{before}")
        fold = service.settled(fold.id)
        first = _bots_answers(store, fold.id, before)
        if not first or fold.over:
            continue
        try:
            service.undo(ada, fold.id, f"u{fold.version}")
        except Conflict:  # across randomness: nothing to compare
            continue
        fold = service.settled(fold.id)
        again = fold.version
        service.move(ada, fold.id, again, move, f"again{again}")
        fold = service.settled(fold.id)
        second = _bots_answers(store, fold.id, again)
        assert first[: len(second)] == second[: len(first)], "the bots answered otherwise"
        replayed += 1
    assert replayed >= 5, "too few takebacks to tell"
    verified(service, store, fold.id)


def _bots_answers(store: EventStoreApp, game_id: Any, after: int) -> list[tuple[int, Any]]:
    lines = stored_lines(store, game_id)
    return [(x["seat"], x["command"]) for x in lines
            if x["version"] > after and isinstance(x["seat"], int) and x["seat"] != 0
            and x["command"]]  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_caylus_takebacks_are_never_refused_even_after_identical_bot_decisions(
    service: GameService, clock: FakeClock, ada: Player, seed: int
) -> None:
    """Caylus draws and hides nothing after its setup: every takeback is allowed, even when
    a bot made the same decision twice in a row at the same stamp (the takeback log keeps
    every event, and is re-run decision by decision as the audit re-runs a game)."""
    rng = random.Random(f"{base_seed()}/caylus-undo/{seed}")
    created = service.create(ada, "caylus", 2, {}, {1: "random"}, 0, FISCHER, "bot:random")
    fold = service.settled(created.id)
    for _ in range(150):
        if fold.over:
            break
        move = msgspec.to_builtins(rng.choice(fold.game.legal_commands(fold.state, 0)))
        clock.advance(rng.random() * 2)
        service.move(ada, fold.id, fold.version, move, f"m{fold.version}")
        fold = service.settled(fold.id)
        if fold.over or rng.random() < 0.4:
            continue
        service.undo(ada, fold.id, f"u{fold.version}")  # never refused
        fold = service.settled(fold.id)


def test_a_timed_out_seat_cannot_take_back_what_its_bot_decided(
    service: GameService, store: EventStoreApp, clock: FakeClock, ada: Player
) -> None:
    """Her time ran out and the timeout's bot decided for her seat: that decision is not
    hers to take back, nor anything before the timeout (the opponents' consent aside)."""
    fold = solo(service, ada, "bot:random")
    assert fold.undo  # a casual game: takebacks allowed
    move = msgspec.to_builtins(fold.game.legal_commands(fold.state, 0)[0])
    service.move(ada, fold.id, fold.version, move, "mine")  # a decision of her own first
    fold = service.settled(fold.id)
    while 0 not in fold.awaiting() and not fold.over:
        fold = service.settled(fold.id)
    clock.advance(3600)
    assert service.time_out(fold.id) is not None
    fold = service.settled(fold.id)  # the timeout's bot decided for her
    with pytest.raises(Conflict) as refused:
        service.undo(ada, fold.id, "after-timeout")
    assert refused.value.code == "undo_nothing_to_take_back"
    verified(service, store, fold.id)

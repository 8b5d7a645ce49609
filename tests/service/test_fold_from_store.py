"""A game folded from the store is the game that was played (issue 19): for every game type,
on Postgres and on SQLite, a service that never saw the game (a cold cache) loads the same
fold as the live one that played it, at the end and midway through; and a fold helped by
snapshots equals the plain fold of the log at every version of sampled games."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import msgspec
import pytest

from service.fold import Fold, new_fold
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp, open_store
from tests.conftest import all_games
from tests.support.games import GameService, close_over

FISCHER = {"kind": "fischer", "initial_s": 600, "increment_s": 5}


@pytest.fixture
def store(any_settings: Settings) -> Iterator[EventStoreApp]:
    opened = open_store(any_settings)
    yield opened
    close_over(opened)  # the bots stop before the store closes
    opened.close()


def fields(fold: Fold) -> dict[str, Any]:
    """Everything a fold holds, as plain data (the rules object aside)."""
    out = {k: getattr(fold, k) for k in fold.__dataclass_fields__ if k not in ("game", "clock")}
    out["state"] = msgspec.to_builtins(fold.state)
    out["options"] = msgspec.to_builtins(fold.options)
    out["result"] = msgspec.to_builtins(fold.result)
    clock = fold.clock
    out["clock"] = None if clock is None else (clock.remaining, clock.since)
    return out


def _seats(name: str) -> int:
    return 3 if name in ("santa-maria", "secret-duel") else 4


def _play(service: GameService, player: Player, game: UUID, moves: int, rng: random.Random) -> None:
    """`moves` moves of the human seat 0, each once the bots have answered (the bot runner
    plays them after the move's commit)."""
    for i in range(moves):
        fold = service.settled(game)
        if fold.over or 0 not in fold.awaiting():
            return
        _, legal = service.legal_moves(fold, 0)
        service.move(player, game, fold.version, rng.choice(legal), f"k{i}")


@pytest.mark.parametrize("name", all_games())
def test_a_fold_from_the_store_equals_the_live_state(store: EventStoreApp, name: str) -> None:
    live = GameService(store)
    player, _ = Players(store).register("ann")
    seats = _seats(name)
    rng = random.Random(name)
    bots = {s: "random" for s in range(seats)}
    finished = live.create(player, name, seats, {}, bots).id  # the bot runner plays it out
    humans = {s: "random" for s in range(1, seats)}
    running = live.create(player, name, seats, {}, humans, seat=0).id
    timed = live.create(player, name, seats, {}, humans, seat=0, clock=FISCHER).id
    for game in (running, timed):
        _play(live, player, game, 15, rng)
    for game in (finished, running, timed):
        live.settled(game)  # no bot is to move: the game stands still
        cold = GameService(store)  # never saw the game: it folds the store
        assert fields(cold.get(game)) == fields(live.get(game)), game
        assert fields(GameService(store).get(game)) == fields(live.get(game))  # snapshots kept
    assert live.get(finished).over


def _plain(store: EventStoreApp, game: UUID, version: int) -> Fold:
    events = list(store.events.get(game, lte=version))  # the library's own reading
    return new_fold(game, events[0]).advance(events[1:], clone=False)


@pytest.mark.parametrize("name", all_games())
def test_snapshots_fold_like_the_log_at_every_version(
    store: EventStoreApp, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service import snapshots

    monkeypatch.setattr(snapshots, "INTERVAL", 16)  # many snapshots in every game
    service = GameService(store)
    player, _ = Players(store).register("ann")
    seats = _seats(name)
    game = service.create(player, name, seats, {}, {s: "random" for s in range(seats)}).id
    ended = service.settled(game)  # the bot runner plays it to its end
    assert ended.over
    last = ended.version
    versions = sorted(
        {
            1,
            2,
            15,
            16,
            17,
            31,
            32,
            33,
            last,
            *random.Random(name).sample(range(1, last + 1), min(40, last)),
        }
        & set(range(1, last + 1))
    )
    for rounds in ("taking snapshots", "reading them"):
        for version in versions:
            helped = snapshots.load(store, game, lte=version)
            assert helped is not None
            assert fields(helped) == fields(_plain(store, game, version)), (rounds, version)
    for version in range(1, last + 1):  # every version, snapshots in place
        helped = snapshots.load(store, game, lte=version)
        assert helped is not None and snapshots.same(helped, _plain(store, game, version))
    taken = store.snapshots.recorder.select_events(game) if store.snapshots else []
    assert [s.originator_version for s in taken] == list(range(16, last + 1, 16))


def test_a_damaged_snapshot_is_folded_past(
    store: EventStoreApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eventsourcing.persistence import StoredEvent

    from service import snapshots

    monkeypatch.setattr(snapshots, "INTERVAL", 8)
    service = GameService(store)
    player, _ = Players(store).register("ann")
    game = service.create(player, "puerto-rico", 4, {}, {s: "random" for s in range(4)}).id
    last = service.settled(game).version
    assert store.snapshots is not None
    # a snapshot of another format, and one whose bytes no longer decode
    store.snapshots.recorder.insert_events(
        [
            StoredEvent(game, 8, "tabletop:fold/0", b"\x00"),
            StoredEvent(game, 16, snapshots.TOPIC, b"\x93\x01"),
        ]
    )
    for version in (8, 9, 16, 20, last):
        helped = snapshots.load(store, game, lte=version)
        assert helped is not None and snapshots.same(helped, _plain(store, game, version))

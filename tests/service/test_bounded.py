"""What a process remembers per player and per game stays bounded: the least recently used
entries go, and a player dropped from memory is read again from the store."""

from __future__ import annotations

import threading

import pytest

from service import players as players_module
from service.bounded import BoundedMap
from service.players import Players
from service.store import EventStoreApp


def test_the_least_recently_used_entry_goes_first() -> None:
    kept: BoundedMap[int, str] = BoundedMap(3)
    for i in range(3):
        kept.put(i, str(i))
    assert kept.get(0) == "0"  # 0 is now the most recently used
    kept.put(3, "3")
    assert 1 not in kept and [kept.get(i) for i in (0, 2, 3)] == ["0", "2", "3"]
    kept.pop(2)
    kept.pop(99)  # popping what is not there is no error
    assert len(kept) == 2


def test_threads_never_grow_it_past_its_size() -> None:
    kept: BoundedMap[int, int] = BoundedMap(100)

    def fill(base: int) -> None:
        for i in range(5_000):
            kept.put(base + i, i)
            kept.get(base + i // 2)

    threads = [threading.Thread(target=fill, args=(n * 10_000,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(kept) == 100


def test_players_beyond_the_bound_still_sign_in(
    store: EventStoreApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(players_module, "PLAYERS_KEPT", 4)
    players = Players(store)
    keys = [players.register(f"p{i}") for i in range(10)]
    for player, key in keys:
        assert players.authenticate(key) == player
    assert len(players._cache) == 4
    first, first_key = keys[0]
    assert not players.known(keys[1][1])  # dropped: checking it reads the store again
    assert players.authenticate(first_key) == first
    assert players.authenticate(first_key[:-1] + "x") is None

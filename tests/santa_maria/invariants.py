"""Invariants of the Santa Maria rules (docs/games/santa-maria.md), checked after every event of
a property-test game."""

from __future__ import annotations

from typing import Any

from domain.santa_maria import data
from domain.santa_maria import events as ev
from domain.santa_maria.state import SantaMariaState, storage_limit

VALID_CODES = set(data.BUILDING_EFFECTS) | {data.EMPTY, data.BLOCKED, data.ROAD}
ALL_EXPANSION = set(data.TILES)
ALL_SHIPS = set(data.SHIPS)


class InvariantChecker:
    """Keeps what it needs from the previous state (monotone quantities)."""

    def __init__(self) -> None:
        self.prev: dict[int, tuple[int, int, int, list[str]]] = {}
        self.main_since_end: int = 0
        self.years_seen: set[int] = set()

    def __call__(self, s: SantaMariaState, event: Any, msg: str) -> None:
        n = s.seats
        if s.phase in ("setup", "draft"):
            return  # set-up is checked by its own events; invariants hold from year 1 on
        for p in s.players:
            lim = storage_limit(p)
            for r, v in p.res.items():
                assert 0 <= v <= lim, f"{msg}: {r}={v} limit {lim} seat {p.seat}"
            assert p.coins >= 0, f"{msg}: coins {p.coins}"
            assert 0 <= p.religion <= data.RELIGION_END, msg
            assert 0 <= p.conquistador <= data.CONQUISTADOR_END, msg
            prev = self.prev.get(p.seat)
            if prev is not None:
                pts, rel, conq, cells = prev
                assert p.points >= pts, f"{msg}: points decreased seat {p.seat}"
                assert p.religion >= rel and p.conquistador >= conq, msg
                for i in range(36):
                    if cells[i] != data.EMPTY:
                        assert p.cells[i] == cells[i], f"{msg}: cell {i} changed"
            grid = data.BOARDS[p.board]
            for i in range(36):
                printed = grid[i // 6][i % 6]
                code = p.cells[i]
                assert code in VALID_CODES, msg
                if printed != data.EMPTY:
                    assert code == printed, f"{msg}: pre-printed cell {i} changed"
                building = code not in (data.EMPTY, data.BLOCKED, data.ROAD)
                if p.die_on[i] or p.coins_on[i]:
                    assert building, f"{msg}: die/coins on a non-building {i}"
                    assert not (p.die_on[i] and p.coins_on[i]), f"{msg}: die and coins on {i}"
            self.prev[p.seat] = (p.points, p.religion, p.conquistador, p.cells[:])
            # coin activations
            k = sum(1 for c in p.coins_on if c)
            assert k == p.coin_activations, f"{msg}: activations {k} vs {p.coin_activations}"
            assert sum(p.coins_on) == p.coins_paid, msg
            if "SC03" not in p.scholars:
                assert p.coins_paid == k * (k + 1) // 2, f"{msg}: coins paid {p.coins_paid} k={k}"
            # white dice
            whites = p.die_on.count(1)
            cap = data.WHITE_DICE_CAP_SC09 if "SC09" in p.scholars else data.WHITE_DICE_CAP
            assert p.white_taken == whites <= cap, f"{msg}: white dice {whites} {p.white_taken}"
            # blue dice
            # Symbols entered but not yet resolved sit at the head of the effect queue.
            queued = sum(1 for t in s.queue if t in ("M2", "M7")) if p.seat == s.active else 0
            if isinstance(event, ev.EffectStarted) and event.effect in ("M2", "M7"):
                queued += event.seat == p.seat  # popped, unlock is the next event
            owned = 1 + (p.religion >= 2) + (p.religion >= 7) - queued
            assert len(p.blue) == owned, f"{msg}: blue dice {len(p.blue)} vs {owned}"
            assert p.die_on.count(2) == sum(p.blue_used), msg
            # monks
            placed = sum(1 for seats in s.monks.values() if p.seat in seats)
            assert p.monks_reserve + placed == data.MONKS_PER_PLAYER, msg
            assert placed <= p.symbols_entered, msg
            assert p.main_actions <= 36 + 10 + 1, msg
        for seats in s.monks.values():
            assert len(seats) == len(set(seats)), msg
        if s.phase == "play":
            total_white = len(s.white_pool) + sum(p.die_on.count(1) for p in s.players)
            assert total_white == data.DICE_PER_PLAYER * n, f"{msg}: white total {total_white}"
        assert sum(len(p.blue) for p in s.players) + s.blue_supply == data.DICE_PER_PLAYER * n
        # expansion tiles
        on_colonies = []
        for p in s.players:
            seen: dict[str, int] = {}
            for t in p.tile_on:
                if t and t != data.ROAD_TILE_ID:
                    seen[t] = seen.get(t, 0) + 1
            for t, cnt in seen.items():
                shape = data.TILES[t][0]
                assert cnt == len(data.SHAPES[shape]), f"{msg}: tile {t} squares {cnt}"
            on_colonies.extend(seen)
        places = (
            s.double_stack
            + s.triple_stack
            + s.display_doubles
            + s.display_triples
            + s.out_of_game
            + on_colonies
        )
        assert sorted(places) == sorted(ALL_EXPANSION), f"{msg}: expansion tiles misplaced"
        assert len(s.display_doubles) + len(s.display_triples) <= 10, msg
        ships = (
            [t for t in s.docks if t]
            + s.ship_stack
            + [t for p in s.players for d in p.port for t in d]
        )
        assert sorted(ships) == sorted(ALL_SHIPS), f"{msg}: ship tiles misplaced"
        if s.ship_stack and not isinstance(event, ev.Shipped):  # refilled by the next event
            assert all(s.docks), f"{msg}: empty dock with a non-empty stack"
        roads = sum(p.tile_on.count(data.ROAD_TILE_ID) for p in s.players)
        assert s.road_stack + roads == data.ROAD_TILES, msg
        # retiring
        holders = [v for v in s.retire_spaces.values() if v != -1]
        assert len(holders) == len(set(holders)) == len(s.retire_order), msg
        assert sorted(holders) == sorted(s.retire_order), msg
        assert all(s.players[x].retired for x in s.retire_order), msg
        # turn structure
        if isinstance(event, ev.TurnEnded):
            assert s.pending is None and not s.queue, f"{msg}: end_turn with pending"
        if isinstance(event, ev.YearStarted):
            assert len(s.display_doubles) == 5 and len(s.display_triples) == 5, msg
            assert all(p.coin_activations == 0 and p.coins_paid == 0 for p in s.players), msg
            self.years_seen.add(event.year)
        if isinstance(event, ev.ConquistadorScored):
            table = data.CONQUISTADOR_TABLE[n][event.year]
            last = event.order[-1]
            assert event.points[last] == 0, msg
            assert sum(event.points) <= sum(table), msg
            for seat in range(n):
                if not s.players[seat].conq_acted:
                    assert event.points[seat] == 0, msg
        if s.phase in ("play", "draft"):
            assert s.pending is None or s.active >= 0
        if isinstance(event, ev.GameEnded):
            assert self.years_seen == {1, 2, 3}, f"{msg}: years {self.years_seen}"
            assert s.year == 3, msg

"""Invariants of the Caylus rules (docs/games/caylus.md), checked after every event of a game
(property tests)."""

from __future__ import annotations

from typing import Any

from domain.caylus import data
from domain.caylus import events as ev
from domain.caylus.state import CaylusState


class InvariantChecker:
    def __init__(self, seats: int, options: Any, label: str) -> None:
        self.seats = seats
        self.options = options
        self.label = label
        self.deniers = [0] * seats
        self.cubes = [[0] * 5 for _ in range(seats)]
        self.pp = [0] * seats
        self.markers = [[0] * 4 for _ in range(seats)]
        self.rows_this_phase: list[set[str]] = [set() for _ in range(seats)]
        self.bailiff_at_turn_start: int | None = None
        self.first_pass_bonus = 0
        self.previous_order: list[int] | None = None
        self.section_sizes_at_scoring: dict[int, int] = {}
        self.scored_order: list[int] = []
        self.in_game_pp = [0] * seats

    def fail(self, msg: str) -> None:
        raise AssertionError(f"{msg} [{self.label}]")

    def check(self, st: CaylusState, e: Any) -> None:
        n = self.seats
        if isinstance(e, ev.ResourcesChanged):
            s = e.seat
            self.deniers[s] += e.deniers
            for i, v in enumerate((e.food, e.wood, e.stone, e.cloth, e.gold)):
                self.cubes[s][i] += v
            self.pp[s] += e.prestige
            if e.reason == "first_to_pass":
                self.first_pass_bonus += 1
                if e.deniers != 1:
                    self.fail("first to pass gains 1 d")
            if e.reason != "final_bonus":
                self.in_game_pp[s] += e.prestige
        elif isinstance(e, ev.PhaseStarted):
            self.rows_this_phase = [set() for _ in range(n)]
            if e.phase == 3:
                if sorted(st.passing) != list(range(n)):
                    self.fail(f"passing scale incomplete at end of phase 2: {st.passing}")
                if self.first_pass_bonus != 1:
                    self.fail("exactly one +1 d for passing position 1 per turn")
                self.first_pass_bonus = 0
        elif isinstance(e, ev.FavourTaken):
            if e.row in self.rows_this_phase[e.seat]:
                self.fail(f"row {e.row} used twice in one phase by seat {e.seat}")
            self.rows_this_phase[e.seat].add(e.row)
            r = data.ROW_INDEX[e.row]
            if e.marker < self.markers[e.seat][r]:
                self.fail("a favour marker decreased")
            if e.marker > self.markers[e.seat][r] and e.marker > st.cap():
                self.fail(f"marker moved beyond the cap {st.cap()}")
            self.markers[e.seat][r] = e.marker
        elif isinstance(e, ev.TurnStarted):
            if st.provost != st.bailiff:
                self.fail("provost != bailiff at turn start")
            if self.bailiff_at_turn_start is not None:
                step = st.bailiff - self.bailiff_at_turn_start
                if step not in (1, 2):
                    self.fail(f"bailiff moved {step}")
            self.bailiff_at_turn_start = st.bailiff
            for p in st.players:
                on_board = data.WORKERS - p.available
                if on_board > 1 or (on_board == 1 and st.inn_right != p.seat):
                    self.fail(f"seat {p.seat} has {on_board} workers out at turn start")
            alternates = self.previous_order is None or st.order == self.previous_order[::-1]
            if n == 2 and not alternates:
                self.fail("2-player turn order must alternate")
            self.previous_order = st.order[:]
            if e.turn > 18:
                self.fail("the game lasts at most 18 turns")
        elif isinstance(e, ev.SectionScoringStarted):
            self.section_sizes_at_scoring[e.section] = len(st.sections[e.section])
            if self.scored_order != list(range(e.section)):
                self.fail(f"section {e.section} scored out of order {self.scored_order}")
            self.scored_order.append(e.section)

        # --- resources ---------------------------------------------------------------------
        for p in st.players:
            s = p.seat
            if p.deniers < 0 or p.deniers != self.deniers[s]:
                self.fail(f"deniers of {s}: {p.deniers} vs events {self.deniers[s]}")
            if any(c < 0 for c in p.cubes) or p.cubes != self.cubes[s]:
                self.fail(f"cubes of {s}: {p.cubes} vs events {self.cubes[s]}")
            if p.pp < 0 or p.pp != self.pp[s]:
                self.fail(f"PP of {s}: {p.pp} vs events {self.pp[s]}")
            if any(not 0 <= m <= 5 for m in p.markers):
                self.fail("favour marker out of range")
            if self.options.favours == "simplified" and any(p.markers):
                self.fail("no markers move with simplified favours")

        # --- workers and occupancy ----------------------------------------------------------
        out = [0] * n
        for s in data.ROAD_SPACES:
            w = st.workers[s]
            if w >= 0:
                out[w] += 1
                t = st.tiles[s]
                if not t or data.TILES[t].family not in data.WORKABLE_FAMILIES:
                    self.fail(f"worker on space {s} holding {t!r}")
        for w in (st.gate, st.trading_post, st.merchants_guild, st.joust_field):
            if w >= 0:
                out[w] += 1
        for w in st.stables + st.castle_workers + [st.inn_left, st.inn_right]:
            if w >= 0:
                out[w] += 1
        for p in st.players:
            if p.available < 0 or p.available + out[p.seat] != data.WORKERS:
                self.fail(f"seat {p.seat}: {p.available} available + {out[p.seat]} out != 6")
        if len(st.stables) > (0 if n == 2 else 3) or len(set(st.stables)) != len(st.stables):
            self.fail(f"stables {st.stables}")
        if len(st.castle_workers) > n or len(set(st.castle_workers)) != len(st.castle_workers):
            self.fail(f"castle workers {st.castle_workers}")
        if len(set(st.passing)) != len(st.passing):
            self.fail("passing scale has a player twice")

        # --- tiles --------------------------------------------------------------------------
        if st.phase == 0:
            return
        on_road: dict[str, int] = {}
        for s in data.ROAD_SPACES:
            t = st.tiles[s]
            if not t:
                if st.owners[s] >= 0:
                    self.fail(f"owner on empty space {s}")
                continue
            on_road[t] = on_road.get(t, 0) + 1
            fam = data.TILES[t].family
            if fam == "neutral":
                if not 1 <= s <= 6 or st.owners[s] >= 0:
                    self.fail(f"neutral tile {t} on {s}")
            elif fam == "fixed":
                if data.FIXED_ON_ROAD.get(s) != t or st.owners[s] >= 0:
                    self.fail(f"fixed tile {t} on {s}")
            elif st.owners[s] < 0:
                self.fail(f"{t} on {s} has no owner")
        for fixed_space, fixed in data.FIXED_ON_ROAD.items():
            if st.tiles[fixed_space] != fixed:
                self.fail("a fixed building moved")
        tiles = list(data.WOOD_TILES) + list(data.STONE_TILES_BASE) + list(data.PRESTIGE_TILES)
        tiles.append("jeweller")
        for t in tiles:
            want = 2 if t == "architect" else 1
            if t == "jeweller" and not self.options.jeweller:
                want = 0
            have = st.stock.count(t) + on_road.get(t, 0)
            if have != want:
                self.fail(f"tile {t}: {have} copies in stock + road, expected {want}")

        # --- castle and pawns ---------------------------------------------------------------
        for i, sec in enumerate(st.sections):
            if len(sec) > data.SECTION_SIZE[i]:
                self.fail(f"section {i} overfull")
            if st.scored[i] and len(sec) != self.section_sizes_at_scoring.get(i, -1):
                self.fail(f"houses added to scored section {i}")
        if not 1 <= st.provost <= 28:
            self.fail(f"provost {st.provost}")
        if not 6 <= st.bailiff <= 25:
            self.fail(f"bailiff {st.bailiff}")
        if sorted(st.order) != list(range(n)):
            self.fail(f"turn order {st.order}")

        # --- end ----------------------------------------------------------------------------
        if st.phase == 8 and not st.scored[2]:
            self.fail("game over before the towers were scored")

    def check_final(self, st: CaylusState) -> None:
        """Final PP = in-game PP + the bonuses; the game is over with nothing awaited."""
        if st.phase != 8:
            self.fail("game not over")
        for p in st.players:
            bonus = 3 * p.cubes[data.G] + sum(p.cubes[:4]) // 3 + p.deniers // 4
            if p.pp != self.in_game_pp[p.seat] + bonus:
                self.fail(f"final PP of {p.seat}: {p.pp} != {self.in_game_pp[p.seat]} + {bonus}")

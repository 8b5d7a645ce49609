"""Tile placement (R15) and line activation (R22)."""

from __future__ import annotations

import random

import pytest

from domain.contract import RuleError
from domain.santa_maria import GAME, data
from domain.santa_maria import commands as cmd
from domain.santa_maria import events as ev
from domain.santa_maria.rules import legal_placements, line_buildings
from tests.santa_maria.helpers import cell, given, when


def brute_force(cells: list[str], shape: str) -> set[tuple[tuple[int, int], ...]]:
    rot = {
        0: lambda r, c: (r, c),
        90: lambda r, c: (c, -r),
        180: lambda r, c: (-r, -c),
        270: lambda r, c: (-c, r),
    }
    out = set()
    for f in rot.values():
        for R in range(-3, 10):
            for C in range(-3, 10):
                sq = [(R + f(dr, dc)[0], C + f(dr, dc)[1]) for dr, dc in data.SHAPES[shape]]
                if all(1 <= r <= 6 and 1 <= c <= 6 and cells[cell(r, c)] == "." for r, c in sq):
                    out.add(tuple(sq))
    return out


def test_counts_on_an_empty_grid() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.cells = ["."] * 36
    assert len(legal_placements(p, "DB01")) == 4 * 30
    assert len(legal_placements(p, "TR01")) == 4 * 24  # I
    assert len(legal_placements(p, "TR03")) == 4 * 25  # L


@pytest.mark.parametrize("board", data.BOARD_NAMES)
def test_placements_match_brute_force(board: str) -> None:
    s = given([board, "puerto" if board != "puerto" else "hacienda"])
    p = s.players[0]
    r = random.Random(board)
    for _ in range(20):
        for tile in ("DB01", "TR01", "TR03"):
            got = {tuple((i // 6 + 1, i % 6 + 1) for i in pl) for pl in legal_placements(p, tile)}
            assert got == brute_force(p.cells, data.TILES[tile][0])
            assert len(got) == len(legal_placements(p, tile))
        empties = [i for i in range(36) if p.cells[i] == "."]
        if len(empties) < 3:
            break
        p.cells[r.choice(empties)] = "="


def test_expand_refuses_overlap_outside_and_non_rotations() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.res["wood"], p.res["grain"] = 3, 1
    tile = s.display_doubles[0]
    bad = [
        [[1, 1], [1, 2]],  # (1,1) is a pre-printed building
        [[2, 6], [2, 7]],  # outside
        [[2, 1], [3, 2]],  # not adjacent: no rotation gives it
        [[2, 1]],  # too few cells
        [[2, 1], [2, 2], [2, 3]],  # too many
        [[2, 6], [2, 5]],  # (2,6) is blocked
    ]
    for cells in bad:
        with pytest.raises(RuleError) as err:
            GAME.decide(s, 0, cmd.Expand(tile=tile, cells=cells), random.Random(0))
        assert err.value.code == "illegal_move.bad_placement", cells
    # A placed tile is not covered again (R15).
    when(s, 0, cmd.Expand(tile=tile, cells=[[2, 1], [2, 2]]))
    s.main_done = False
    with pytest.raises(RuleError):
        GAME.decide(s, 0, cmd.Expand(tile=s.display_doubles[0], cells=[[2, 2], [3, 1]]), None)
    with pytest.raises(RuleError):
        GAME.decide(s, 0, cmd.Expand(tile=s.display_doubles[0], cells=[[2, 2], [2, 3]]), None)


def test_swapped_squares_are_different_placements() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.res["wood"] = 2
    legal = GAME.legal_commands(s, 0)
    tile = s.display_doubles[0]
    assert cmd.Expand(tile=tile, cells=[[2, 1], [2, 2]]) in legal
    assert cmd.Expand(tile=tile, cells=[[2, 2], [2, 1]]) in legal


def test_column_activation_skips_occupied_and_takes_last_unoccupied() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.coins = 5
    # Column 5: (1,5) W, (3,5) TG. A road and a coin-occupied building below change nothing.
    p.cells[cell(4, 5)] = "="
    p.coins_on[cell(3, 5)] = 1
    p.coin_activations = p.coins_paid = 1
    assert line_buildings(p, "white", 5) == [cell(1, 5)]
    s.white_pool = [5, 5, 5, 5, 5, 5]
    events = when(s, 0, cmd.ActivateDie(die="white", face=5, value=5))
    die = next(e for e in events if isinstance(e, ev.DieActivated))
    assert die.cells == [[1, 5]] and p.die_on[cell(1, 5)] == 1
    assert p.res["wood"] == 1


def test_line_without_unoccupied_building_is_refused() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    p.coins = 9
    s.white_pool = [3, 3, 3, 3, 3, 3]
    p.coins_on[cell(2, 3)] = 1
    p.coins_on[cell(5, 3)] = 2
    p.coin_activations, p.coins_paid = 2, 3
    with pytest.raises(RuleError) as err:
        GAME.decide(s, 0, cmd.ActivateDie(die="white", face=3, value=3), None)
    assert err.value.code == "illegal_move.no_unoccupied_building"
    assert not any(
        isinstance(c, cmd.ActivateDie) and c.value == 3 and c.die == "white"
        for c in GAME.legal_commands(s, 0)
    )


def test_white_dice_cap_and_foreman() -> None:
    s = given(["hacienda", "puerto"])
    p = s.players[0]
    s.white_pool = [1, 2, 3, 4, 5, 6]
    p.white_taken = 3
    p.die_on[cell(1, 1)] = p.die_on[cell(3, 2)] = p.die_on[cell(2, 3)] = 1
    with pytest.raises(RuleError) as err:
        GAME.decide(s, 0, cmd.ActivateDie(die="white", face=4, value=4), None)
    assert err.value.code == "illegal_move.white_dice_cap"
    p.scholars.append("SC09")
    when(s, 0, cmd.ActivateDie(die="white", face=4, value=4))
    assert p.white_taken == 4

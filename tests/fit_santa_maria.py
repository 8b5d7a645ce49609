"""Fits the weights of Santa Maria's search estimate (not a test): `greedy` plays itself on
fixed seeds; every third decision of the play phase records each seat's features
(`domain/santa_maria/estimate.py`), and the seat's final score is the target. Ridge least
squares, one fit per player count and stage, writes `domain/santa_maria/estimate_weights.py`.
The seeds are fixed, so the same commit writes the same table.

Run: `.venv/bin/python -m tests.fit_santa_maria [--games N] [--check]` (N games per player
count, 300 by default; `--check` prints each stage's fit and writes nothing).
"""

from __future__ import annotations

import argparse
import hashlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from domain import registry
from domain.santa_maria.estimate import FEATURES, features, stage, year_end_points
from domain.simulate import play

OUT = Path(__file__).resolve().parent.parent / "domain" / "santa_maria" / "estimate_weights.py"
EVERY = 3  # decisions between two records: neighbours say nearly the same
RIDGE = 0.001  # per record: keeps weights of rare features (an early dock) near zero

Rows = list[tuple[str, list[float], int]]  # (stage, features, final score)


def record(players: int, index: int) -> Rows:
    """One self-play game's records."""
    game = registry.get("santa-maria")
    assert game is not None
    greedy = game.bots["greedy"]
    taken: list[tuple[str, list[float], int]] = []
    decisions = 0

    def hook(state: Any, seat: int, command: Any) -> None:
        nonlocal decisions
        decisions += 1
        if decisions % EVERY or state.phase != "play":
            return
        year_end = year_end_points(state)
        for s, p in enumerate(state.players):
            taken.append((stage(state, p), features(state, s, year_end), s))

    seed = hashlib.sha256(f"fit/{players}/{index}".encode()).digest()
    result = play(game, game.options_type(), [greedy] * players, seed, on_decision=hook).result
    assert result is not None
    return [(st, f, result.scores[s]) for st, f, s in taken]


def solve(rows: list[tuple[list[float], float]], ridge: float) -> list[float]:
    """Ridge least squares by the normal equations (the bias, first, is not shrunk)."""
    n = len(rows[0][0])
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for x, y in rows:
        for i, xi in enumerate(x):
            if xi:
                b[i] += xi * y
                row = a[i]
                for j, xj in enumerate(x):
                    row[j] += xi * xj
    for i in range(1, n):
        a[i][i] += ridge * len(rows)
    return _gauss(a, b)


def _gauss(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n):
                    a[r][c] -= factor * a[col][c]
                b[r] -= factor * b[col]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (b[r] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def r_squared(rows: list[tuple[list[float], float]], w: list[float]) -> float:
    mean = sum(y for _, y in rows) / len(rows)
    residual = sum((y - sum(a * b for a, b in zip(w, x, strict=True))) ** 2 for x, y in rows)
    total = sum((y - mean) ** 2 for _, y in rows)
    return 1 - residual / total if total else 1.0


def fit(games: int) -> dict[int, dict[str, list[float]]]:
    table: dict[int, dict[str, list[float]]] = {}
    with ProcessPoolExecutor() as pool:
        for players in (2, 3, 4):
            by_stage: dict[str, list[tuple[list[float], float]]] = {}
            for rows in pool.map(record, [players] * games, range(games), chunksize=8):
                for st, x, y in rows:
                    by_stage.setdefault(st, []).append((x, float(y)))
            table[players] = {}
            for st in sorted(by_stage):
                w = solve(by_stage[st], RIDGE)
                table[players][st] = [round(v, 3) for v in w]
                print(
                    f"{players} players, stage {st}: {len(by_stage[st])} records,"
                    f" r-squared {r_squared(by_stage[st], w):.3f}"
                )
    return table


def render(table: dict[int, dict[str, list[float]]], games: int) -> str:
    lines = [
        '"""Weights of `estimate.py`, written by `python -m tests.fit_santa_maria'
        f' --games {games}`:',
        'players -> stage (year; a: active, r: retired) -> one weight per FITTED_FEATURES."""',
        "",
        "# fmt: off",
        "FITTED_FEATURES = (",
        *_wrapped([f'"{name}"' for name in FEATURES], "    "),
        ")",
        "WEIGHTS: dict[int, dict[str, tuple[float, ...]]] = {",
    ]
    for players, stages in table.items():
        lines.append(f"    {players}: {{")
        for st, w in stages.items():
            lines += [f'        "{st}": (', *_wrapped([repr(v) for v in w], " " * 12), "        ),"]
        lines.append("    },")
    lines += ["}", "# fmt: on", ""]
    return "\n".join(lines)


def _wrapped(items: list[str], indent: str, width: int = 96) -> list[str]:
    lines = [indent]
    for item in items:
        if len(lines[-1]) + len(item) + 2 > width:
            lines.append(indent)
        lines[-1] += item + ", "
    return [line.rstrip() for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    table = fit(args.games)
    if not args.check:
        OUT.write_text(render(table, args.games))
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

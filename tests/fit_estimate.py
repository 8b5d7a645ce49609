"""Fits the weights of a game's search estimate (`domain/fitted.py`; not a test): `greedy`
plays itself on fixed seeds; every third decision of a position the game's `estimate.py`
records gives each seat's stage and features, and the seat's final score is the target.
Ridge least squares, one fit per player count and stage, writes the game's
`estimate_weights.py`. The seeds are fixed, so the same commit writes the same table.

Run: `.venv/bin/python -m tests.fit_estimate --game G [--games N] [--check]` (N games per
player count, 300 by default; `--check` prints each stage's fit and writes nothing).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

from domain import registry
from domain.contract import Game
from domain.simulate import play

ROOT = Path(__file__).resolve().parent.parent
EVERY = 3  # decisions between two records: neighbours say nearly the same
RIDGE = 0.001  # per record: keeps weights of rare features (an early dock) near zero

Rows = list[tuple[str, list[float], float]]  # (stage, features, final score)


def _game(name: str) -> Game[Any, Any]:
    game = registry.get(name)
    if game is None:
        sys.exit(f"no game {name!r}")
    return game


def estimate_module(game: Game[Any, Any]) -> ModuleType:
    """The game's `estimate.py`, beside its package's `__init__`."""
    return importlib.import_module(f"{type(game).__module__}.estimate")


def weights_path(game: Game[Any, Any]) -> Path:
    return ROOT / Path(*type(game).__module__.split(".")) / "estimate_weights.py"


def record(name: str, players: int, index: int) -> Rows:
    """One self-play game's records."""
    game = _game(name)
    estimate = estimate_module(game)
    greedy = game.bots["greedy"]
    taken: list[tuple[str, list[float], int]] = []
    decisions = 0

    def hook(state: Any, seat: int, command: Any) -> None:
        nonlocal decisions
        decisions += 1
        if decisions % EVERY == 0 and estimate.recorded(state):
            for s, (stage, features) in enumerate(estimate.records(state)):
                taken.append((stage, features, s))

    seed = hashlib.sha256(f"fit/{players}/{index}".encode()).digest()
    result = play(game, game.options_type(), [greedy] * players, seed, on_decision=hook).result
    assert result is not None
    return [(stage, x, float(result.scores[s])) for stage, x, s in taken]


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


def fit(name: str, games: int) -> dict[int, dict[str, list[float]]]:
    game = _game(name)
    table: dict[int, dict[str, list[float]]] = {}
    counts = range(game.min_players, game.max_players + 1)
    with ProcessPoolExecutor() as pool:
        for players in counts:
            by_stage: dict[str, list[tuple[list[float], float]]] = {}
            jobs = pool.map(record, [name] * games, [players] * games, range(games), chunksize=8)
            for rows in jobs:
                for stage, x, y in rows:
                    by_stage.setdefault(stage, []).append((x, y))
            table[players] = {}
            for stage in sorted(by_stage):
                w = solve(by_stage[stage], RIDGE)
                table[players][stage] = [round(v, 3) for v in w]
                print(
                    f"{players} players, stage {stage}: {len(by_stage[stage])} records,"
                    f" r-squared {r_squared(by_stage[stage], w):.3f}"
                )
    return table


def render(
    table: dict[int, dict[str, list[float]]], features: tuple[str, ...], name: str, games: int
) -> str:
    lines = [
        '"""Weights of `estimate.py`, written by',
        f"`python -m tests.fit_estimate --game {name} --games {games}`:",
        'players -> stage (see estimate.py) -> one weight per FITTED_FEATURES entry."""',
        "",
        "# fmt: off",
        "FITTED_FEATURES = (",
        *_wrapped([f'"{feature}"' for feature in features], "    "),
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
    parser.add_argument("--game", required=True)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    game = _game(args.game)
    table = fit(args.game, args.games)
    if not args.check:
        out = weights_path(game)
        out.write_text(render(table, estimate_module(game).FEATURES, args.game, args.games))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""Rules engine speed (not a test): random games per CPU-second for every game and player
count, this tree beside another commit's `domain/` in one run, with the ratio.

The other commit is checked out in a temporary `git worktree`; each measurement runs in a
fresh subprocess whose `domain` package is imported from one of the two trees, plays random
bots through that tree's own `domain.simulate.play` (the whole loop as it was then) on the
same seeds for `seconds` of CPU time (`time.process_time`), and the two alternate config by
config so that a busy neighbour slows both sides alike.

Run: `.venv/bin/python -m tests.bench_engine [--base REV] [--seconds S]` (base: HEAD~1,
3 s); `make bench` prints `engine_table()`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent

# Runs inside the subprocess, against whichever tree is first on sys.path.
_WORKER = """
import json, sys, time
from domain.contract import random_bot
from domain.registry import GAMES
from domain.simulate import play

name, seats, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
game = GAMES[name]
options = game.options_type()
games = 0
started = time.process_time()
while time.process_time() - started < seconds:
    play(game, options, [random_bot] * seats, f"bench-engine/{games}".encode())
    games += 1
print(json.dumps(games / (time.process_time() - started)))
"""


def configs(root: Path) -> list[tuple[str, int]]:
    """(game, seats) for every registered game of the tree at `root`."""
    code = (
        "import json; from domain.registry import GAMES; print(json.dumps("
        "[(n, s) for n in sorted(GAMES) for s in range(GAMES[n].min_players,"
        " GAMES[n].max_players + 1)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, check=True, capture_output=True, text=True
    )
    return [(name, seats) for name, seats in json.loads(out.stdout)]


def games_per_cpu_second(root: Path, name: str, seats: int, seconds: float) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _WORKER, name, str(seats), str(seconds)],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(out.stdout))


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True)
    return done.stdout.strip()


class Row(msgspec.Struct, frozen=True):
    game: str
    seats: int
    before: float  # games per CPU-second at the base commit
    after: float  # ... and in this tree

    @property
    def ratio(self) -> float:
        return self.after / self.before


@contextlib.contextmanager
def checked_out(base: str) -> Iterator[tuple[str, Path]]:
    """(the short hash of `base`, a temporary worktree of it), removed after."""
    commit = _git("rev-parse", "--short", base)
    with tempfile.TemporaryDirectory(prefix="bench-base-") as tmp:
        other = Path(tmp) / "base"
        _git("worktree", "add", "--detach", str(other), commit)
        try:
            yield commit, other
        finally:
            _git("worktree", "remove", "--force", str(other))


def engine_rows(base: str, seconds: float) -> tuple[str, list[Row]]:
    """The base commit's short hash, and one row per (game, seats) of this tree."""
    rows: list[Row] = []
    with checked_out(base) as (commit, other):
        for name, seats in configs(ROOT):
            before = games_per_cpu_second(other, name, seats, seconds)
            after = games_per_cpu_second(ROOT, name, seats, seconds)
            rows.append(Row(name, seats, before, after))
    return commit, rows


def engine_table(base: str | None = None, seconds: float | None = None) -> str:
    """The markdown table `make bench` prints (base: $BENCH_ENGINE_BASE or HEAD~1; CPU
    seconds per figure: $BENCH_ENGINE_SECONDS or 3)."""
    base = base or os.environ.get("BENCH_ENGINE_BASE", "HEAD~1")
    seconds = seconds or float(os.environ.get("BENCH_ENGINE_SECONDS", "3"))
    commit, rows = engine_rows(base, seconds)
    lines = [
        f"## Rules engine: random games per CPU-second, {commit} beside this tree",
        f"\n({seconds:g} s of CPU per figure, random bots, `domain.simulate.play` of each tree)\n",
        f"| game | seats | {commit} | this tree | ratio |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.game} | {r.seats} | {r.before:.1f} | {r.after:.1f} | {r.ratio:.2f}x |" for r in rows
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="random games per CPU-second, side by side")
    parser.add_argument("--base", help="the commit to compare with (default HEAD~1)")
    parser.add_argument("--seconds", type=float, help="CPU seconds per figure (default 3)")
    args = parser.parse_args(argv)
    print(engine_table(args.base, args.seconds))


if __name__ == "__main__":
    main()

"""Speed report (not a test): random 4-player games per second via domain.simulate.play, and
replay (evolve-only) events per second. Run: .venv/bin/python -m tests.caylus.bench_speed"""

from __future__ import annotations

import sys
import time

from domain.caylus import GAME, CaylusOptions
from domain.contract import random_bot
from domain.simulate import play


def main(games: int = 200) -> None:
    options = CaylusOptions()
    logs = []
    start = time.perf_counter()
    for i in range(games):
        logs.append(play(GAME, options, [random_bot] * 4, f"bench/{i}".encode()).events)
    elapsed = time.perf_counter() - start
    print(
        f"random 4-player games: {games / elapsed:.1f} games/s "
        f"({sum(map(len, logs)) / games:.0f} events/game)"
    )
    events = sum(map(len, logs))
    start = time.perf_counter()
    for log in logs:
        st = GAME.initial(options, 4)
        for e in log:
            st = GAME.evolve(st, e)
    elapsed = time.perf_counter() - start
    print(f"replay: {events / elapsed:,.0f} events/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)

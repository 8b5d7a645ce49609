"""Where a loaded server's time goes: `python -m tests.profile_api [game] [games at once]`
(`make profile`) plays the bench's API load (tests/bench.py: every seat a person, GET legal
moves then POST) against one `tabletop serve` worker on Postgres while py-spy samples the
server, then prints the share of samples per function: its own time, and the time spent
inside it for the project's code and the frameworks it runs on."""

from __future__ import annotations

import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests import bench

SECONDS = 10
SHOWN = ("(service/", "(api/", "(domain/", "(projections/", "uvicorn/protocols", "litestar/routes")


def profile(raw: Path) -> list[str]:
    own: collections.Counter[str] = collections.Counter()
    inside: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():  # a frame name broken over lines
            continue
        n = int(count)
        total += n
        frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
        own[frames[-1]] += n
        for frame in set(frames):
            inside[frame] += n
    out = [f"{total} samples of the server's busy threads", "", "own time:"]
    out += [f"{100 * n / total:5.1f}%  {f}" for f, n in own.most_common(20)]
    out += ["", "time inside (the project's code and the request path):"]
    shown = [(f, n) for f, n in inside.most_common() if any(k in f for k in SHOWN)]
    out += [f"{100 * n / total:5.1f}%  {f}" for f, n in shown[:45]]
    return out


def main() -> None:
    game = sys.argv[1] if len(sys.argv) > 1 else "puerto-rico"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    bench.SECONDS = SECONDS + 2
    with bench._scratch() as schema, tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "server.raw"
        with bench._serving(schema) as (server, url):
            spy = [sys.prefix + "/bin/py-spy", "record", "--pid", str(server.pid)]
            spy += ["--subprocesses", "--duration", str(SECONDS), "--rate", "200"]
            spy += ["--format", "raw", "--output", str(raw), "--nonblocking"]
            sampler = subprocess.Popen(spy, stdout=subprocess.DEVNULL)
            latencies, rate = bench.api_moves(url, game, games)
            sampler.wait()
        print(
            f"{game}, {games} games at once, one worker: {rate:.0f} moves/s, POST p50 "
            f"{bench._pct(latencies, 0.5):.1f} ms, p99 {bench._pct(latencies, 0.99):.1f} ms"
        )
        print("\n".join(profile(raw)))


if __name__ == "__main__":
    main()

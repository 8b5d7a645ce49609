"""`tabletop bot` in-process, for the tests that let it play."""

from __future__ import annotations

import threading

from tabletop_client import Client

from api.bot_runner import Runner, policy_named


def serve_games(server: str, key: str, spec: str, games: int, seed: int = 7) -> Runner:
    """`tabletop bot --policy spec` until `games` games are over (five minutes at most)."""
    client = Client(server, key)
    runner = Runner(client, policy_named(spec), seed=seed)
    thread = threading.Thread(target=runner.run, args=(lambda r: r.finished >= games,))
    thread.start()
    thread.join(300)
    client.close()
    assert not thread.is_alive(), f"the runner did not finish {games} games"
    return runner

"""The fan-out's own process (api/fanout.py): `python -m api.fanout_process <fd>`, started by
api/handoff.py. Apart from api/fanout.py so that the engine, which the API process runs
in a thread on SQLite, imports nothing of the hub that hands streams to it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from contextlib import suppress
from typing import Any

from api.fanout import NICE, FanOut, reader


def main() -> None:
    """The fan-out process: `python -m api.fanout_process <fd of its channel>`. Its first message is
    the store's settings; it answers with the games it knows, then serves until the API
    process closes the channel (or dies)."""
    from api.hub import LiveHub
    from domain.registry import GAMES
    from service.current import Current
    from service.logs import configure
    from service.plugins import load_plugins
    from service.reads import GameReads
    from service.store import EventStoreApp

    channel = socket.socket(fileno=int(sys.argv[1]))
    with suppress(OSError):
        os.nice(NICE)
    configure()
    load_plugins()
    env = json.loads(channel.recv(1 << 20))
    store = EventStoreApp(env=env)
    hub = LiveHub(store)
    channel.send(json.dumps({"games": sorted(GAMES)}).encode())
    try:
        fanout = FanOut(hub.watching, reader(GameReads(store, Current(store))))
        _run(fanout.serve(channel))
    finally:
        hub.stop()
        store.close()


def _run(main: Any) -> None:
    """uvloop's loop where it is installed (as uvicorn does): its writes cost less."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


if __name__ == "__main__":
    main()

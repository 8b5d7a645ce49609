"""Many concurrent HTTP readers of one path, in a process of their own (so that the test's
own measurements do not share its loop): each of `connections` keep-alive connections sends
a GET, reads the whole answer and sends the next, until `seconds` have passed. Raw asyncio
streams, not an HTTP client library: a few hundred connections then cost the flood less
CPU than they cost the server.

    python -m tests.support.read_load HOST PORT PATH CONNECTIONS SECONDS

prints "open" once every connection is open, then one JSON line: the answers by status,
and the 503 answers' problem codes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter


async def _reader(
    host: str, port: int, path: str, until: float, seen: Counter[str], opened: asyncio.Event
) -> None:
    request = f"GET {path} HTTP/1.1\r\nhost: {host}\r\n\r\n".encode()
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            seen["connect_failed"] += 1
            await asyncio.sleep(0.05)
            continue
        seen["connections"] += 1
        if seen["connections"] == seen["wanted"]:
            opened.set()
        try:
            while time.monotonic() < until:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = head[9:12].decode()
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                seen[status] += 1
                if status == "503":
                    seen["503:" + json.loads(body).get("code", "?")] += 1
                if b"connection: close" in head.lower():
                    break
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            seen["dropped"] += 1
        finally:
            writer.close()


async def flood(host: str, port: int, path: str, connections: int, seconds: float) -> Counter[str]:
    """The flood; prints "open" once every connection has been opened."""
    seen: Counter[str] = Counter(wanted=connections)
    until = time.monotonic() + seconds
    opened = asyncio.Event()
    readers = [_reader(host, port, path, until, seen, opened) for _ in range(connections)]

    async def say_open() -> None:
        await opened.wait()
        print("open", flush=True)

    told = asyncio.ensure_future(say_open())
    await asyncio.gather(*readers)
    told.cancel()
    return seen


if __name__ == "__main__":
    host, port, path, connections, seconds = sys.argv[1:6]
    seen = asyncio.run(flood(host, int(port), path, int(connections), float(seconds)))
    print(json.dumps(dict(seen)), flush=True)

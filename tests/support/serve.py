"""`tabletop serve` in a subprocess on a free port, for the bench and the tests that need the
real command (its own processes, signals)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(
    env: dict[str, str], timeout: float = 30, workers: int = 1, log: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start `tabletop serve` with `env`; returns it and its URL once /health answers 200.
    `log` keeps its stderr (appended), for a test that reads it when it fails."""
    port = free_port()
    command = [sys.executable, "-m", "api.cli", "serve", "--port", str(port)]
    with open(log or os.devnull, "ab") as stderr:
        server = subprocess.Popen(
            [*command, "--workers", str(workers)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                return server, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError("the API server did not start")

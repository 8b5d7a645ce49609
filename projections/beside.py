"""The projection runner in a process of its own, beside `tabletop serve` on Postgres.

In the API's process the runner would share its interpreter lock and slow every request
(it folds each game again); in a process of its own it runs on another core. The process
is restarted if it dies (its work is crash-safe: rows and position commit together), and it
ends itself if `serve` goes away without stopping it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

import structlog

from service.settings import Settings

log = structlog.get_logger("tabletop.projections")

RESTART_AFTER = 1.0  # seconds between a runner's death and its replacement


def _run(settings: Settings, parent: int) -> None:
    from projections.runner import run_forever
    from service.logs import configure
    from service.plugins import load_plugins

    configure(settings.log_json)
    load_plugins()

    def orphaned() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)  # nothing is lost: the read model commits rows and position together

    threading.Thread(target=orphaned, daemon=True).start()
    run_forever(settings)


class RunnerBeside:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._stopping = threading.Event()
        self._process = self._start()
        self._watch = threading.Thread(target=self._supervise, daemon=True)
        self._watch.start()

    def _start(self) -> multiprocessing.process.BaseProcess:
        process = self._context.Process(
            target=_run, args=(self._settings, os.getpid()), name="tabletop-projections"
        )
        process.start()
        return process

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            self._process.join(0.5)
            if self._process.is_alive() or self._stopping.is_set():
                continue
            log.error("projection_runner_died", exitcode=self._process.exitcode)
            if self._stopping.wait(RESTART_AFTER):
                return
            self._process = self._start()

    def stop(self) -> None:
        self._stopping.set()
        self._process.terminate()
        self._process.join(10)

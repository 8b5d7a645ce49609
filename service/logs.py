"""structlog set-up: JSON lines when stderr is not a terminal, readable lines on a terminal.
Request data (the request id) is bound with contextvars and merged into every line."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog


def configure(
    json: bool | None = None, level: int = logging.INFO, stream: TextIO | None = None
) -> None:
    stream = stream or sys.stderr
    if json is None:
        json = not stream.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info if json else structlog.dev.set_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )

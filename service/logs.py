"""structlog set-up: JSON lines when stderr is not a terminal, readable lines on a terminal.
Request data (the request id) is bound with contextvars and merged into every line."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, TextIO

import msgspec
import structlog


def _dumps(obj: Any, **_: Any) -> str:
    return msgspec.json.encode(obj, enc_hook=str).decode()


def configure(
    json: bool | None = None, level: int | None = None, stream: TextIO | None = None
) -> None:
    """`level` defaults to TABLETOP_LOG_LEVEL (INFO)."""
    if level is None:
        level = logging.getLevelNamesMapping().get(
            os.environ.get("TABLETOP_LOG_LEVEL", "INFO").upper(), logging.INFO
        )
    stream = stream or sys.stderr
    if json is None:
        json = not stream.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if json
        else structlog.dev.ConsoleRenderer()
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

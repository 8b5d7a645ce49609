"""Extra games from outside `domain/` (TABLETOP_PLUGINS=module[,module]): each module
exposes `GAME`. The tests use it to run the CLI over their tiny test game."""

from __future__ import annotations

import importlib
import os

from domain.registry import register


def load_plugins() -> None:
    for name in filter(None, os.environ.get("TABLETOP_PLUGINS", "").split(",")):
        register(importlib.import_module(name.strip()).GAME)

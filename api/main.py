"""Wiring: settings -> store -> services -> Litestar app (used by `tabletop serve`)."""

from __future__ import annotations

from litestar import Litestar

from api.app import Tabletop, create_app
from service.logs import configure
from service.plugins import load_plugins
from service.settings import Settings
from service.store import open_store


def build(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()
    configure(settings.log_json)
    load_plugins()
    return create_app(Tabletop(open_store(settings), settings.arbiters))

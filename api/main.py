"""The app `tabletop serve` runs (uvicorn's factory): settings -> the wiring
(api/bootstrap.py) -> the Litestar app (api/app.py)."""

from __future__ import annotations

from litestar import Litestar

from api.app import create_app
from api.bootstrap import open_tabletop
from service.logs import configure
from service.plugins import load_plugins
from service.settings import Settings


def build(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()
    configure(settings.log_json)
    load_plugins()
    return create_app(open_tabletop(settings), settings)

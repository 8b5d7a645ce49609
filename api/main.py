"""Wiring: settings -> store -> services -> Litestar app (used by `tabletop serve`)."""

from __future__ import annotations

import os

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
    # The projection runner runs inside the app unless another process runs it (serve with
    # several workers runs one beside them; `tabletop projections run` is another way).
    inside = os.environ.get("TABLETOP_PROJECTIONS", "app") == "app"
    in_memory = settings.database_url is None and settings.sqlite_path == ":memory:"
    # The timekeeper runs in the app too (one per database acts), unless it runs elsewhere
    # (`tabletop timekeeper run`): its timeouts then reach this process's reads at once.
    keeps_time = os.environ.get("TABLETOP_TIMEKEEPER", "app") == "app"
    # The bot runner plays in the app too, unless a process of its own does (`tabletop bots
    # run`): a bot's seat is never left waiting.
    plays_bots = os.environ.get("TABLETOP_BOTS", "app") == "app"
    standby = settings.standby()  # a hot standby for history and lists (docs/operations.md)
    return create_app(
        Tabletop(
            open_store(settings),
            settings.arbiters,
            projections=settings if inside and not in_memory else None,
            create_tables=settings.create_tables,
            keep_time=settings if keeps_time and not in_memory else None,
            limits=settings.limits,
            standby=open_store(standby) if standby is not None else None,
            run_bots=plays_bots,
        ),
        settings,
    )

"""Operations: whether the store answers (`/health`) and the server's metrics (`/metrics`)."""

from __future__ import annotations

import os

from litestar import Response, get
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.exposition import generate_latest

from api.bootstrap import Shared
from api.errors import documented
from api.schemas import Health


class RunHealth(Health):
    """/health's 200 when the server was started with TABLETOP_RUN_TOKEN set: it says that
    token back, `{"status": "ok", "run": "<token>"}`, so that whoever started the server knows
    that the server answering on its port is that one (the README's "Trying it" waits for it).
    The operation is still declared to answer `Health`, whose schema allows this field."""

    run: str


@get(
    "/health",
    operation_id="health",
    tags=["operations"],
    responses=documented(503, api=False),
)
async def health(tabletop: Shared) -> Health:
    """Whether the event store answers: 200 `ok`, or 503 `store_unavailable` within 2 seconds
    when it does not (answered on the event loop: it needs no worker thread).

    Example: GET /health"""
    await tabletop.watch.check()
    run = os.environ.get("TABLETOP_RUN_TOKEN")
    return RunHealth("ok", run) if run else Health("ok")


@get(
    "/metrics",
    operation_id="metrics",
    tags=["operations"],
    sync_to_thread=True,
    media_type=CONTENT_TYPE_LATEST,
    include_in_schema=True,
)
def metrics(tabletop: Shared) -> Response[bytes]:
    """The server's metrics, in Prometheus text exposition format: requests by route and
    status, their latency, moves applied, the projection lag.

    Example: GET /metrics"""
    return Response(generate_latest(tabletop.metrics.registry), media_type=CONTENT_TYPE_LATEST)

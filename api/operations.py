"""Operations: whether the store answers (`/health`) and the server's metrics (`/metrics`)."""

from __future__ import annotations

from litestar import Response, get
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.exposition import generate_latest

from api.bootstrap import Shared
from api.errors import documented
from api.schemas import Health


@get(
    "/health",
    operation_id="health",
    tags=["operations"],
    responses=documented(503),
)
async def health(tabletop: Shared) -> Health:
    """Whether the event store answers: 200 `ok`, or 503 `store_unavailable` within 2 seconds
    when it does not (answered on the event loop: it needs no worker thread).

    Example: GET /health"""
    await tabletop.watch.check()
    return Health("ok")


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

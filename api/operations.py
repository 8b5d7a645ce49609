"""Operations: whether the store answers and nothing was found tampered with (`/health`),
whether this process takes traffic (`/ready`), and the server's metrics (`/metrics`)."""

from __future__ import annotations

import os

from litestar import Response, get
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.exposition import generate_latest

from api.bootstrap import Shared
from api.errors import documented
from api.schemas import Health, Ready
from service.errors import Unavailable
from service.transparency import log_of

SHOWN = 100  # tampered games named in /health


class RunHealth(Health):
    """/health's 200 when the server was started with TABLETOP_RUN_TOKEN set: it says that
    token back, `{"status": "ok", "run": "<token>"}`, so that whoever started the server knows
    that the server answering on its port is that one (the README's "Trying it" waits for it).
    The operation is still declared to answer `Health`, whose schema allows this field."""

    run: str | None = None


@get(
    "/health",
    operation_id="health",
    tags=["operations"],
    responses=documented(503, api=False),
)
async def health(tabletop: Shared) -> Health:
    """Whether the event store answers: 200 `ok`, or 503 `store_unavailable` within 2 seconds
    when it does not (answered on the event loop). 200 `degraded` when games were found
    tampered with (by the sentinel or an audit, in any process: `tampered_games`, their ids
    in `tampered`) or this server's transparency log refuses to sign (`log_refusal`).

    Example: GET /health"""
    await tabletop.watch.check()
    tampered = tabletop.findings.known()  # (read again every few seconds, by a thread)
    refusal = log_of(tabletop.store).refusal
    answer = RunHealth(status="ok", run=os.environ.get("TABLETOP_RUN_TOKEN"))
    if tampered or refusal:
        answer.status = "degraded"
        answer.tampered_games = len(tampered) or None
        answer.tampered = sorted(tampered)[:SHOWN] or None
        answer.log_refusal = refusal
    return answer


@get(
    "/ready",
    operation_id="ready",
    tags=["operations"],
    responses=documented(503, api=False),
)
async def ready(tabletop: Shared) -> Ready:
    """Whether this process takes traffic: 200 `ready`, or 503 `not_ready` while its store
    does not answer, or while its timed games' clocks are being credited after an outage or
    a start (moves in timed games would be held). Answered at once from what the process
    knows (the store's last probe), whatever the load: for load balancers and deployments.

    Example: GET /ready"""
    try:
        await tabletop.watch.check()
    except Unavailable as lost:
        raise Unavailable("not_ready", f"the store does not answer: {lost.detail}") from None
    if tabletop.games.resuming.since is not None:
        raise Unavailable("not_ready", "clocks are being credited after an outage or a start")
    return Ready("ready")


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

"""GET /health: 200 when the store answers, 503 when it does not, within HEALTH_TIMEOUT.

The store's own calls retry for a long time when the database is gone (about ten tries of
the connect timeout); a load balancer wants an answer now, so the probe runs in a thread of
its own and the request waits for it no longer than HEALTH_TIMEOUT. One probe at a time:
requests arriving while one runs share its answer.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from litestar import Request, get

from api.errors import documented
from api.schemas import Health
from service.errors import Unavailable

HEALTH_TIMEOUT = 2.0


class StoreProbe:
    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._running: Future[None] | None = None

    def check(self, timeout: float = HEALTH_TIMEOUT) -> None:
        """Return when the store answers; raise Unavailable otherwise."""
        with self._lock:
            probe = self._running
            if probe is None or probe.done():
                probe = self._running = Future()
                threading.Thread(target=self._probe, args=(probe,), daemon=True).start()
        try:
            probe.result(timeout)
        except FutureTimeout:
            raise Unavailable("store_unavailable", "the store does not answer in time") from None
        except Exception as error:  # any failure of the store means "not healthy"
            detail = f"the store does not answer: {error}"
            raise Unavailable("store_unavailable", detail) from None

    def _probe(self, probe: Future[None]) -> None:
        try:
            self._store.recorder.max_notification_id()
        except BaseException as error:
            probe.set_exception(error)
        else:
            probe.set_result(None)


@get(
    "/health",
    operation_id="health",
    tags=["operations"],
    sync_to_thread=True,
    responses=documented(503),
)
def health(request: Request[Any, Any, Any]) -> Health:
    """Whether the event store answers: 200 `ok`, or 503 within 2 seconds when it does not.

    Example: GET /health"""
    request.app.state.tabletop.probe.check()
    return Health("ok")

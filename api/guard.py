"""What an API request must pass before a handler runs (paths under /v1/; /health, /metrics,
the viewer's pages and the schema are never refused here):

1. the store is down (api/health.py): 503 `unavailable` at once, `Retry-After: 1`;
2. every worker thread is busy and `queued` requests already wait for one: 503 `overloaded`
   (load shedding: an answer now rather than a request that hangs);
3. the client address sent too many wrong API keys lately: 429 `bad_key_backoff`;
4. the API key's requests, and the client address's registrations, within their rates
   (api/limits.py): 429 `rate_limited` / `registration_limited`;
5. an Authorization header that is not a player's API key: 401 `unauthorized` on every
   route, the public ones included (a wrong key is never served as if none were sent);
   checked as the request runs (below), charged as any 401.

Each refusal is application/problem+json with `Retry-After`. A response 401 to a request
that sent a bearer key is charged to its address's wrong-key bucket.

A request let through (a long poll excepted) then waits for one of LOOP_SLOTS, held until its
response begins: the loop steps a bounded number of requests at once, so that a turn of
the loop stays short under any load and /health, which takes no slot, answers at once.

A request let through stays known to the store's watch until its response begins: one that
waits SUSPECT_AFTER has the store probed, and if the store is found down, it is answered 503
`unavailable` there and then (what its handler sends later, if anything, is dropped).

The client address is the connection's peer, or the address a trusted reverse proxy put in
X-Forwarded-For (`tabletop serve --forwarded-allow-ips`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.bootstrap import ARRIVED, CALLER, Tabletop
from api.errors import PROBLEM_JSON, problem_body
from api.health import SUSPECT_AFTER
from api.limits import retry_after

if TYPE_CHECKING:
    from service.players import Player

API = "/v1/"
# API requests the loop works on at once (from their start to their response's start): the
# others wait their turn, costing the loop nothing. With a few hundred requests at once in
# progress, each turn of the loop would step every one of them, and a request outside the
# API (/health) would wait seconds for the few turns it needs; with 64, a turn is short.
LOOP_SLOTS = 64
SLOT_QUEUE = 4096  # requests waiting for a slot beyond which more are shed (503)
_answering: set[asyncio.Task[None]] = set()
REGISTER = "/v1/players"


class GuardMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)
    _slots: asyncio.Semaphore | None = None  # made on the app's loop, at its first request

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        path: str = scope.get("path", "")
        if not path.startswith(API):
            await next_app(scope, receive, send)
            return
        t: Tabletop = scope["litestar_app"].state.tabletop
        scope[ARRIVED] = t.games.now()  # type: ignore[literal-required]
        if t.watch.down:
            await _refuse(send, 503, "unavailable", "the event store is down; try again", 1)
            return
        if _crowded(t.limits.queued):
            detail = "the server is busy with the requests before yours; try again"
            await _refuse(send, 503, "overloaded", detail, 1)
            return
        client = scope.get("client")
        address = client[0] if client else ""
        token = _bearer(scope)
        if token and t.bad_keys is not None:
            wait = t.bad_keys.wait(address)
            if wait:
                detail = "too many wrong API keys from your address; wait before trying again"
                await _refuse(send, 429, "bad_key_backoff", detail, wait)
                return
        if token and t.per_key is not None:
            wait = t.per_key.take(token)  # a forged key has a bucket of its own
            if wait:
                rate = t.per_key.rate
                detail = f"at most {rate.count} requests per {rate.seconds:g} s per API key"
                await _refuse(send, 429, "rate_limited", detail, wait)
                return
        registers = path == REGISTER and scope.get("method") == "POST"
        if registers and t.register is not None:
            wait = t.register.take(address)
            if wait:
                rate = t.register.rate
                detail = f"at most {rate.count} new players per {rate.seconds:g} s per address"
                await _refuse(send, 429, "registration_limited", detail, wait)
                return
        checked = _key_checked(t, token, next_app) if _authorization(scope) else next_app
        keyed = address if token else None
        if b"wait_for_version=" in scope.get("query_string", b""):  # a long poll: no slot
            await _answered(t, scope, receive, send, checked, keyed, None)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(LOOP_SLOTS)
        if self._slots.locked() and len(self._slots._waiters or ()) >= SLOT_QUEUE:
            detail = "the server is busy with the requests before yours; try again"
            await _refuse(send, 503, "overloaded", detail, 1)
            return
        await _answered(t, scope, receive, send, checked, keyed, self._slots)


def _key_checked(t: Tabletop, token: str, next_app: ASGIApp) -> ASGIApp:
    """`next_app`, once the request's key is found valid: a key that is not is refused on
    every route, the public ones too (never served as if no key had been sent). Checked
    inside `_answered`, so that a store that stops answering while the key is looked up
    gets the request its 503 like any other."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        player = await _player(t, token)
        if player is None:
            detail = "the API key is not valid (send Authorization: Bearer <api_key>)"
            await _refuse(send, 401, "unauthorized", detail, None)
            return
        scope[CALLER] = player  # type: ignore[literal-required]  # the handler's caller
        await next_app(scope, receive, send)

    return checked


async def _player(t: Tabletop, token: str) -> Player | None:
    """The player whose API key `token` is: on the loop when its player is in memory, else
    in a worker thread (it may read the store)."""
    if not token:
        return None
    if t.players.known(token):
        return t.players.authenticate(token)
    return await anyio.to_thread.run_sync(t.players.authenticate, token)


async def _answered(
    t: Tabletop,
    scope: Scope,
    receive: Receive,
    send: Send,
    next_app: ASGIApp,
    keyed: str | None,
    slots: asyncio.Semaphore | None,
) -> None:
    """Run the request, in one of the `slots` until its response begins, 503 at once if the
    store is found down before then; a 401 is charged to `keyed` (the address of a request
    that sent a key)."""
    watch, bad_keys = t.watch, t.bad_keys if keyed is not None else None
    state = {"begun": False, "answered": False, "slot": False}
    refusal: list[asyncio.Task[None]] = []

    def answer_now() -> None:  # the watch found the store down
        if not state["begun"]:
            state["answered"] = True
            detail = "the event store does not answer; try again"
            task = asyncio.ensure_future(_refuse(send, 503, "unavailable", detail, 1))
            _answering.add(task)  # kept until done (the loop holds tasks weakly)
            task.add_done_callback(_answering.discard)
            refusal.append(task)

    def begun() -> None:
        state["begun"] = True
        timer.cancel()
        watch.waiting.discard(answer_now)
        if state["slot"]:
            state["slot"] = False
            assert slots is not None
            slots.release()

    async def sending(message: Message) -> None:
        if state["answered"]:
            return
        if message["type"] == "http.response.start":
            begun()
            if bad_keys is not None and keyed is not None and message["status"] == 401:
                bad_keys.take(keyed)
        await send(message)

    timer = asyncio.get_running_loop().call_later(SUSPECT_AFTER, watch.suspect)
    watch.waiting.add(answer_now)
    try:
        if slots is not None:
            await slots.acquire()
            state["slot"] = True
            _SLOT.set((slots, state))
        if not state["answered"]:  # (the store may have been found down meanwhile)
            await next_app(scope, receive, sending)
    except Exception:
        if not state["answered"]:
            raise
        # the client has its 503: what the handler met later is the outage it was told of
    finally:
        begun()
        # a handler that ends before its 503 is sent must not end the request without an
        # answer (the server would send a bare 500 of its own)
        await asyncio.gather(*refusal, return_exceptions=True)


# the request's slot (its semaphore, and whether it holds it), for `slot_given_back`
_SLOT: ContextVar[tuple[asyncio.Semaphore, dict[str, bool]] | None] = ContextVar(
    "slot", default=None
)


@asynccontextmanager
async def slot_given_back() -> AsyncIterator[None]:
    """Wait (for another request of the same player, say) without holding a loop slot: a
    request that waits does no work on the loop, and must not keep others from it."""
    held = _SLOT.get()
    if held is None or not held[1]["slot"]:
        yield
        return
    slots, state = held
    state["slot"] = False
    slots.release()
    try:
        yield
    finally:
        await slots.acquire()
        state["slot"] = True


def _crowded(queued: int) -> bool:
    """Every worker thread is taken and `queued` requests wait for one already."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    if limiter.borrowed_tokens < limiter.total_tokens:
        return False
    return limiter.statistics().tasks_waiting >= queued


def _authorization(scope: Scope) -> bool:
    """Whether the request sent an Authorization header (of any scheme)."""
    return any(name == b"authorization" for name, _ in scope.get("headers") or ())


def _bearer(scope: Scope) -> str:
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


async def _refuse(send: Send, status: int, code: str, detail: str, wait: float | None) -> None:
    """The refusal, with `Retry-After: wait` (or, without a wait, a 401's challenge)."""
    body = problem_body(status, code, detail)
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", retry_after(wait).encode())
        if wait is not None
        else (b"www-authenticate", b"Bearer"),
    ]
    start: Any = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body, "more_body": False})

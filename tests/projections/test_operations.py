"""Operations: /health says 503 when the store does not answer; /metrics serves
Prometheus text with requests per route template, moves applied and projection lag."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from urllib.parse import urlparse

import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Settings
from tests.projections.conftest import caught_up
from tests.support.api import Api
from tests.support.waits import wait_until


class Proxy:
    """A TCP relay to Postgres that can be cut: the database vanishes for the app."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                server = socket.create_connection(self.target)
                self.sockets += [client, server]
                for a, b in ((client, server), (server, client)):
                    threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)

    def cut(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def test_health_is_503_when_the_store_does_not_answer(
    pg_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_PROJECTIONS", "elsewhere")  # no runner on a vanishing store
    url = urlparse(pg_settings.database_url)
    proxy = Proxy(url.port or 5432)
    via_proxy = url._replace(netloc=f"{url.username}@127.0.0.1:{proxy.port}").geturl()
    settings = Settings(database_url=via_proxy.replace("pool_size=6", "pool_size=1"))
    with TestClient(build(settings)) as client:
        assert client.get("/health").status_code == 200
        proxy.cut()
        started = time.monotonic()  # /health tells what the store's prober last found:
        wait_until(lambda: client.get("/health").status_code == 503, 5, "/health says 503")
        assert time.monotonic() - started < 2  # a probe every 0.2 s, each at most 0.8 s
        r = client.get("/health")
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["code"] == "store_unavailable"
        metrics = client.get("/metrics")  # still served, without the lag it cannot read
        assert metrics.status_code == 200
        assert "tabletop_projection_lag_events" not in metrics.text


def test_ready_says_whether_this_process_takes_traffic(
    pg_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/ready: 200 once the store answers and the clocks are resumed; 503 `not_ready` with
    its reason while the store is lost."""
    monkeypatch.setenv("TABLETOP_PROJECTIONS", "elsewhere")
    url = urlparse(pg_settings.database_url)
    proxy = Proxy(url.port or 5432)
    via_proxy = url._replace(netloc=f"{url.username}@127.0.0.1:{proxy.port}").geturl()
    with TestClient(build(Settings(database_url=via_proxy))) as client:
        wait_until(lambda: client.get("/ready").status_code == 200, 10, "/ready says 200")
        assert client.get("/ready").json() == {"status": "ready"}
        proxy.cut()
        wait_until(lambda: client.get("/ready").status_code == 503, 5, "/ready says 503")
        r = client.get("/ready")
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["code"] == "not_ready"
        assert "store" in r.json()["detail"]


def test_a_pool_all_busy_is_overloaded_not_a_lost_store(
    pg_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read that waits out the pool because every pooled connection is busy is answered
    503 `overloaded`: the store answers (its prober says so), and nothing reports it down."""
    monkeypatch.setenv("TABLETOP_PROJECTIONS", "elsewhere")
    monkeypatch.setenv("TABLETOP_STORE_WAIT", "0.5")
    url = pg_settings.database_url
    assert url is not None
    settings = Settings.from_env()
    settings = Settings(
        database_url=url.replace("pool_size=6&max_overflow=18", "pool_size=1&max_overflow=0"),
        limits=settings.limits,
    )
    with TestClient(build(settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        game = api.create(ada, "secret-duel", 2, seat=0)["id"]
        t = client.app.state.tabletop
        t.games.current._cache._folds.clear()  # the next read goes to the store
        pool = t.store.recorder.datastore.pool
        held = pool.getconn()  # the pool's only connection, busy elsewhere
        try:
            r = client.get(f"/v1/games/{game}")
        finally:
            pool.putconn(held)
        assert r.status_code == 503, r.text
        assert r.json()["code"] == "overloaded"
        assert r.headers["retry-after"] == "1"
        assert not t.watch.down
        assert client.get("/health").status_code == 200
        assert client.get(f"/v1/games/{game}").status_code == 200


def test_a_move_saved_on_the_loop_is_503_when_the_store_does_not_answer(
    pg_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move of two players (decided on the event loop, saved by the loop writer) while
    the database is gone: 503 unavailable once the writer's retries are spent, never a 500
    and never an acknowledgement of what was not stored."""
    monkeypatch.setenv("TABLETOP_PROJECTIONS", "elsewhere")
    url = urlparse(pg_settings.database_url)
    proxy = Proxy(url.port or 5432)
    via_proxy = url._replace(netloc=f"{url.username}@127.0.0.1:{proxy.port}").geturl()
    with TestClient(build(Settings(database_url=via_proxy))) as client:
        api = Api(client)
        ann, bob = api.player("ann"), api.player("bob")
        game = api.create(ann, "secret-duel", 2, seat=0)
        client.post(f"/v1/games/{game['id']}/join", headers=Api.auth(bob))
        legal = api.legal(game["id"], ann)
        moved = api.move(game["id"], ann, legal["version"], legal["moves"][0])
        assert moved.status_code == 200, moved.text
        writes = client.app.state.tabletop.games.writes  # type: ignore[attr-defined]
        loop_writer = writes.loop_writer
        assert loop_writer.transactions >= 1  # its connection is open; the next is cut
        legal = api.legal(game["id"], bob)
        proxy.cut()
        refused = api.move(game["id"], bob, legal["version"], legal["moves"][0])
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "unavailable"
    with TestClient(build(pg_settings)) as client:  # the store has only what was answered
        stored = Api(client).game(game["id"])
        assert stored["version"] == moved.json()["version"]


def test_metrics(api: Api) -> None:
    assert api.client.get("/health").status_code == 200
    ann = api.player("ann")
    game_id = api.create(ann, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    api.play_out(game_id, {0: ann}, random.Random(2))
    caught_up(api)
    r = api.client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    text = r.text
    route = 'method="POST",route="/v1/games/{game_id}/moves",status="200"'
    assert f"tabletop_http_requests_total{{{route}}}" in text
    assert 'tabletop_http_request_duration_seconds_bucket{le="0.005",method="GET",' in text
    # under way: the scrape itself, and no move (each answered before the next was sent)
    assert 'tabletop_http_requests_in_progress{method="GET",route="/metrics"} 1.0' in text
    assert (
        'tabletop_http_requests_in_progress{method="POST",route="/v1/games/{game_id}/moves"} 0.0'
        in text
    )
    moves = [ln for ln in text.splitlines() if ln.startswith("tabletop_moves_applied_total ")]
    assert moves and float(moves[0].split()[1]) >= 3
    assert 'tabletop_projection_lag_events{projection="games"} 0.0' in text
    assert 'tabletop_projection_lag_seconds{projection="games"} 0.0' in text

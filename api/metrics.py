"""Prometheus metrics at /metrics: requests (count and latency per route template and
status, and those under way), moves applied, how far the read models trail the log
(events and seconds), and the games found tampered with.

Each app has a registry of its own, so several apps in one process (the tests) do not
share counters. Moves and lag are read when scraped, not kept up to date on every event.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from api.health import StoreWatch
from projections.runner import lag
from projections.views import NAME, GamesView
from service.findings import Findings
from service.games import Games
from service.reads import GameReads
from service.store import EventStoreApp


class Observed(Protocol):
    """What the metrics read at scrape time (api/bootstrap.py's Tabletop)."""

    games: Games
    game_reads: GameReads
    reads: GamesView
    store: EventStoreApp
    watch: StoreWatch
    findings: Findings


class Metrics:
    def __init__(self, tabletop: Observed) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "tabletop_http_requests",
            "HTTP requests answered, by route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "tabletop_http_request_duration_seconds",
            "Time to answer a request (to the end of its body), by route template.",
            ["method", "route"],
            registry=self.registry,
        )
        self.in_progress = Gauge(
            "tabletop_http_requests_in_progress",
            "HTTP requests begun and not yet answered, by route template.",
            ["method", "route"],
            registry=self.registry,
        )
        self.registry.register(_Scraped(tabletop))

    def begun(self, method: str, route: str) -> None:
        self.in_progress.labels(method, route).inc()

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.in_progress.labels(method, route).dec()
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)


class _Scraped(Collector):
    """Figures read at scrape time: the game service's move count and the projection lag."""

    def __init__(self, tabletop: Observed) -> None:
        self._t = tabletop

    def describe(self) -> list[Metric]:
        return []  # collected at scrape time only (registering must not touch the store)

    def collect(self) -> Iterator[Metric]:
        moves = CounterMetricFamily("tabletop_moves_applied", "Moves applied by this process.")
        moves.add_metric([], self._t.games.moves_applied)
        yield moves
        history = self._t.game_reads.history
        if history.standby is not None:  # fallbacks: the standby was behind or down
            reads = CounterMetricFamily(
                "tabletop_history_reads",
                "Game history reads (events, exports, audits) by the database that answered.",
                labels=["source"],
            )
            reads.add_metric(["standby"], history.standby_reads)
            reads.add_metric(["primary"], history.fallbacks)
            yield reads
        try:
            self._t.watch.check_from_thread()  # bounded: a lost store must not hold the scrape
            behind, seconds = lag(self._t.store, self._t.reads)
            tampered = len(self._t.findings.tampered())
        except Exception:  # the store does not answer: /health says so; metrics still serve
            return
        found = GaugeMetricFamily(
            "tabletop_tampered_games",
            "Games whose record is not the one the transparency log holds (found by the "
            "sentinel or an audit, in any process of the database; 0 when none).",
        )
        found.add_metric([], tampered)
        yield found
        events = GaugeMetricFamily(
            "tabletop_projection_lag_events",
            "Events appended to the log and not yet in the read model.",
            labels=["projection"],
        )
        events.add_metric([NAME], behind)
        yield events
        age = GaugeMetricFamily(
            "tabletop_projection_lag_seconds",
            "Age of the oldest event not yet in the read model (0 when caught up).",
            labels=["projection"],
        )
        age.add_metric([NAME], seconds)
        yield age

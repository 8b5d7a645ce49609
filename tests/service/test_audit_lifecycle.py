"""The audit against rewritten lifecycle events (each rewrite re-hashed, as anyone can):
what follows a timeout, forfeit reasons, a clock slipped onto a service event, events after
the end. And the timekeeper's isolation: one damaged game does not stop the others."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import psycopg
import pytest

from projections.runner import GamesRunner, view_for
from service.audit import export_lines, stored_lines, verify
from service.players import Player, Players
from service.settings import Settings
from service.store import EventStoreApp
from service.timekeeper import Timekeeper
from tests.support.clock import FakeClock
from tests.support.games import GameService
from tests.support.timed import FISCHER, rehashed

Lines = list[dict[str, Any]]


def _game(store: EventStoreApp, policy: str, timeouts: int = 1) -> tuple[GameService, UUID]:
    clock = FakeClock()
    service = GameService(store, now=clock)
    ada: Player = Players(store).register("ada")[0]
    fold = service.create(ada, "caylus", 3, {}, {1: "random", 2: "random"}, 0, FISCHER, policy)
    service.settled(fold.id)  # the bots moved (at once, on the fake clock): ada is awaited
    for _ in range(timeouts):
        clock.advance(3600)
        assert service.time_out(fold.id) is not None
        # the policy follows: a bot decides for the seat, or plays the forfeited seat out
        service.settled(fold.id)
    return service, fold.id


def _export(service: GameService, game_id: UUID) -> Lines:
    return list(
        export_lines(game_id, stored_lines(service.store, game_id), service.seed_hex(game_id))
    )


def _index(lines: Lines, kind: str) -> int:
    return next(i for i, line in enumerate(lines) if line.get("type") == kind)


def _refused(service: GameService, game_id: UUID, lines: Lines) -> str | None:
    report = verify(rehashed(lines), service.seed_hex(game_id))
    assert report.chain_intact
    return None if report.verified else report.detail


REWRITES: dict[str, tuple[str, Callable[[Lines], None]]] = {
    "a bot-policy timeout rewritten into a forfeit": (
        "bot:random",
        lambda lines: lines.insert(
            _index(lines, "timed_out") + 1,
            {**lines[_index(lines, "timed_out")], "type": "seat_forfeited",
             "data": {"seat": 0, "reason": "timed_out", "bot": "random"}},
        ),
    ),
    "the policy changed at creation": (
        "bot:random",
        lambda lines: lines[1]["data"].update(on_timeout="forfeit"),
    ),
    "a timeout's forfeit removed": (
        "forfeit",
        lambda lines: lines.pop(_index(lines, "seat_forfeited")),
    ),
    "a forfeit's reason changed": (
        "forfeit",
        lambda lines: lines[_index(lines, "seat_forfeited")]["data"].update(reason="resigned"),
    ),
    "a clock slipped onto a seat_taken": (
        "bot:random",
        lambda lines: lines[_index(lines, "seat_taken")].update(clock={"used_ms": 0}),
    ),
    "a forfeit after the end": (
        "forfeit",
        lambda lines: lines.insert(
            _index(lines, "game_finished") + 1,
            {**lines[_index(lines, "seat_forfeited")], "version": 0},
        ),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(REWRITES))
def test_a_rewritten_lifecycle_is_refused(store: EventStoreApp, name: str) -> None:
    policy, rewrite = REWRITES[name]
    service, game_id = _game(store, policy)
    genuine = _export(service, game_id)
    assert _refused(service, game_id, [dict(line) for line in genuine]) is None
    lines = [
        {**line, "data": dict(line["data"])} if "data" in line else dict(line) for line in genuine
    ]
    rewrite(lines)
    for version, line in enumerate((x for x in lines[1:] if "version" in x), start=1):
        line["version"] = version
    assert _refused(service, game_id, lines) is not None, name


def test_seats_that_stall_together_forfeit_together(store: EventStoreApp) -> None:
    clock = FakeClock()
    service = GameService(store, now=clock)
    ada, bob = (Players(store).register(n)[0] for n in ("ada", "bob"))
    fold = service.create(ada, "secret-duel", 2, {}, {}, 0, FISCHER, "forfeit")
    service.join(bob, fold.id, 1)
    clock.advance(3600)  # both commit at once and neither does
    after = service.time_out(fold.id)
    assert after is not None and after.status == "finished"
    assert after.forfeited == {0: "timed_out", 1: "timed_out"}
    assert after.result is not None and after.result.ranks == [1, 1]
    assert verify(_export(service, fold.id)).verified


def test_a_damaged_game_does_not_hold_up_the_other_timeouts(
    pg_settings: Settings, pg_url: str, store: EventStoreApp
) -> None:
    clock = FakeClock()
    service = GameService(store, now=clock)
    ada = Players(store).register("ada")[0]
    damaged, healthy = (
        service.create(ada, "caylus", 2, {}, {1: "random"}, 0, FISCHER, "bot:random")
        for _ in range(2)
    )
    for fold in (damaged, healthy):  # the bots moved, at once on the fake clock: ada's turn
        assert 0 in service.settled(fold.id).awaiting()
    runner = GamesRunner(pg_settings)
    try:
        runner.caught_up(20)
        schema = (pg_settings.database_url or "").split("schema=")[1].split("&")[0]
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                f'UPDATE "{schema}".tabletop_events SET state = %s'
                " WHERE originator_id = %s AND originator_version = 2",
                (b"{not json", damaged.id),
            )
        clock.advance(61)
        keeper = Timekeeper(GameService(store, now=clock).games, view_for(store))
        keeper.tick()
        assert keeper.applied == 1
        timed = [x for x in stored_lines(store, healthy.id) if x["type"] == "timed_out"]
        assert len(timed) == 1
    finally:
        runner.close()

"""A bot is a player: it thinks after the commit that makes it awaited, on its own clock,
never inside a person's request nor on a person's clock (service/bot_runner.py)."""

from __future__ import annotations

import time
from typing import Any

from service.audit import export_lines, stored_lines, verify
from service.players import Players
from service.settings import Settings
from service.store import open_store
from tests.support import clock_oracle
from tests.support.api import Api
from tests.support.clock import FakeClock
from tests.support.games import GameService

BUDGET_MS = 2000  # the bot's time budget per decision
THINK_S = 0.3  # what the person's client spends on each decision
TOLERANCE_MS = 150  # the long poll's delivery and the request's way in, on a loaded machine


def _clocked(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The first events of `seat`'s timed decisions (those that carry its clock)."""
    return [e for e in events if e["seat"] == seat and "clock" in e]


def test_a_person_against_a_thinking_bot_pays_only_for_their_own_time(pg_api: Api) -> None:
    """Against mcts with a 2 s budget under a Fischer clock: the person's move answers in
    well under the bot's budget, the person's recorded time per decision is what their
    client spent between seeing the turn and sending the move, and the bot's own clock is
    charged for its thinking."""
    ada = pg_api.player("ada")
    clock = {"kind": "fischer", "initial_s": 300, "increment_s": 0}
    bot = f"mcts:ms={BUDGET_MS}"
    game = pg_api.create(ada, "caylus", 2, {1: bot}, seat=0, clock=clock)
    spent: list[float] = []  # per decision: the client's time from seeing the turn to sending
    answered: list[float] = []  # per decision: how long POST /moves took
    state = pg_api.settled(game["id"], ada)
    while len(spent) < 3 and state["status"] == "active":
        seen = time.monotonic()
        legal = pg_api.legal(game["id"], ada)
        time.sleep(THINK_S)  # the person thinks (this is what their clock must show)
        sent = time.monotonic()
        r = pg_api.move(game["id"], ada, legal["version"], legal["moves"][0])
        answered.append(time.monotonic() - sent)
        assert r.status_code == 200, r.text
        spent.append(sent - seen)
        state = pg_api.settled(game["id"], ada, timeout=30)
    assert len(spent) == 3, state
    assert max(answered) < 1.0, f"a move waited for the bot: {answered}"
    events = pg_api.client.get(f"/v1/games/{game['id']}/events", headers=pg_api.auth(ada)).json()[
        "events"
    ]
    mine = _clocked(events, 0)[-3:]
    for decision, client in zip(mine, spent, strict=True):
        used = decision["clock"]["used_ms"]
        assert client * 1000 - 5 <= used <= client * 1000 + TOLERANCE_MS, (used, client)
    thought = _clocked(events, 1)
    assert thought, "the bot's decisions carry its clock"
    used = [e["clock"]["used_ms"] for e in thought]
    assert max(used) >= BUDGET_MS * 0.9, used  # a decision with a choice takes its budget
    shown = {c["seat"]: c for c in pg_api.game(game["id"], ada)["clock"]["seats"]}
    assert not shown[1]["running"]
    assert abs(shown[1]["remaining_ms"] - (300_000 - sum(used))) <= len(used), (shown, used)


def test_a_bot_that_decides_after_its_deadline_times_out_instead(
    sqlite_settings: Settings,
) -> None:
    """A runner that comes back after a bot's deadline (it was away) writes the timeout the
    timekeeper would have: the policy's bot decides next, and the game still passes its
    audit and the export-only clock oracle (a decision after its deadline would be a missed
    timeout)."""
    store = open_store(sqlite_settings)
    clock = FakeClock()
    service = GameService(store, now=clock, bots=False)
    ada = Players(store).register("ada")[0]
    fischer = {"kind": "fischer", "initial_s": 60, "increment_s": 5}
    game = service.create(ada, "secret-duel", 2, {}, {1: "random"}, 0, fischer, "bot:random").id
    clock.advance(61)  # the bot's seat is past its deadline before any runner looks
    service.start_bots(game)
    fold = service.settled(game)
    seed = service.seed_hex(game)
    lines = list(export_lines(game, stored_lines(store, game), seed))
    kinds = [(line["type"], line["seat"]) for line in lines[1:] if "version" in line]
    assert ("timed_out", "system") in kinds, kinds
    assert 1 not in fold.overdue and fold.version > 7
    assert verify(lines, seed).verified
    assert clock_oracle.check(lines, seed) == []
    service.close()
    store.close()

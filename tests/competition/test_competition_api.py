"""Challenges and seeks through HTTP on Postgres, on a fake server clock: a challenge
accepted starts its game with every seat taken, a decline or the clock ends one, retries
with the same key change nothing, seeks seat compatible players only and bots fill a table
only when allowed and due; the players hear of both on their stream; both export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import Tracking
from litestar.testing import TestClient

from api.app import create_app
from api.bootstrap import Tabletop
from projections.games import GamesProjection
from projections.notices import PER_EVENT
from service import seeks
from service.chain import line_hash
from service.challenge_log import CHALLENGE, POOL, SEEK, noticed, read_stream
from service.records import chained
from service.settings import Limits, Rate, Settings
from service.store import open_store
from tests.support.api import Api
from tests.support.clock import FakeClock
from tests.support.waits import wait_until

DAY = {"kind": "deadline", "per_decision_s": 86400}


@pytest.fixture
def world(pg_settings: Settings) -> Iterator[tuple[Api, FakeClock, Tabletop]]:
    clock = FakeClock()
    tabletop = Tabletop(
        open_store(pg_settings), projections=pg_settings, now=clock, limits=Limits()
    )
    with TestClient(create_app(tabletop)) as client:
        yield Api(client), clock, tabletop


def _ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def _code(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    return str(r.json()["code"])


def _id(player: dict[str, str]) -> str:
    return player["id"]


def _listed(api: Api, tabletop: Tabletop, path: str, who: dict[str, str]) -> Any:
    """A list, once the read model holds every event written so far (lists trail the log:
    docs/api.md "Lists and consistency")."""
    assert tabletop.runner is not None
    tabletop.runner.caught_up(20)
    return _ok(api.client.get(path, headers=api.auth(who)))


def test_a_two_seat_challenge_accepted_starts_the_game_with_both_seated(world: Any) -> None:
    api, _, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus", "clock": DAY, "rated": True}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    assert made["status"] == "open" and made["seats"] == 2 and made["game_id"] is None
    path = f"/v1/challenges/{made['id']}"
    assert _code(api.client.post(f"{path}/accept", headers=api.auth(ada)), 403) == "not_challenged"
    done = _ok(api.client.post(f"{path}/accept", headers=api.auth(bob)))
    assert done["status"] == "started" and done["accepted"] == [_id(bob)]
    game = api.game(done["game_id"])
    assert game["status"] == "active" and game["rated"] is True
    assert [s["player"] for s in game["seats"]] == [_id(ada), _id(bob)]
    assert _code(api.client.post(f"{path}/decline", headers=api.auth(bob)), 409) == (
        "challenge_started"
    )
    for who in (ada, bob):
        listed = _listed(api, tabletop, "/v1/challenges", who)
        assert [c["id"] for c in listed["challenges"]] == [made["id"]]
        assert listed["challenges"][0] == _ok(api.client.get(path))  # the same summary
    lines = [json.loads(x) for x in api.client.get(f"{path}/export").text.splitlines()]
    assert lines[0]["format"] == "tabletop-challenge/1" and lines[0]["id"] == made["id"]
    assert [x["type"] for x in lines[1:]] == [
        "challenge_created", "challenge_accepted", "challenge_started"
    ]  # fmt: skip
    assert all(line_hash(x) == x["hash"] for x in lines[1:])
    assert lines[2]["prev_hash"] == lines[1]["hash"]


def test_a_decline_ends_a_three_seat_challenge_without_a_game(world: Any) -> None:
    api, _, _ = world
    ada, bob, cy = api.player("ada"), api.player("bob"), api.player("cy")
    body = {"players": [_id(bob), _id(cy)], "game": "puerto-rico", "seats": 3}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    path = f"/v1/challenges/{made['id']}"
    _ok(api.client.post(f"{path}/accept", headers=api.auth(bob)))
    done = _ok(api.client.post(f"{path}/decline", headers=api.auth(cy)))
    assert done["status"] == "declined" and done["declined_by"] == _id(cy)
    assert done["game_id"] is None
    late = api.client.post(f"{path}/accept", headers=api.auth(cy))
    assert _code(late, 409) == "challenge_declined"


def test_a_challenge_expires_on_the_service_clock(world: Any) -> None:
    api, clock, _ = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus", "expires_in_s": 3600}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    path = f"/v1/challenges/{made['id']}"
    clock.advance(3599)
    assert _ok(api.client.get(path))["status"] == "open"
    clock.advance(1)
    assert _code(api.client.post(f"{path}/accept", headers=api.auth(bob)), 409) == (
        "challenge_expired"
    )
    assert _ok(api.client.get(path))["status"] == "expired"
    lines = api.client.get(f"{path}/export").text.splitlines()
    assert json.loads(lines[-1])["type"] == "challenge_expired"


def test_retries_with_the_same_key_answer_again_and_create_nothing_twice(world: Any) -> None:
    api, _, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus"}
    first = api.client.post("/v1/challenges", json=body, headers=api.auth(ada, "k1"))
    again = api.client.post("/v1/challenges", json=body, headers=api.auth(ada, "k1"))
    assert first.status_code == again.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.json()["id"] == again.json()["id"]
    other = {**body, "game": "santa-maria"}
    reused = api.client.post("/v1/challenges", json=other, headers=api.auth(ada, "k1"))
    assert _code(reused, 422) == "idempotency_key_reused"
    path = f"/v1/challenges/{first.json()['id']}"
    one = api.client.post(f"{path}/accept", headers=api.auth(bob, "a1"))
    two = api.client.post(f"{path}/accept", headers=api.auth(bob, "a1"))
    assert one.json() == two.json() and two.headers["Idempotent-Replayed"] == "true"
    listed = _listed(api, tabletop, "/v1/challenges", ada)
    assert len(listed["challenges"]) == 1
    seek = {"game": "caylus", "seats": 2}
    s1 = api.client.post("/v1/seeks", json=seek, headers=api.auth(ada, "s1"))
    s2 = api.client.post("/v1/seeks", json=seek, headers=api.auth(ada, "s1"))
    assert s1.json()["id"] == s2.json()["id"] and s2.headers["Idempotent-Replayed"] == "true"
    assert len(_listed(api, tabletop, "/v1/seeks", ada)["seeks"]) == 1


def test_strict_input_and_stable_codes(world: Any) -> None:
    api, _, _ = world
    ada, bob = api.player("ada"), api.player("bob")
    bad = {"players": [_id(bob)], "game": "caylus", "clock": {**DAY, "x": 1}}
    assert api.client.post("/v1/challenges", json=bad, headers=api.auth(ada)).status_code == 422
    extra = {"players": [_id(bob)], "game": "caylus", "colour": "red"}
    r = api.client.post("/v1/challenges", json=extra, headers=api.auth(ada))
    assert _code(r, 422) == "invalid_request.unknown_field"
    nobody = {"players": ["0" * 32], "game": "caylus"}
    r = api.client.post("/v1/challenges", json=nobody, headers=api.auth(ada))
    assert _code(r, 422) == "unknown_player"
    me = {"players": [_id(ada)], "game": "caylus"}
    r = api.client.post("/v1/challenges", json=me, headers=api.auth(ada))
    assert _code(r, 422) == "invalid_players"
    r = api.client.get("/v1/challenges/00000000-0000-0000-0000-000000000000")
    assert _code(r, 404) == "challenge_not_found"
    r = api.client.post("/v1/seeks", json={"game": "caylus", "seats": 9}, headers=api.auth(ada))
    assert _code(r, 422) == "invalid_seats"


def test_seeks_seat_a_four_seat_table_of_compatible_players_only(world: Any) -> None:
    api, _, tabletop = world
    players = [api.player(f"p{i}") for i in range(5)]
    seek = {"game": "puerto-rico", "seats": 4, "rated": True, "clock": DAY, "rating_within": 200}
    # another clock: another table, which waits
    odd = _ok(
        api.client.post(
            "/v1/seeks",
            json={**seek, "clock": {"kind": "deadline", "per_decision_s": 3600}},
            headers=api.auth(players[4]),
        ),
        201,
    )
    tabletop.reads.create_table()
    made = [
        _ok(api.client.post("/v1/seeks", json=seek, headers=api.auth(p)), 201) for p in players[:3]
    ]
    assert all(m["status"] == "open" for m in made)
    again = api.client.post("/v1/seeks", json=seek, headers=api.auth(players[0]))
    assert _code(again, 409) == "seek_exists"
    last = _ok(api.client.post("/v1/seeks", json=seek, headers=api.auth(players[3])), 201)
    assert last["status"] == "matched" and last["seat"] == 3
    seen = [_ok(api.client.get(f"/v1/seeks/{m['id']}")) for m in made]
    assert {s["game_id"] for s in seen} == {last["game_id"]}
    game = api.game(last["game_id"])
    assert [s["player"] for s in game["seats"]] == [_id(p) for p in players[:4]]
    assert game["status"] == "active" and game["rated"] is True
    assert _ok(api.client.get(f"/v1/seeks/{odd['id']}"))["status"] == "open"
    assert [s["id"] for s in _listed(api, tabletop, "/v1/seeks", players[4])["seeks"]] == [
        odd["id"]
    ]
    done = _ok(api.client.post(f"/v1/seeks/{odd['id']}/cancel", headers=api.auth(players[4])))
    assert done["status"] == "cancelled"
    assert _listed(api, tabletop, "/v1/seeks", players[4])["seeks"] == []
    everything = _listed(api, tabletop, "/v1/seeks?all=true", players[4])["seeks"]
    assert [(s["id"], s["status"]) for s in everything] == [(odd["id"], "cancelled")]
    mine = _listed(api, tabletop, "/v1/seeks?all=true", players[3])["seeks"]
    assert [(s["id"], s["status"], s["seat"]) for s in mine] == [(last["id"], "matched", 3)]
    lines = [
        json.loads(x) for x in api.client.get(f"/v1/seeks/{last['id']}/export").text.splitlines()
    ]
    assert lines[0]["format"] == "tabletop-seek/1"
    assert [x["type"] for x in lines[1:]] == ["seek_created", "seek_matched"]
    assert all(line_hash(x) == x["hash"] for x in lines[1:])


def test_a_rating_out_of_range_keeps_a_seek_waiting(world: Any) -> None:
    api, _, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    strong = {"game": "caylus", "seats": 2, "rating_within": 5}
    ratings = tabletop.reads.rating_of

    def rating_of(game: str, who: str) -> Any:  # bob is far stronger than a newcomer
        return (60.0, 1.0, 30) if who == _id(bob) else ratings(game, who)

    tabletop.reads.rating_of = rating_of
    a = _ok(api.client.post("/v1/seeks", json=strong, headers=api.auth(ada)), 201)
    b = _ok(api.client.post("/v1/seeks", json=strong, headers=api.auth(bob)), 201)
    assert a["status"] == b["status"] == "open" and b["rating"] == 57.0


def test_bots_fill_a_seek_after_its_wait_only_when_allowed(world: Any) -> None:
    api, clock, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    waits = {"game": "caylus", "seats": 2, "fill_with_bots_after_s": 60, "fill_bot": "random"}
    never = {"game": "santa-maria", "seats": 2}
    a = _ok(api.client.post("/v1/seeks", json=waits, headers=api.auth(ada)), 201)
    b = _ok(api.client.post("/v1/seeks", json=never, headers=api.auth(bob)), 201)
    clock.advance(59)
    tabletop.timekeeper.competition.tick()
    assert _ok(api.client.get(f"/v1/seeks/{a['id']}"))["status"] == "open"
    clock.advance(1)
    tabletop.timekeeper.competition.tick()  # the timekeeper's tick fills it
    filled = _ok(api.client.get(f"/v1/seeks/{a['id']}"))
    assert filled["status"] == "matched" and filled["table"] == [_id(ada), None]
    game = api.game(filled["game_id"])
    assert game["seats"][1]["bot"] == "random" and game["seats"][0]["player"] == _id(ada)
    clock.advance(86400 * 30)
    tabletop.timekeeper.competition.tick()
    assert _ok(api.client.get(f"/v1/seeks/{b['id']}"))["status"] == "open"


def test_players_hear_of_challenges_and_matches_on_their_stream(world: Any) -> None:
    api, _, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus"}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    seek = {"game": "santa-maria", "seats": 2}
    _ok(api.client.post("/v1/seeks", json=seek, headers=api.auth(ada)), 201)
    matched = _ok(api.client.post("/v1/seeks", json=seek, headers=api.auth(bob)), 201)
    tabletop.runner.caught_up(20)

    def kinds(player: dict[str, str]) -> list[dict[str, Any]]:
        got = tabletop.reads.notices_for(_id(player), 0)  # the stream's one table
        return [json.loads(r) for r in got]

    wait_until(lambda: any(n["kind"] == "seek_matched" for n in kinds(bob)), 20, "bob's match")
    told = kinds(bob)
    received = [n for n in told if n["kind"] == "challenge_received"]
    assert received[0]["data"]["challenge"] == made["id"]
    seek_told = next(n for n in told if n["kind"] == "seek_matched")
    assert seek_told["game"] == matched["game_id"] and seek_told["data"]["seek"] == matched["id"]
    ids = [n["id"] for n in told]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert any(n["kind"] == "game_started" for n in told)  # the games' notices beside them


def test_a_cancelled_challenge_refuses_acceptance_and_lists_as_cancelled(world: Any) -> None:
    api, _, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus"}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    path = f"/v1/challenges/{made['id']}"
    assert _code(api.client.post(f"{path}/cancel", headers=api.auth(bob)), 403) == (
        "not_challenger"
    )
    done = _ok(api.client.post(f"{path}/cancel", headers=api.auth(ada, "c1")))
    assert done["status"] == "cancelled" and done["game_id"] is None
    again = api.client.post(f"{path}/cancel", headers=api.auth(ada, "c1"))
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == done
    assert _code(api.client.post(f"{path}/cancel", headers=api.auth(ada)), 409) == (
        "challenge_cancelled"
    )
    assert _code(api.client.post(f"{path}/accept", headers=api.auth(bob)), 409) == (
        "challenge_cancelled"
    )
    for who in (ada, bob):
        listed = _listed(api, tabletop, "/v1/challenges", who)["challenges"]
        assert [(c["id"], c["status"]) for c in listed] == [(made["id"], "cancelled")]
    lines = api.client.get(f"{path}/export").text.splitlines()
    assert [json.loads(x)["type"] for x in lines[1:]] == [
        "challenge_created", "challenge_cancelled"
    ]  # fmt: skip


def test_a_list_shows_a_lapsed_challenge_as_expired_without_a_read_first(world: Any) -> None:
    api, clock, tabletop = world
    ada, bob = api.player("ada"), api.player("bob")
    body = {"players": [_id(bob)], "game": "caylus", "expires_in_s": 60}
    made = _ok(api.client.post("/v1/challenges", json=body, headers=api.auth(ada)), 201)
    listed = _listed(api, tabletop, "/v1/challenges", bob)["challenges"]
    assert [c["status"] for c in listed] == ["open"]
    clock.advance(60)
    listed = _listed(api, tabletop, "/v1/challenges", bob)["challenges"]
    assert [(c["id"], c["status"]) for c in listed] == [(made["id"], "expired")]
    # the list recorded the expiry: the log says so, and the read model follows
    lines = api.client.get(f"/v1/challenges/{made['id']}/export").text.splitlines()
    assert [json.loads(x)["type"] for x in lines[1:]] == ["challenge_created", "challenge_expired"]
    assert tabletop.runner is not None
    tabletop.runner.caught_up(20)
    assert [c["status"] for c in tabletop.reads.challenges_of(_id(ada), 10)] == ["expired"]


def test_new_challenges_and_seeks_beyond_the_limit_are_refused_with_429(
    pg_settings: Settings,
) -> None:
    limits = Limits(competition=Rate(count=2, seconds=3600))  # no refill within the test
    tabletop = Tabletop(
        open_store(pg_settings), projections=pg_settings, now=FakeClock(), limits=limits
    )
    with TestClient(create_app(tabletop)) as client:
        api = Api(client)
        ada, bob = api.player("ada"), api.player("bob")
        body = {"players": [_id(bob)], "game": "caylus"}
        first = client.post("/v1/challenges", json=body, headers=api.auth(ada, "k1"))
        assert first.status_code == 201
        # a retry with the same key is answered again and charged nothing
        for _ in range(3):
            again = client.post("/v1/challenges", json=body, headers=api.auth(ada, "k1"))
            assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
        seek = {"game": "caylus", "seats": 2}
        _ok(client.post("/v1/seeks", json=seek, headers=api.auth(ada)), 201)
        refused = client.post("/v1/challenges", json=body, headers=api.auth(ada))
        assert _code(refused, 429) == "competition_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        other = {"game": "santa-maria", "seats": 2}
        for _ in range(2):  # refused keyed, made nothing: its retry is refused again
            keyed = client.post("/v1/seeks", json=other, headers=api.auth(ada, "s2"))
            assert _code(keyed, 429) == "competition_limited"
        assert tabletop.runner is not None
        tabletop.runner.caught_up(20)
        listed = _ok(client.get("/v1/seeks", headers=api.auth(ada)))["seeks"]
        assert [s["game"] for s in listed] == ["caylus"]
        # one player's bucket is not another's
        _ok(client.post("/v1/seeks", json=seek, headers=api.auth(bob)), 201)


def test_a_restarted_service_fills_a_due_seek_on_its_tick(pg_settings: Settings) -> None:
    """The pools due come from the read model, not from what a process saw: a new service
    over the same store, which never read the seek, fills it on its timekeeper's tick."""
    clock = FakeClock()
    first = Tabletop(open_store(pg_settings), projections=pg_settings, now=clock, limits=Limits())
    with TestClient(create_app(first)) as client:
        api = Api(client)
        ada = api.player("ada")
        waits = {"game": "caylus", "seats": 2, "fill_with_bots_after_s": 60, "fill_bot": "random"}
        made = _ok(client.post("/v1/seeks", json=waits, headers=api.auth(ada)), 201)
        key = api.auth(ada)
    later = FakeClock()
    later.advance(59)
    second = Tabletop(open_store(pg_settings), projections=pg_settings, now=later, limits=Limits())
    with TestClient(create_app(second)) as client:
        assert second.runner is not None
        second.runner.caught_up(20)
        seek_id = UUID(made["id"])
        assert second.timekeeper.competition.tick() == 0  # not due yet
        assert seeks.status(read_stream(second.store, seek_id, SEEK, "x")) == "open"
        later.advance(1)
        assert second.timekeeper.competition.tick() == 1
        stored = read_stream(second.store, seek_id, SEEK, "x")  # (no read of the seek filled it)
        assert seeks.status(stored) == "matched"
        second.runner.caught_up(20)
        assert second.reads.seek_pools_due(2**62) == []  # matched: no longer due
        assert second.timekeeper.competition.tick() == 0
        filled = _ok(client.get(f"/v1/seeks/{made['id']}"))
        assert filled["table"] == [_id(ada), None]
        assert _ok(client.get(f"/v1/games/{filled['game_id']}"))["seats"][1]["bot"] == "random"
        listed = _ok(client.get("/v1/seeks?all=true", headers=key))["seeks"]
        assert [(s["id"], s["status"]) for s in listed] == [(made["id"], "matched")]


class _Spy:
    """A read model that counts the projection's reads of the log and keeps its writes."""

    def __init__(self) -> None:
        self.reads: list[str] = []
        self.extra: list[Any] = []

    def rating_of(self, game: str, participant: str) -> None:
        return None

    def game_events(self, stream_id: UUID, lte: int) -> list[Any]:
        self.reads.append("game_events")
        return []

    def seq_of(self, game_id: str) -> None:
        self.reads.append("seq_of")

    def write(self, writes: Any, tracking: Any, extra: Any) -> None:
        assert not writes  # no game was touched
        self.extra.append(extra)


def test_the_projection_takes_competition_streams_by_prefix_without_reading_the_log() -> None:
    challenge, pool = uuid4(), uuid4()
    at = "2026-01-01T00:00:00.000000Z"
    created = {"type": "created", "challenger": "a", "challenger_name": "A", "players": ["b"],
               "names": ["B"], "game": "caylus", "seats": 2, "options": {}, "clock": None,
               "on_timeout": None, "rated": False,
               "expires_at": "2026-01-02T00:00:00.000000Z"}  # fmt: skip
    events: list[Any] = chained(challenge, None, [created], CHALLENGE, at)
    events += chained(pool, None, [{"type": "created"}, {"type": "joined"}], POOL, at)
    events.append(noticed("b", "challenge_received", challenge, {"challenge": str(challenge)}))
    events.append(noticed("a", "challenge_sent", challenge, {}))  # an older log's kind
    spy = _Spy()
    projection = GamesProjection(spy)  # type: ignore[arg-type]
    projection.apply([(e, Tracking("app", i + 1)) for i, e in enumerate(events)])
    assert spy.reads == []
    (extra,) = spy.extra
    assert [(c[0], c[1], c[2], c[3]) for c in extra.challenges] == [
        (str(challenge), "a", 1, "open"), (str(challenge), "b", 1, "open")
    ]  # fmt: skip
    assert [(n.id, n.player, n.kind) for n in extra.notices] == [
        (4 * PER_EVENT, "b", "challenge_received")
    ]
    # a later event of a stream created in an earlier batch reads that stream, once
    accepted = chained(challenge, None, [created, {"type": "accepted", "player": "b"}],
                       CHALLENGE, at)[1]  # fmt: skip
    projection.apply([(accepted, Tracking("app", 7))])
    assert spy.reads == ["game_events"]

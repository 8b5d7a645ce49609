"""Rate limits and quotas (issue 15, item 3): registrations per client address, requests
per API key, a back-off for wrong keys, games with bots per player and a cap on the games
not over a player sits in; each refusal a 429 problem with `Retry-After`. Small rates here,
so that each limit is reached in a few requests."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Limits, Rate, Settings
from tests.projections.conftest import caught_up
from tests.support.api import Api


def _with(settings: Settings, **limits: object) -> Settings:
    return Settings(
        database_url=settings.database_url,
        sqlite_path=settings.sqlite_path,
        limits=Limits(**limits),  # type: ignore[arg-type]
    )


@pytest.fixture
def limited(any_settings: Settings) -> Iterator[Api]:
    settings = _with(
        any_settings,
        register=Rate(5, 60),
        per_key=Rate(20, 60),
        bad_keys=Rate(3, 60),
        bot_games=Rate(2, 60),
        open_games=3,
    )
    with TestClient(build(settings)) as client:
        yield Api(client)


def _refused(r: httpx.Response, code: str) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code
    assert int(r.headers["retry-after"]) >= 1


def test_a_registration_flood_from_one_address_is_cut_to_its_rate(limited: Api) -> None:
    answers = [limited.client.post("/v1/players", json={"name": f"p{i}"}) for i in range(30)]
    assert [r.status_code for r in answers[:5]] == [201] * 5
    for r in answers[5:]:
        _refused(r, "registration_limited")


def test_wrong_keys_get_a_back_off_even_for_a_right_key_after(limited: Api) -> None:
    ada = limited.player("ada")
    body = {"game": "secret-duel", "seats": 2, "seat": 0}
    for i in range(3):
        wrong = {"Authorization": f"Bearer tt_{'0' * 32}_wrong{i}"}
        r = limited.client.post("/v1/games", json=body, headers=wrong)
        assert r.status_code == 401, r.text
    # three wrong keys spent the address's allowance: the next request with a key waits
    r = limited.client.get("/v1/game-types", headers=Api.auth(ada))
    _refused(r, "bad_key_backoff")
    # without a key, the address is still served (reads need none)
    assert limited.client.get("/v1/game-types").status_code == 200


def test_one_key_gets_its_rate_and_no_more(limited: Api) -> None:
    ada = limited.player("ada")
    statuses = [
        limited.client.get("/v1/game-types", headers=Api.auth(ada)).status_code for _ in range(25)
    ]
    assert statuses[:20] == [200] * 20
    r = limited.client.get("/v1/game-types", headers=Api.auth(ada))
    _refused(r, "rate_limited")
    bob = limited.player("bob")  # another key has its own bucket
    assert limited.client.get("/v1/game-types", headers=Api.auth(bob)).status_code == 200


def test_games_with_bots_per_player_are_limited(limited: Api) -> None:
    ada = limited.player("ada")
    body = {"game": "secret-duel", "seats": 2, "bots": {"0": "random", "1": "random"}}
    made = [limited.client.post("/v1/games", json=body, headers=Api.auth(ada)) for _ in range(3)]
    assert [r.status_code for r in made[:2]] == [201, 201]
    _refused(made[2], "bot_games_limited")
    bob = limited.player("bob")
    assert limited.client.post("/v1/games", json=body, headers=Api.auth(bob)).status_code == 201


def test_a_player_sits_in_a_capped_number_of_games_not_over(limited: Api) -> None:
    ada, bob = limited.player("ada"), limited.player("bob")
    games = [limited.create(ada, "secret-duel", 2, seat=0)["id"] for _ in range(3)]
    caught_up(limited)  # the cap counts the read model's games
    body = {"game": "secret-duel", "seats": 2, "seat": 0}
    _refused(
        limited.client.post("/v1/games", json=body, headers=Api.auth(ada)), "too_many_open_games"
    )
    other = limited.create(bob, "secret-duel", 2, seat=0)["id"]
    _refused(
        limited.client.post(f"/v1/games/{other}/join", headers=Api.auth(ada)),
        "too_many_open_games",
    )
    assert limited.client.post(f"/v1/games/{games[0]}/leave", headers=Api.auth(ada)).is_success
    caught_up(limited)
    assert limited.client.post("/v1/games", json=body, headers=Api.auth(ada)).status_code == 201


def test_from_env_reads_rates_and_turns_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_LIMIT_REGISTER", "7/30")
    monkeypatch.setenv("TABLETOP_LIMIT_KEY", "off")
    limits = Limits.from_env()
    assert limits.register == Rate(7, 30.0)
    assert limits.per_key is None
    assert limits.bad_keys is not None and limits.open_games > 0  # a public server's defaults
    with pytest.raises(ValueError):
        Rate.parse("0/10x")

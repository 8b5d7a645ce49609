"""Caching and transport: ETag (the game's version) and 304 on game reads and legal moves,
`Cache-Control: immutable` on what a finished game shows, gzip on large bodies, and CORS
from TABLETOP_CORS_ORIGINS."""

from __future__ import annotations

import random

import pytest
from litestar.testing import TestClient

from api.main import build
from service.settings import Settings
from tests.support.api import Api


def test_etag_and_304_until_the_game_moves(sqlite_api: Api) -> None:
    ada = sqlite_api.player("ada")
    game = sqlite_api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    sqlite_api.settled(game, ada)  # the bot's move first: then the game waits for ada alone
    c, auth = sqlite_api.client, Api.auth(ada)
    for path in (f"/v1/games/{game}", f"/v1/games/{game}/legal-moves"):
        first = c.get(path, headers=auth)
        tag = first.headers["etag"]
        assert tag == f'W/"{first.json()["version"]}.0"'  # the version, as seat 0 sees it
        assert "Authorization" in first.headers["vary"]
        if path.endswith(game):  # a spectator's body differs, and so does its tag
            public = c.get(path, headers={"If-None-Match": tag})
            assert public.status_code == 200 and public.headers["etag"] != tag
        for sent in (tag, tag.removeprefix("W/"), f'"nope", {tag}', "*"):
            again = c.get(path, headers={**auth, "If-None-Match": sent})
            assert again.status_code == 304, sent
            assert again.content == b"" and again.headers["etag"] == tag
        assert c.get(path, headers={**auth, "If-None-Match": '"0"'}).status_code == 200
    legal = sqlite_api.legal(game, ada)
    old = f'W/"{legal["version"]}"'
    assert sqlite_api.move(game, ada, legal["version"], legal["moves"][0]).status_code == 200
    moved = c.get(f"/v1/games/{game}", headers={**auth, "If-None-Match": old})
    assert moved.status_code == 200 and moved.headers["etag"] != old


def test_what_a_finished_game_shows_is_immutable(sqlite_api: Api) -> None:
    ada = sqlite_api.player("ada")
    game = sqlite_api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    running = sqlite_api.client.get(f"/v1/games/{game}/replay?version=2")
    assert "immutable" not in running.headers.get("cache-control", "")
    sqlite_api.play_out(game, {0: ada}, random.Random(3))
    size = sqlite_api.client.get("/v1/transparency/head").json()["tree_size"]
    export = f"/v1/games/{game}/export"
    for path in (f"{export}?tree_size={size}", f"/v1/games/{game}/replay?version=2"):
        answer = sqlite_api.client.get(path)
        assert answer.status_code == 200
        cache = answer.headers["cache-control"]
        assert "immutable" in cache and "max-age=31536000" in cache
    # the latest export proves against the latest head, which moves as games end
    latest = sqlite_api.client.get(export)
    assert latest.status_code == 200
    assert "immutable" not in latest.headers.get("cache-control", "")


def test_large_bodies_are_gzipped(sqlite_api: Api) -> None:
    ada = sqlite_api.player("ada")
    plain = sqlite_api.client.get("/v1/game-types", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(plain.content) > 1024
    zipped = sqlite_api.client.get("/v1/game-types", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.json() == plain.json()  # httpx decodes it
    assert int(zipped.headers["content-length"]) < len(plain.content) / 3
    small = sqlite_api.client.get(f"/v1/players/{ada['id']}", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under 1 KB: not worth it


def test_cors_only_for_the_configured_origins(sqlite_settings: Settings) -> None:
    settings = Settings(
        sqlite_path=sqlite_settings.sqlite_path, cors_origins=("https://viewer.example",)
    )
    with TestClient(build(settings)) as client:
        preflight = client.options(
            "/v1/games",
            headers={
                "Origin": "https://viewer.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, idempotency-key",
            },
        )
        assert preflight.status_code in (200, 204)
        assert preflight.headers["access-control-allow-origin"] == "https://viewer.example"
        allowed = preflight.headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed and "idempotency-key" in allowed
        simple = client.get("/v1/game-types", headers={"Origin": "https://viewer.example"})
        assert simple.headers["access-control-allow-origin"] == "https://viewer.example"
        assert "etag" in simple.headers["access-control-expose-headers"].lower()
        other = client.get("/v1/game-types", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers
    with TestClient(build(sqlite_settings)) as client:  # none configured: same origin only
        answer = client.get("/v1/game-types", headers={"Origin": "https://viewer.example"})
        assert "access-control-allow-origin" not in answer.headers


def test_cors_origins_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_CORS_ORIGINS", "https://a.example, https://b.example,")
    assert Settings.from_env().cors_origins == ("https://a.example", "https://b.example")

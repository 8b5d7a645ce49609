"""One paging style: every list links its next page (`Link: <...>; rel="next"`), and
following the links visits every item once; the last page has no link."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from tests.support.api import Api

_NEXT = re.compile(r'^<([^>]+)>; rel="next"$')


def _follow(api: Api, url: str, items: Callable[[Any], list[Any]], **kw: Any) -> list[Any]:
    """Every item of a list, page after page by its Link headers."""
    seen: list[Any] = []
    pages = 0
    next_url: str | None = url
    while next_url is not None:
        answer = api.client.get(next_url, **kw)
        assert answer.status_code == 200, answer.text
        seen += items(answer.json())
        pages += 1
        link = answer.headers.get("link")
        next_url = _NEXT.match(link).group(1) if link else None  # type: ignore[union-attr]
        assert pages < 100
    assert pages > 1, "the list fits one page: the test shows nothing"
    return seen


def _until(check: Callable[[], bool]) -> None:
    """The read models trail the log by milliseconds."""
    deadline = time.monotonic() + 10
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_every_list_links_its_next_page(sqlite_api: Api) -> None:
    ada = sqlite_api.player("ada")
    games = [sqlite_api.create(ada, "secret-duel", 2)["id"] for _ in range(5)]
    for _ in range(3):
        sqlite_api.client.post(
            "/v1/tournaments",
            json={"game": "secret-duel", "format": "swiss", "table_size": 2, "rounds": 1},
            headers=Api.auth(ada),
        )
    _until(lambda: len(sqlite_api.client.get("/v1/games?limit=100").json()["games"]) == 5)
    listed = _follow(sqlite_api, "/v1/games?limit=2", lambda body: [g["id"] for g in body["games"]])
    assert listed == games[::-1]
    _until(lambda: len(sqlite_api.client.get("/v1/tournaments").json()["tournaments"]) == 3)
    tournaments = _follow(sqlite_api, "/v1/tournaments?limit=2", lambda body: body["tournaments"])
    assert len({t["id"] for t in tournaments}) == 3

    game = sqlite_api.create(ada, "secret-duel", 2, {1: "random"}, seat=0)["id"]
    version = sqlite_api.settled(game, ada)["version"]  # once its bot has moved
    events = _follow(sqlite_api, f"/v1/games/{game}/events?limit=2", lambda body: body["events"])
    assert [e["version"] for e in events] == list(range(1, version + 1))
    auth = {"headers": Api.auth(ada)}
    total = sqlite_api.legal(game, ada)["total"]
    moves = _follow(
        sqlite_api, f"/v1/games/{game}/legal-moves?limit=1", lambda b: b["moves"], **auth
    )
    assert len(moves) == total and moves == sqlite_api.legal(game, ada)["moves"]


def test_the_link_keeps_the_filters(sqlite_api: Api) -> None:
    ada = sqlite_api.player("ada")
    for _ in range(3):
        sqlite_api.create(ada, "secret-duel", 2)
    _until(lambda: len(sqlite_api.client.get("/v1/games").json()["games"]) == 3)
    answer = sqlite_api.client.get("/v1/games?status=open&limit=1&game=secret-duel")
    link = _NEXT.match(answer.headers["link"]).group(1)  # type: ignore[union-attr]
    assert link.startswith("/v1/games?") and "status=open" in link and "game=secret-duel" in link
    assert f"cursor={answer.json()['next_cursor']}" in link
    last = sqlite_api.client.get("/v1/games?limit=10")
    assert "link" not in last.headers and last.json()["next_cursor"] is None

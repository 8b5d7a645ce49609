"""Memory bounded by design (issue 15, item 4): a move or a join on a game that does not
exist leaves nothing behind, and the game cache is bounded by the deep size of its games,
not by their number."""

from __future__ import annotations

import random
import uuid

from litestar.testing import TestClient

from api.main import build
from service.fold_cache import FoldCache, deep_size
from service.games import Games
from service.settings import Settings
from service.store import open_store
from tests.projections.conftest import bot_games
from tests.support.api import Api
from tests.support.games import GameService, close_over


def test_moves_and_joins_on_missing_games_leave_no_lock(pg_settings: Settings) -> None:
    with TestClient(build(pg_settings)) as client:
        api = Api(client)
        ada = api.player("ada")
        games: Games = client.app.state.tabletop.games  # type: ignore[attr-defined]
        for _ in range(200):
            missing = uuid.uuid4()
            moved = api.move(str(missing), ada, 1, {"type": "play", "card": 1})
            joined = client.post(f"/v1/games/{missing}/join", headers=Api.auth(ada))
            assert (moved.status_code, joined.status_code) == (404, 404)
        real = api.create(ada, "secret-duel", 2, seat=0)["id"]
        assert client.post(f"/v1/games/{real}/join", headers=Api.auth(api.player("bob"))).is_success
        assert len(games.writes._locks) == 0  # every lock was dropped by its last user


def test_the_cache_is_bounded_by_bytes(any_settings: Settings) -> None:
    store = open_store(any_settings)
    try:
        games = GameService(store)
        finished = bot_games(games, 6, random.Random(4))
        close_over(store)  # the bot runner stops: only the reads below fill the cache now
        sizes = [deep_size(f, (f.game,)) for f in finished]
        assert all(size > 1000 for size in sizes)
        # room for about three of them: the least recently used go first
        games.current._cache = FoldCache(max_bytes=sum(sorted(sizes)[:3]), max_games=10_000)
        for fold in finished:
            games.get(fold.id)
        cache = games.current._cache
        assert 1 <= len(cache) <= 3
        assert cache.bytes <= cache.max_bytes
        assert finished[-1].id in cache and finished[0].id not in cache
        assert games.get(finished[0].id).version == finished[0].version  # read again
    finally:
        store.close()


def test_a_fold_is_weighed_by_what_it_holds() -> None:
    small = {"a": [1, 2, 3]}
    big = {"a": [list(range(100)) for _ in range(50)]}
    assert deep_size(big) > 10 * deep_size(small)
    shared = list(range(1000))
    assert deep_size({"x": shared}, (shared,)) < deep_size({"x": shared}) // 10

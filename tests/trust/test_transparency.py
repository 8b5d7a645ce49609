"""The transparency log in the store: every ended game and finished tournament appended
once, in the store's log order, whichever process holds the log's lock and after a crash;
heads signed; proofs that check."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import msgspec
import pytest

from service.audit import tournament_export
from service.chain import leaf_data
from service.fold import ENDINGS
from service.players import Player, Players
from service.role_lock import RoleLock
from service.seal import check_export, check_head, consistent
from service.settings import Settings
from service.signing import Signer
from service.store import EventStoreApp, Recorded, open_store
from service.tournaments import NewTournament, TournamentService
from service.transparency import LEAVES_STREAM, LeafAppended, TransparencyLog, head_out, log_of
from tests.support.games import GameService, close_over
from tests.tournaments.driving import play
from tests.trust.test_merkle import mth


@pytest.fixture
def stores(any_settings: Settings) -> Iterator[tuple[EventStoreApp, EventStoreApp]]:
    """Two processes' stores on one database."""
    one, two = open_store(any_settings), open_store(any_settings)
    yield one, two
    close_over(one)  # the game services' bot runners stop before the stores close
    close_over(two)
    one.close()
    two.close()


def _bots_games(games: GameService, player: Player, count: int) -> None:
    """`count` games of bots, played to their ends by the bot runner."""
    created = [
        games.create(player, "secret-duel", 2, {}, {0: "random", 1: "random"}) for _ in range(count)
    ]
    for fold in created:
        assert games.settled(fold.id).status == "finished"


def _endings(store: EventStoreApp) -> list[tuple[str, str]]:
    """Every game ending in the store's notification order (read here, independently)."""
    found = []
    for n in store.recorder.select_notifications(None, 100_000):
        event = store.mapper.to_domain_event(n)
        if isinstance(event, Recorded) and event.type in ENDINGS:
            found.append((str(event.originator_id), event.hash))
    return found


def _leaves(store: EventStoreApp) -> list[LeafAppended]:
    return [e for e in store.events.get(LEAVES_STREAM) if isinstance(e, LeafAppended)]


def signing(log: TransparencyLog, settings: Settings) -> TransparencyLog:
    """A log that signs: it holds the log's lock (as a `serve` process's follower takes it)."""
    assert log.take(RoleLock(settings, "transparency"))
    return log


def test_two_processes_append_each_ending_once_in_log_order(
    stores: tuple[EventStoreApp, EventStoreApp], any_settings: Settings
) -> None:
    """Each follows the log, the lock handed over between them half-way."""
    one, two = stores
    logs = [TransparencyLog(one, Signer(one)), TransparencyLog(two, Signer(two))]
    locks = [RoleLock(any_settings, "transparency") for _ in logs]
    games = GameService(one)
    player = Players(one).register("ada")[0]
    stop = threading.Event()
    threads = [
        threading.Thread(target=log.follow, args=(lock, stop, 0.01))
        for log, lock in zip(logs, locks, strict=True)
    ]
    for thread in threads:
        thread.start()
    _bots_games(games, player, 6)
    holder = next((i for i, lock in enumerate(locks) if lock.held()), 0)
    locks[holder].release()  # its session ends: the other takes the lock
    _bots_games(games, player, 6)
    stop.set()
    for thread in threads:
        thread.join()
    signing(logs[0], any_settings).sync()
    leaves = _leaves(one)
    assert [(leaf.subject, leaf.final_hash) for leaf in leaves] == _endings(one)
    assert len({leaf.subject for leaf in leaves}) == 12
    head = logs[1].head()
    assert head == logs[0].head() and head.tree_size == 12
    data = [leaf_data("game", leaf.subject, leaf.final_hash) for leaf in leaves]
    assert bytes.fromhex(head.root_hash) == mth(data)
    keys = {k.key_id: k.public_key for k in Signer(one).published()}
    heads = logs[0].heads(0, 1000)
    assert [h.tree_size for h in heads] == sorted({h.tree_size for h in heads})
    for older in heads:  # every head signed, each consistent with the latest
        assert check_head(head_out(older), keys) == "valid"
        proof = logs[0].consistency(older.tree_size, head.tree_size)
        assert consistent(head_out(older), head_out(head), proof)


def test_a_crash_before_the_save_loses_nothing(
    stores: tuple[EventStoreApp, EventStoreApp],
    monkeypatch: pytest.MonkeyPatch,
    any_settings: Settings,
) -> None:
    one, two = stores
    games = GameService(one)
    _bots_games(games, Players(one).register("ada")[0], 3)
    lock = RoleLock(any_settings, "transparency")
    crashing = TransparencyLog(one, Signer(one))
    assert crashing.take(lock)

    def crash(*events: Any) -> None:
        raise SystemExit("killed before the commit")

    monkeypatch.setattr(one, "save", crash)
    with pytest.raises(SystemExit):
        crashing.sync()
    monkeypatch.undo()
    assert _leaves(one) == []
    lock.release()  # the crashed process's session ends with it
    signing(TransparencyLog(two, Signer(two)), any_settings).sync()  # another process
    _bots_games(games, Players(one).register("bob")[0], 2)
    restarted = TransparencyLog(one, Signer(one))
    restarted.sync()  # on Postgres it holds no lock: it reads what the other signed
    assert restarted.head().tree_size == (3 if any_settings.database_url else 5)
    signing(restarted, any_settings).sync()
    leaves = _leaves(one)
    assert [(leaf.subject, leaf.final_hash) for leaf in leaves] == _endings(one)
    assert len(leaves) == 5 and restarted.head().tree_size == 5


def test_a_finished_tournament_is_logged_and_its_export_carries_the_proof(
    pg_settings: Settings,
) -> None:
    store = open_store(pg_settings)
    try:
        games = GameService(store)
        tournaments = TournamentService(store, games.games)
        organiser = Players(store).register("org")[0]
        new = msgspec.convert(
            {"game": "secret-duel", "table_size": 2, "format": "swiss", "rounds": 1},
            NewTournament,
        )
        tid = UUID(tournaments.create(organiser, new).folded.state.id)
        for _ in range(2):
            tournaments.register(organiser, tid, "random")
        tournaments.start(organiser, tid)
        assert play(tournaments, games, tid).state.status == "finished"
        signing(log_of(store), pg_settings)
        lines = tournament_export(store, tid)
        keys = {k.key_id: k.public_key for k in Signer(store).published()}
    finally:
        close_over(store)
        store.close()
    assert lines[0]["format"] == "tabletop-tournament/2"
    proof = lines[-1]["transparency"]
    assert proof["leaf"] == {"kind": "tournament", "id": str(tid), "final_hash": lines[-2]["hash"]}
    assert check_export(lines, "tournament", keys, None).ok
    assert not check_export(lines, "game", keys, None).ok  # a leaf names its kind


def test_the_routes_answer_heads_proofs_and_stable_refusals(any_settings: Settings) -> None:
    from litestar.testing import TestClient

    from api.main import build
    from tests.support.api import Api

    with TestClient(build(any_settings)) as c:
        api = Api(c)
        empty = c.get("/v1/transparency/head").json()
        assert empty["tree_size"] == 0 and bytes.fromhex(empty["root_hash"]) == mth([])
        ada = api.player("ada")
        ended = []
        for _ in range(3):  # each head read signs a head over the games ended so far
            ended.append(api.create(ada, "secret-duel", 2, {0: "random", 1: "random"})["id"])
            assert api.settled(ended[-1])["status"] == "finished"  # the bots played it out
            head = c.get("/v1/transparency/head").json()
        assert head["tree_size"] == 3
        assert c.get("/v1/transparency/head", params={"tree_size": 0}).json() == empty
        listed = c.get("/v1/transparency/heads", params={"after": 0}).json()["heads"]
        assert listed[-1] == head and all(h["tree_size"] > 0 for h in listed)
        proof = c.get(f"/v1/transparency/inclusion/{ended[1]}").json()
        assert proof["leaf_index"] == 1 and proof["head"] == head
        first = c.get("/v1/transparency/consistency", params={"first": 1, "second": 3}).json()
        old = c.get("/v1/transparency/head", params={"tree_size": 1}).json()
        assert consistent(old, head, first["proof"])
        assert not consistent(old, head, first["proof"][::-1])
        refusals = [
            (f"/v1/transparency/inclusion/{UUID(int=7)}", {}, 404, "not_in_log"),
            ("/v1/transparency/head", {"tree_size": 99}, 404, "head_not_found"),
            ("/v1/transparency/consistency", {"first": 2, "second": 1}, 422, "invalid_tree_size"),
            ("/v1/transparency/consistency", {"first": 0, "second": 9}, 422, "invalid_tree_size"),
            ("/v1/transparency/consistency", {"first": -1, "second": 1}, 400, "invalid_request"),
        ]
        for path, query, status, code in refusals:
            answer = c.get(path, params=query)
            assert answer.status_code == status, (path, query, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert answer.json()["code"] == code


def test_the_server_logs_an_ended_game_without_being_asked(any_settings: Settings) -> None:
    import time

    from litestar.testing import TestClient

    from api.main import build
    from tests.support.api import Api

    with TestClient(build(any_settings)) as c:
        api = Api(c)
        game = api.create(api.player("ada"), "secret-duel", 2, {0: "random", 1: "random"})
        store = open_store(any_settings)  # read the store beside the server, not through it
        try:
            deadline = time.monotonic() + 20
            while not _leaves(store) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert [leaf.subject for leaf in _leaves(store)] == [game["id"]]
        finally:
            store.close()

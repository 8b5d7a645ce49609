"""Every example on /schema runs as shown. Each operation's example is the curl command in
its description (api/conventions.py makes it from the handler's docstring); this runs each
one through the shell, against a live server (uvicorn, a fresh SQLite store), with `$KEY`
set to an API key and the path's placeholders (`{game_id}`, `{tournament_id}`, ...) filled
with real ids, and asserts it answers 2xx.

Before its example runs, each operation gets what the example needs (SETUP, by operation
id): a game its key may abort, a seat it may resign, a tournament it organises, a game at
the example's `expected_version`, ... An operation without an entry there runs in the
common setup: a finished game, a tournament, a fresh key. So a new example is run too, and
fails here until it answers 2xx as shown."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.api import Api
from tests.support.waits import wait_until

pytestmark = pytest.mark.xdist_group("examples")  # one live server and one world per run

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = json.loads((ROOT / "openapi" / "openapi.json").read_text("utf-8"))
EXAMPLE = re.compile(r"\n\nExample:\n\n```sh\n(?P<curl>curl .*?)\n```", re.S)
SHOWN = "http://127.0.0.1:8000"  # the server the examples name
PLACEHOLDER = re.compile(r"\{(\w+)\}")
STREAMED = 5.0  # seconds a stream that stays open is read


def examples(document: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """{operation id: (method, path, curl command)} of the operations that have one."""
    found = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            example = EXAMPLE.search(operation.get("description", ""))
            if example is not None:
                found[operation["operationId"]] = (method, path, example["curl"])
    return found


OPERATIONS = sorted(examples(COMMITTED))


class World(Api):
    """What the examples act on, made through the API (the examples' own requests aside)."""

    def __init__(self, url: str) -> None:
        super().__init__(httpx.Client(base_url=url, timeout=60))

    def post(self, path: str, player: dict[str, str], body: Any = None) -> dict[str, Any]:
        r = self.client.post(path, json=body, headers=self.auth(player))
        assert r.status_code in (200, 201), (path, r.text)
        answer: dict[str, Any] = r.json()
        return answer

    def new_game(self, creator: dict[str, str], seats: int = 3, **body: Any) -> dict[str, Any]:
        return self.post("/v1/games", creator, {"game": "puerto-rico", "seats": seats} | body)

    def over(self, game_id: str, timeout: float = 120) -> dict[str, Any]:
        """The game once finished (the bots play it out on their own), by the long poll."""
        deadline = time.monotonic() + timeout
        game = self.game(game_id)
        while game["status"] not in ("finished", "aborted"):
            assert time.monotonic() < deadline, f"game {game_id} is not over after {timeout} s"
            game = self.wait(game_id, game["version"], timeout=10)
        return game

    @cached_property
    def someone(self) -> dict[str, str]:
        return self.player("someone")

    @cached_property
    def finished(self) -> dict[str, Any]:
        """A rated game the bots have played to the end (hundreds of events), the greedy bot
        in seat 1."""
        bots = {"0": "random", "1": "greedy", "2": "random"}
        return self.over(self.new_game(self.someone, bots=bots, rated=True)["id"])

    def profile(self, player_id: str) -> None:
        """Once the read model (which trails the games) has `player_id`'s profile."""
        found = lambda: self.client.get(f"/v1/players/{player_id}").status_code != 404  # noqa: E731
        wait_until(found, 30, f"the profile of {player_id}")

    @cached_property
    def tournament(self) -> dict[str, Any]:
        body = {"game": "puerto-rico", "format": "swiss", "table_size": 3, "rounds": 1}
        return self.post("/v1/tournaments", self.someone, body)

    def resigned(self, player: dict[str, str]) -> dict[str, Any]:
        """A two-seat game of `player` and a bot, which `player` resigns: finished."""
        game = self.new_game(player, seats=2, seat=0, bots={"1": "random"})
        self.post(f"/v1/games/{game['id']}/resign", player)
        return self.over(game["id"])

    def logged(self, size: int) -> None:
        """Once a head is signed over at least `size` leaves (each ended game is one)."""

        def signed() -> bool:
            r = self.client.get("/v1/transparency/head")
            return r.status_code == 200 and r.json()["tree_size"] >= size

        wait_until(signed, 30, f"a head over {size} leaves")


# What an operation's example acts on: its key, and ids for the path's placeholders.
Prepared = tuple[dict[str, str], dict[str, str]]


def common(world: World) -> Prepared:
    return world.player(), {
        "game_id": world.finished["id"],
        "subject_id": world.finished["id"],
        "tournament_id": world.tournament["id"],
        "player_id": world.someone["id"],
        "game": "puerto-rico",
    }


def open_game_of_the_key(world: World) -> Prepared:
    """abortGame: the key's player created the game, which has not started."""
    creator = world.player()
    return creator, {"game_id": world.new_game(creator, seat=0)["id"]}


def open_game_of_another(world: World) -> Prepared:
    """joinGame (`{"seat": 1}`): seat 1 is free."""
    return world.player(), {"game_id": world.new_game(world.player(), seat=0)["id"]}


def seated_in_an_open_game(world: World) -> Prepared:
    """leaveGame: the key's player sits in seat 1 of a game that has not started."""
    game = world.new_game(world.player(), seat=0)
    joiner = world.player()
    world.post(f"/v1/games/{game['id']}/join", joiner, {"seat": 1})
    return joiner, {"game_id": game["id"]}


def awaited_at_version_12(world: World) -> Prepared:
    """submitMove (`expected_version` 12, choose_role settler), getLegalMoves: five people
    in a Puerto Rico game, which starts at version 12 awaiting its governor's first role;
    the key is the governor's."""
    players = [world.player(f"p{seat}") for seat in range(5)]
    game = world.new_game(players[0], seats=5, seat=0)
    for seat, player in enumerate(players[1:], 1):
        game = world.post(f"/v1/games/{game['id']}/join", player, {"seat": seat})
    assert game["version"] == 12 and len(game["awaiting"]) == 1, game
    governor = players[game["awaiting"][0]]
    legal = world.client.get(f"/v1/games/{game['id']}/legal-moves", headers=world.auth(governor))
    assert {"type": "choose_role", "role": "settler"} in legal.json()["moves"], legal.text
    return governor, {"game_id": game["id"]}


def seated_in_a_running_game(world: World) -> Prepared:
    """resignGame: the key's player sits in a game that has started."""
    player = world.player()
    return player, {"game_id": world.new_game(player, seats=2, seat=0, bots={"1": "random"})["id"]}


def seated_in_a_finished_game(world: World) -> Prepared:
    """rematchGame: the key's player sat in a finished game."""
    player = world.player()
    return player, {"game_id": world.resigned(player)["id"]}


def organiser(world: World) -> Prepared:
    """registerForTournament (`{"bot": "greedy"}`): the key's player organises it."""
    player = world.player()
    body = {"game": "puerto-rico", "format": "swiss", "table_size": 3, "rounds": 1}
    return player, {"tournament_id": world.post("/v1/tournaments", player, body)["id"]}


def organiser_of_a_full_table(world: World) -> Prepared:
    """startTournament: the key's player organises it, with a table's worth of bots."""
    player = world.player()
    body = {"game": "secret-duel", "format": "swiss", "table_size": 2, "rounds": 1}
    tournament = world.post("/v1/tournaments", player, body)
    for _ in range(2):
        world.post(f"/v1/tournaments/{tournament['id']}/register", player, {"bot": "random"})
    return player, {"tournament_id": tournament["id"]}


def organiser_of_greedy_1(world: World) -> Prepared:
    """withdrawFromTournament (`{"entrant": "bot:greedy:1"}`): it is the first greedy bot
    the key's player registered."""
    player, ids = organiser(world)
    world.post(f"/v1/tournaments/{ids['tournament_id']}/register", player, {"bot": "greedy"})
    return player, ids


def greedy_has_played(world: World) -> Prepared:
    """getPlayer (`bot:greedy`): a bot has a profile once it has played a rated game."""
    world.finished  # noqa: B018  (played by the greedy bot among others)
    world.profile("bot:greedy")
    return common(world)


def logged(size: int) -> Callable[[World], Prepared]:
    """getTreeHead, getConsistencyProof (`first=1&second=2`): `size` ended games are in the
    transparency log."""

    def prepare(world: World) -> Prepared:
        for _ in range(size):
            world.resigned(world.player())
        world.logged(size)
        return common(world)

    return prepare


def challenged(world: World) -> Prepared:
    """acceptChallenge, declineChallenge: the key's player is challenged (by someone)."""
    player = world.player()
    challenge = world.post("/v1/challenges", world.someone, {"players": [player["id"]],
                           "game": "caylus"})  # fmt: skip
    return player, {"challenge_id": challenge["id"]}


def challenger(world: World) -> Prepared:
    """cancelChallenge, getChallenge, exportChallenge: the key's player challenged someone."""
    player = world.player()
    body = {"players": [world.someone["id"]], "game": "caylus"}
    return player, {"challenge_id": world.post("/v1/challenges", player, body)["id"]}


def seeker(world: World) -> Prepared:
    """cancelSeek, getSeek, exportSeek: the key's player seeks a game nobody else seeks."""
    player = world.player()
    body = {"game": "santa-maria", "seats": 4, "rated": False}
    return player, {"seek_id": world.post("/v1/seeks", player, body)["id"]}


def moved_against_a_bot(world: World) -> Prepared:
    """requestUndo: the key's player made a decision in a casual Caylus game against a bot
    (Caylus draws and hides nothing after its setup: a decision can always be taken back;
    the bot accepts at once)."""
    player = world.player()
    game = world.new_game(player, seats=2, seat=0, bots={"1": "random"}, game="caylus")
    return player, {"game_id": _moved(world, player, game["id"])}


def asked_to_take_back(world: World) -> Prepared:
    """acceptUndo, declineUndo: the key's player is asked to let the other take back a
    decision, in a casual Caylus game of two people."""
    asker, other = world.player(), world.player()
    game = world.new_game(asker, seats=2, seat=0, game="caylus")
    world.post(f"/v1/games/{game['id']}/join", other, {"seat": 1})
    mover = _moved(world, asker, game["id"], other)
    world.client.post(f"/v1/games/{mover}/undo", headers=world.auth(asker))
    return other, {"game_id": mover}


def _moved(world: World, player: dict[str, str], game_id: str, *others: dict[str, str]) -> str:
    """`player` makes its first decision in the game (the others move until it is awaited)."""
    for _ in range(50):
        for who in (player, *others):
            legal = world.client.get(f"/v1/games/{game_id}/legal-moves", headers=world.auth(who))
            if legal.status_code == 200 and legal.json()["moves"]:
                version = world.game(game_id)["version"]
                move = {"expected_version": version, "move": legal.json()["moves"][0]}
                headers = world.auth(who, key=f"{game_id}/{version}")
                world.client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
                if who is player:
                    return game_id
                break
    raise AssertionError(f"{player['id']} was never awaited in {game_id}")


def finished_game_logged(world: World) -> Prepared:
    """getInclusionProof: the finished game is in the transparency log, which follows the
    store a moment later."""
    prepared = common(world)
    subject = prepared[1]["subject_id"]
    path = f"/v1/transparency/inclusion/{subject}"
    wait_until(lambda: world.client.get(path).status_code != 404, 30, f"{subject} in the log")
    return prepared


SETUP: dict[str, Callable[[World], Prepared]] = {
    "abortGame": open_game_of_the_key,
    "joinGame": open_game_of_another,
    "leaveGame": seated_in_an_open_game,
    "submitMove": awaited_at_version_12,
    "getLegalMoves": awaited_at_version_12,
    "resignGame": seated_in_a_running_game,
    "rematchGame": seated_in_a_finished_game,
    "registerForTournament": organiser,
    "startTournament": organiser_of_a_full_table,
    "withdrawFromTournament": organiser_of_greedy_1,
    "getPlayer": greedy_has_played,
    "getTreeHead": logged(1),
    "getConsistencyProof": logged(2),
    "getInclusionProof": finished_game_logged,
    "acceptChallenge": challenged,
    "declineChallenge": challenged,
    "cancelChallenge": challenger,
    "getChallenge": challenger,
    "exportChallenge": challenger,
    "cancelSeek": seeker,
    "getSeek": seeker,
    "exportSeek": seeker,
    "requestUndo": moved_against_a_bot,
    "acceptUndo": asked_to_take_back,
    "declineUndo": asked_to_take_back,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    path = tmp_path_factory.mktemp("examples") / "tabletop.sqlite"
    with LiveServer(Settings(sqlite_path=str(path))) as server:
        yield server


@pytest.fixture(scope="module")
def world(live: LiveServer) -> Iterator[World]:
    world = World(live.url)
    yield world
    world.client.close()


@pytest.fixture(scope="module")
def served(live: LiveServer) -> dict[str, tuple[str, str, str]]:
    """The examples as the live server's /schema shows them."""
    return examples(httpx.get(f"{live.url}/schema/openapi.json").json())


def run(curl: str, url: str, key: str, out: Path) -> tuple[int, str, int]:
    """The command through the shell, as shown but for the server's address: (the status it
    got, the body, curl's exit code). A stream that stays open is read for STREAMED s."""
    command = curl.replace(SHOWN, url) + f" -o '{out}' -w '%{{http_code}}' -m {STREAMED}"
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "KEY": key,
    }
    done = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True,
                          timeout=STREAMED + 60)  # fmt: skip
    body = out.read_text("utf-8") if out.exists() else ""
    return int(done.stdout or 0), body, done.returncode


def test_every_operation_has_an_example_to_run() -> None:
    """The document's own rule (tests/http/test_document.py), seen from here: nothing is
    left out of the runs below."""
    every = {op["operationId"] for item in COMMITTED["paths"].values() for op in item.values()}
    assert set(OPERATIONS) == every
    assert set(SETUP) <= every, set(SETUP) - every  # no setup for an operation gone


@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_the_example_runs_as_shown(
    operation_id: str,
    world: World,
    live: LiveServer,
    served: dict[str, tuple[str, str, str]],
    tmp_path: Path,
) -> None:
    assert shutil.which("curl"), "the examples are curl commands: install curl"
    method, path, curl = served[operation_id]
    target = curl.split("'")[1].removeprefix(SHOWN)  # the URL: the first quoted word
    assert curl.startswith(f"curl -s -X {method.upper()} '"), curl
    route = "".join(
        "[^/]+" if PLACEHOLDER.fullmatch(part) else re.escape(part)
        for part in re.split(r"(\{\w+\})", path)
    )
    assert re.fullmatch(route, target.split("?")[0]), f"{operation_id}'s example is not {path}"
    player, ids = SETUP.get(operation_id, common)(world)
    for name in PLACEHOLDER.findall(curl):  # the path's, and an id in the body
        ids = {**common(world)[1], **ids} if name not in ids else ids
        assert name in ids, f"{operation_id}: nothing for {{{name}}} in {path}"
        curl = curl.replace(f"{{{name}}}", ids[name])
    status, body, code = run(curl, live.url, player["api_key"], tmp_path / "body")
    assert 200 <= status < 300, f"{operation_id}: {status} {body}\n{curl}"
    streamed = "Accept: text/event-stream" in curl
    assert code == 0 or (streamed and code == 28), f"curl exit {code}: {curl}"  # 28: timed out
    assert body, f"{operation_id} answered nothing"

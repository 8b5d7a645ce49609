"""`tabletop bot` (api/bot_runner.py) over HTTP against a live server: it sends nothing more
for a game once the game is over, a move whose answer carries the seat's next legal moves
is followed by the next move without reading them again, and without the player stream it
waits for the other seats with the long poll (`Client.wait`), not by polling.

The runner's requests are counted on its client's httpx hooks, per game and in the order it
sends them (the runner sends one at a time, but for its long polls)."""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest
from tabletop_client import ApiError, Client, models
from tabletop_client.models import GameOut

from api.bot_runner import Runner, policy_named
from service.settings import Settings
from tests.conftest import LiveServer

SEED = 7  # the runner's random stream (the games' seeds are the server's: printed at the end)
GAME_PATH = re.compile(r"^/v1/games/([0-9a-f-]{36})(/[a-z-]+)?$")


class Sent(msgspec.Struct, kw_only=True):
    """One request of the runner about a game, as answered."""

    game: str
    method: str
    route: str  # "" (the game), "/moves", "/legal-moves", ...
    waited_for: int | None  # a long poll's `wait_for_version`
    status: int
    version: int | None  # the game's version the answer shows
    over: bool  # the answer shows the game over
    legal: bool  # a move's answer carries the seat's next legal moves

    def __str__(self) -> str:
        wait = "" if self.waited_for is None else f"?wait_for_version={self.waited_for}"
        legal = " +legal" if self.legal else ""
        return f"{self.method} {self.route or '/'}{wait} {self.status} v{self.version}{legal}"


class Counting:
    """Every answered request of a client about a game, in order."""

    def __init__(self, client: Client) -> None:
        self.sent: list[Sent] = []
        self.lock = threading.Lock()  # the runner's long polls answer on threads of their own
        client.http.event_hooks = {"response": [self.answered]}

    def answered(self, response: httpx.Response) -> None:
        request = response.request
        found = GAME_PATH.match(request.url.path)
        if found is None:
            return
        response.read()
        body = response.json() if response.headers.get("content-type", "").endswith("json") else {}
        body = body if isinstance(body, dict) else {}
        waited = request.url.params.get("wait_for_version")
        sent = Sent(
            game=found[1],
            method=request.method,
            route=found[2] or "",
            waited_for=None if waited is None else int(waited),
            status=response.status_code,
            version=body.get("version"),
            over=body.get("status") in ("finished", "aborted"),
            legal=body.get("legal") is not None,
        )
        with self.lock:
            self.sent.append(sent)

    def of(self, game_id: str) -> list[Sent]:
        with self.lock:
            return [s for s in self.sent if s.game == game_id]


class StreamlessClient(Client):
    """A client of a server without the player stream: the runner falls back on listing
    the player's games and long polls."""

    def notices(self, after: int = 0) -> Iterator[dict[str, Any]]:
        raise ApiError(404, "not_found", "no player stream here")


@pytest.fixture
def server(pg_settings: Settings) -> Iterator[str]:
    with LiveServer(pg_settings) as live:
        yield live.url


def _serve(client: Client, spec: str, games: int) -> tuple[Runner, Counting]:
    """`tabletop bot --policy spec` on `client` until `games` games are over."""
    counting = Counting(client)
    runner = Runner(client, policy_named(spec), seed=SEED)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            runner.run(lambda r: r.finished >= games)
        except BaseException as error:  # shown by the test, not lost in the thread
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(300)
    assert not thread.is_alive(), f"the runner did not finish {games} games"
    assert not failed, failed
    return runner, counting


class Played(msgspec.Struct):
    made: dict[str, str]  # game id -> game type
    finals: dict[str, GameOut]
    counting: Counting


def _play_against_server_bots(server: str, client: Client, games: list[str], spec: str) -> Played:
    """The runner plays seat 0 of each game against a server-side `random` bot to the end."""
    with Client(server) as api:
        me = api.register(f"waits-{spec}")
        made = {api.create_game(name, 2, seat=0, bots={1: "random"}).id: name for name in games}
        client.key, client.player = api.key, me.id
        print(f"runner seed {SEED}, policy {spec}, games {made}")
        with client:
            runner, counting = _serve(client, spec, games=len(made))
        for game_id, name in made.items():
            seed = api.export(game_id)[-1]["seed"]  # revealed once the game is over
            print(f"{name} {game_id} seed {seed}: {len(counting.of(game_id))} requests")
        finals = {game_id: api.game(game_id) for game_id in made}
    assert runner.served == set(made)
    for game_id, game in finals.items():
        assert game.status == "finished" and game.result is not None, made[game_id]
    return Played(made, finals, counting)


def _after_the_end(sent: list[Sent], final: int) -> list[Sent]:
    """The requests that reached the game once it was over: all after the last answer that
    showed it running (an earlier version), but the move that ended it."""
    running = [i for i, s in enumerate(sent) if s.version is not None and s.version < final]
    late = sent[running[-1] + 1 :] if running else sent
    if late and _is_move(late[0]) and late[0].version == final:
        return late[1:]
    return late


def _is_move(sent: Sent) -> bool:
    return (sent.method, sent.route, sent.status) == ("POST", "/moves", 200)


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "no-stream"])
def test_the_runner_sends_nothing_for_a_game_once_it_is_over(server: str, streamed: bool) -> None:
    """Two games against a server-side bot, played to the end: at most two requests reach a
    game after its end (the one that finds it over, and one long poll under way). Without
    the player stream, the runner waits for the bot with long polls, each answered by the
    bot's move (none times out, none is sent again before the game moves)."""
    client = Client(server) if streamed else StreamlessClient(server)
    played = _play_against_server_bots(server, client, ["santa-maria", "caylus"], "random")
    for game_id, game in played.finals.items():
        sent = played.counting.of(game_id)
        late = _after_the_end(sent, game.version)
        name = played.made[game_id]
        assert len(late) <= 2, f"{name}: after its end {[str(s) for s in late]}"
        waits = [s for s in sent if s.waited_for is not None]
        reads = [s for s in sent if s.method == "GET" and s.route == "" and s.waited_for is None]
        if streamed:
            assert not waits, name  # the stream tells the turns
        else:
            assert waits, f"{name}: no long poll"
            stuck = [str(s) for s in waits if s.version == s.waited_for and not s.over]
            assert not stuck, f"{name}: long polls the game did not answer by moving: {stuck}"
        assert len(reads) <= 1, f"{name}: the game read {len(reads)} times (`random` needs once)"


def test_a_move_answered_with_legal_moves_is_followed_by_the_next_move(server: str) -> None:
    """Santa Maria's turns are many actions: after each but the last, the move's answer
    carries the seat's legal moves and the runner plays the next at once (`random` reads
    no view: one request a move). Legal moves are read only where a turn starts: first, and
    after a move that left the game to the other seat."""
    played = _play_against_server_bots(server, Client(server), ["santa-maria"], "random")
    (game_id,) = played.made
    sent = played.counting.of(game_id)
    moves = [s for s in sent if _is_move(s)]
    carried = [s for s in moves if s.legal]
    reads = [s for s in sent if s.route == "/legal-moves"]
    print(f"{len(moves)} moves, {len(carried)} answered with legal moves, {len(reads)} reads")
    assert len(carried) > 10, "no turn of several actions: the test proves nothing"
    for before, after in itertools.pairwise(sent):
        if before.legal:
            assert _is_move(after), f"{before} then {after}"
    assert len(reads) <= len(moves) - len(carried) + 1, [str(s) for s in sent]


def test_a_planner_reads_the_view_not_the_legal_moves_between_its_moves(server: str) -> None:
    """`greedy` plans on the seat's view: a move answered with legal moves is followed by
    one read of the game (the view at the new version) and the next move."""
    played = _play_against_server_bots(server, Client(server), ["santa-maria"], "greedy")
    (game_id,) = played.made
    sent = played.counting.of(game_id)
    assert sum(s.legal for s in sent) > 10, "no turn of several actions: the test proves nothing"
    for i, before in enumerate(sent):
        if before.legal:
            read, move = sent[i + 1 : i + 3]
            shown = f"{before} then {read}, {move}"
            assert (read.method, read.route, read.waited_for) == ("GET", "", None), shown
            assert read.version == before.version and _is_move(move), shown


def test_the_long_poll_answers_when_the_game_moves_past_the_version(server: str) -> None:
    """`Client.wait`: at once for a version the game is past, on the commit that moves it
    otherwise (the server-side bot's), and at the timeout with the game unchanged when no
    seat is to move but the waiter's; a move's answer carries `legal` exactly when the mover
    is awaited again."""
    with Client(server) as api:
        api.register("waiter")
        game = api.create_game("santa-maria", 2, seat=0, bots={1: "random"})
        print(f"game {game.id}")
        assert api.wait(game.id, game.version - 1, timeout_s=5).version >= game.version
        answer = None
        while answer is None or answer.legal is None:
            assert game.status == "active", "the seat was never awaited twice in a row"
            if game.your_seat not in game.awaiting:
                later = api.wait(game.id, game.version, timeout_s=30)
                assert later.version > game.version or later.status != "active"
                game = later
                continue
            legal = api.legal_moves(game.id)
            if not legal.moves:  # awaited only while a write was applied
                game = api.game(game.id)
                continue
            answer = api.move(game.id, legal.version, _acting(legal.moves))
            mine = answer.status == "active" and game.your_seat in answer.awaiting
            assert (answer.legal is not None) == mine, answer
            if answer.legal is None:
                game = api.game(game.id)
        assert answer.legal.version == answer.version and answer.legal.moves
        assert answer.legal.moves == api.legal_moves(game.id).moves
        quiet = api.wait(game.id, answer.version, timeout_s=0.2)
        assert quiet.version == answer.version and game.your_seat in quiet.awaiting


def _acting(moves: list[Any]) -> Any:
    """A move that keeps the turn where there is one."""
    ending = (models.SantaMariaEndTurn, models.SantaMariaRetire, models.SantaMariaDecline)
    acting = [m for m in moves if not isinstance(m, ending)]
    return (acting or moves)[0]

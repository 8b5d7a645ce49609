"""`tabletop bot`: a player's games played by a policy, over the HTTP API like any client.

The runner listens to the player's notices (`GET /v1/players/me/stream`) and, on each
`your_turn`, plays the seat until the game no longer awaits it. A move costs one request
while the game awaits the seat again (its answer carries the seat's next legal moves; a
policy that reads the view costs one read more); a turn costs one read of legal moves more.
A turn announced for a version the runner has dealt with since is old news, and a game known
to be over gets no request at all. Where the server has no player stream (or it breaks off)
the runner lists the player's running games instead, and waits for the other seats of each
with the long poll (`Client.wait`), never by reading again and again. A policy sees only what
the seat sees: the game's view and its legal moves, as the game's command structs.

Policies: `random`; a bot of domain/bots.py by name (`greedy`, `mcts`, `mcts:p=200`), which
plans on full states built from the seat's view alone (`state_from_view`: whatever the view
hides is drawn at random, as the server's own bots see it), in every game; or
`module:function`, a function of a `Turn` returning one of `turn.legal`.
"""

from __future__ import annotations

import importlib
import queue
import random
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx
import msgspec
import structlog
from tabletop_client import ApiError, Client, game_of
from tabletop_client.models import GameOut, LegalMoves

from api.game_types import view_type
from domain.bots import BotSpecError, resolve_bot
from domain.contract import SeatInfo
from domain.registry import GAMES

log = structlog.get_logger("tabletop.bot")
POLL = 1.0  # seconds between looks at the running games, without a player stream
WAIT_S = 30.0  # seconds a long poll waits for a game to move (the server's default)
WAITERS = 16  # long polls under way at once, without a player stream
OVER = ("finished", "aborted")
_UNREAD: Any = object()


class Turn:
    """What a policy decides from: the seat's view (as the API gives it) and its legal
    moves (the game's command structs); `rng` is the runner's. The runner reads the view
    when the policy first looks at it (`random` never does)."""

    def __init__(
        self,
        *,
        game: str,
        game_id: str,
        seat: int,
        version: int,
        legal: list[Any],
        rng: random.Random,
        view: Any = _UNREAD,
        load: Callable[[], tuple[int, Any]] | None = None,
    ) -> None:
        self.game = game  # the game type, "santa-maria"
        self.game_id = game_id
        self.seat = seat
        self.version = version
        self.legal = legal
        self.rng = rng
        self._view = view
        self._load = load  # the game's version and the seat's view, read when asked for
        self.moved_on = False  # the view read was a later version's: `legal` is stale

    @property
    def view(self) -> Any:
        if self._view is _UNREAD:
            if self._load is None:
                raise AttributeError("this turn has no view")
            version, self._view = self._load()
            self.moved_on = version != self.version
        return self._view

    def __repr__(self) -> str:
        return f"Turn({self.game} {self.game_id} seat={self.seat} version={self.version})"


Policy = Callable[[Turn], Any]


def commands(game: str, moves: list[Any]) -> list[Any]:
    """Legal moves (the client's types) as the game's command structs (`domain.<game>`),
    what the server's bots and a policy of the server's code decide on."""
    command_type = GAMES[game].command_type
    return [msgspec.convert(msgspec.to_builtins(move), command_type) for move in moves]


class PolicyError(Exception):
    """A policy the runner cannot apply (an unknown name, or a bot the game does not have)."""


def random_policy(turn: Turn) -> Any:
    return turn.rng.choice(turn.legal)


def policy_named(spec: str) -> Policy:
    """The policy a `--policy` value names."""
    if spec == "random":
        return random_policy
    if ":" in spec and not spec.startswith("mcts"):
        module, _, function = spec.partition(":")
        try:
            chosen: Policy = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as error:
            raise PolicyError(f"no policy {spec!r}: {error}") from None
        return chosen
    return Planner(spec)


class Planner:
    """A bot of domain/bots.py, planning on states built from the seat's view alone."""

    def __init__(self, spec: str) -> None:
        self.spec = spec

    def __call__(self, turn: Turn) -> Any:
        game = GAMES[turn.game]
        try:
            bot = resolve_bot(game, self.spec)
        except BotSpecError as error:
            raise PolicyError(error.message) from None
        # The view as the API gave it, decoded as the game's view type (JSON, so that a
        # view's int keys read back as they were).
        view: object = msgspec.json.decode(msgspec.json.encode(turn.view), type=view_type(game))
        return bot(game, SeatInfo.from_view(game, view, turn.seat), turn.rng)


class Runner:
    """Plays every game the client's player is awaited in, with `policy`."""

    def __init__(self, client: Client, policy: Policy, seed: int | None = None) -> None:
        self.client = client
        self.policy = policy
        self.rng = random.Random(seed)
        self.served: set[str] = set()  # games this runner has decided in
        self.finished = 0  # ... that have ended since
        self.over: set[str] = set()  # games known to be over: no request is sent for them
        # Per running game: the last version dealt with (a move's answer, a read of the legal
        # moves), its type and this player's seat, the last view read and its version.
        self.seen: dict[str, int] = {}
        self.games: dict[str, tuple[str, int | None]] = {}
        self.views: dict[str, tuple[int, Any]] = {}
        # Without the player stream: the games a long poll watches, the polls to send
        # (None: a waiter's end) and their answers.
        self.waiting: set[str] = set()
        self.jobs: queue.SimpleQueue[tuple[str, int] | None] = queue.SimpleQueue()
        self.answers: queue.SimpleQueue[tuple[str, GameOut | Exception]] = queue.SimpleQueue()
        self.waiters: list[threading.Thread] = []

    def play(self, game_id: str, version: int | None = None) -> int:
        """Decide for the seat until the game no longer awaits it; the moves made. A turn
        announced at `version` is old news if the runner has dealt with that version or a
        later one since (moved, or found the game not awaiting it): nothing is sent then."""
        if game_id in self.over or (version is not None and version <= self.seen.get(game_id, -1)):
            return 0
        made = 0
        legal: LegalMoves | None = None
        while game_id not in self.over:  # a read may find it over
            if legal is None:
                legal = self.client.legal_moves(game_id)
            elif len(legal.moves) < legal.total:  # a move's answer carries the first page
                legal = self.client.legal_moves(game_id, first=legal)
            self._saw(game_id, legal.version)
            if not legal.moves:
                return made
            name, seat = self._game(game_id)
            if seat is None:
                return made
            turn = Turn(
                game=name,
                game_id=game_id,
                seat=seat,
                version=legal.version,
                legal=commands(name, legal.moves),
                rng=self.rng,
                load=partial(self._view, game_id, legal.version),
            )
            choice = self.policy(turn)
            if turn.moved_on:  # the game moved between the two reads
                legal = None
                continue
            try:
                answer = self.client.move(game_id, legal.version, choice)
            except ApiError as refused:
                if refused.code != "version_conflict":  # a timeout or a bot moved first
                    raise
                legal = None
                continue
            made += 1
            self.served.add(game_id)
            self._saw(game_id, answer.version)
            if answer.status in OVER:
                self._ended(game_id, answer.status)
                return made
            if answer.legal is None and seat not in answer.awaiting:
                return made  # the game awaits other seats now
            legal = answer.legal  # None in a retried move's answer: read again
        return made

    def run(self, until: Callable[[Runner], bool] = lambda _: False) -> None:
        """Serve notices (or poll) until `until(self)` holds after a game ends."""
        after = 0
        try:
            while not until(self):
                try:
                    for notice in self.client.notices(after):
                        after = notice["id"]
                        self._notice(notice)
                        if notice["kind"] in ("game_finished", "game_aborted") and until(self):
                            return
                except (ApiError, httpx.TransportError) as error:
                    log.warning("player_stream_unavailable", error=repr(error), poll_s=POLL)
                    self.poll_once()
                    self.serve_waits(POLL, until)
        finally:
            self._stop_waiting()

    def _notice(self, notice: dict[str, Any]) -> None:
        kind, game_id = notice["kind"], notice["game"]
        if kind == "your_turn":
            self._serve(game_id, notice.get("data", {}).get("version"))
        elif kind in ("game_finished", "game_aborted"):
            self._ended(game_id, kind.removeprefix("game_"), notice.get("data", {}))

    def _serve(self, game_id: str, version: int | None) -> None:
        try:
            made = self.play(game_id, version)
        except ApiError as refused:  # an old notice of a game over since
            log.info("not_played", game=game_id, code=refused.code)
            return
        if made:
            log.info("played", game=game_id, moves=made)

    # ---- what the runner knows of its games ------------------------------------------------

    def _saw(self, game_id: str, version: int) -> None:
        if game_id not in self.over:
            self.seen[game_id] = max(version, self.seen.get(game_id, version))

    def _game(self, game_id: str) -> tuple[str, int | None]:
        """The game's type and this player's seat (read once a game)."""
        if (known := self.games.get(game_id)) is not None:
            return known
        game = self._read(game_id)
        return game_of(game), game.your_seat

    def _view(self, game_id: str, version: int) -> tuple[int, Any]:
        """The seat's view at `version` as last read, or read now (the game's version then)."""
        if (known := self.views.get(game_id)) is not None and known[0] == version:
            return known
        game = self._read(game_id)
        return game.version, game.view

    def _read(self, game_id: str) -> GameOut:
        game = self.client.game(game_id)
        self._know(game)
        return game

    def _know(self, game: GameOut) -> None:
        """What a read of the game tells: its type, the seat, the view; whether it is over."""
        if game.status in OVER:
            self._ended(game.id, game.status)
        elif game.id not in self.over:
            self.games[game.id] = (game_of(game), game.your_seat)
            self.views[game.id] = (game.version, game.view)

    def _ended(self, game_id: str, status: str, data: dict[str, Any] | None = None) -> None:
        """A game over: forgotten but for its id (nothing more is sent for it)."""
        if game_id in self.over:
            return
        self.over.add(game_id)
        for known in (self.seen, self.games, self.views):
            known.pop(game_id, None)
        if game_id in self.served:
            self.finished += 1
            log.info(f"game_{status}", game=game_id, **(data or {}))

    # ---- without the player stream ---------------------------------------------------------

    def poll_once(self) -> None:
        """Without the player stream: play each running game that awaits this player, and
        watch each with a long poll (the client must know its player's id to list them)."""
        me = self.client.player
        if me is None:
            log.warning("cannot_poll", reason="the player's id is not known (--player)")
            return
        for summary in self.client.games(player=me, status="active"):
            game_id, version = summary["id"], summary["version"]
            if game_id in self.over or game_id in self.waiting:
                continue  # over (the list may lag behind the game), or watched already
            mine = {seat["seat"] for seat in summary["seats"] if seat["player"] == me}
            if mine & set(summary["awaiting"]):
                self._serve(game_id, version)
            self._watch(game_id, max(version, self.seen.get(game_id, version)))

    def serve_waits(
        self, seconds: float, until: Callable[[Runner], bool] = lambda _: False
    ) -> None:
        """For `seconds` (or until `until(self)` holds), serve the long polls' answers as they
        come: a game that awaits this player is played, and watched again unless over."""
        end = time.monotonic() + seconds
        while not until(self):
            try:
                game_id, answer = self.answers.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return
            self.waiting.discard(game_id)
            if isinstance(answer, Exception):  # watched again on the next look at the games
                log.warning("wait_failed", game=game_id, error=repr(answer))
                continue
            self._know(answer)
            if answer.status == "active" and answer.your_seat in answer.awaiting:
                self._serve(game_id, answer.version)
            self._watch(game_id, self.seen.get(game_id, answer.version))

    def _watch(self, game_id: str, version: int) -> None:
        """Wait for the game to move past `version`, with a long poll on a waiter's thread."""
        if game_id in self.over or game_id in self.waiting:
            return
        self.waiting.add(game_id)
        self.jobs.put((game_id, version))
        while len(self.waiters) < WAITERS:
            waiter = threading.Thread(target=self._wait, name="tabletop-wait", daemon=True)
            waiter.start()
            self.waiters.append(waiter)

    def _wait(self) -> None:
        while (job := self.jobs.get()) is not None:
            game_id, version = job
            try:
                answer: GameOut | Exception = self.client.wait(game_id, version, WAIT_S)
            except Exception as error:  # the runner's thread logs it
                answer = error
            self.answers.put((game_id, answer))

    def _stop_waiting(self) -> None:
        """No more long polls: those asked for but not sent are dropped, and each waiter ends
        (after the poll under way, if any)."""
        while True:
            try:
                self.jobs.get_nowait()
            except queue.Empty:
                break
        for _ in self.waiters:
            self.jobs.put(None)
        self.waiters.clear()
        self.waiting.clear()

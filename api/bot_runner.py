"""`tabletop bot`: a player's games played by a policy, over the HTTP API like any client.

The runner listens to the player's notices (`GET /v1/players/me/stream`) and, on each
`your_turn`, plays the seat until the game no longer awaits it; where the server has no
player stream (or it breaks off) it polls the player's running games instead. A policy sees
only what the seat sees: the game's view and its legal moves, as the game's command structs.

Policies: `random`; a bot of domain/bots.py by name (`greedy`, `mcts`, `mcts:p=200`), which
plans on full states built from the seat's view alone (`state_from_view`: whatever the view
hides is drawn at random, as the server's own bots see it), in every game; or
`module:function`, a function of a `Turn` returning one of `turn.legal`.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from typing import Any

import httpx
import msgspec
import structlog

from api.game_types import view_type
from domain.bots import BotSpecError, resolve_bot
from domain.contract import SeatInfo
from domain.registry import GAMES
from tabletop.client import ApiError, Client, commands

log = structlog.get_logger("tabletop.bot")
POLL = 1.0  # seconds between looks at the running games, without a player stream


class Turn(msgspec.Struct, kw_only=True):
    """What a policy decides from: the seat's view (as the API gives it) and its legal
    moves (the game's command structs); `rng` is the runner's."""

    game: str  # the game type, "santa-maria"
    game_id: str
    seat: int
    version: int
    view: Any
    legal: list[Any]
    rng: random.Random


Policy = Callable[[Turn], Any]


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
        view = msgspec.json.decode(msgspec.json.encode(turn.view), type=view_type(game))
        return bot(game, SeatInfo.from_view(game, view, turn.seat), turn.rng)


class Runner:
    """Plays every game the client's player is awaited in, with `policy`."""

    def __init__(self, client: Client, policy: Policy, seed: int | None = None) -> None:
        self.client = client
        self.policy = policy
        self.rng = random.Random(seed)
        self.served: set[str] = set()  # games this runner has decided in
        self.finished = 0  # ... that have ended since

    def play(self, game_id: str) -> int:
        """Decide for the seat until the game no longer awaits it; the moves made."""
        made = 0
        while True:
            legal = self.client.legal_moves(game_id)
            if not legal.moves:
                return made
            game = self.client.game(game_id)
            if game.version != legal.version or game.your_seat is None:
                continue  # the game moved between the two reads
            turn = Turn(
                game=game.game,
                game_id=game_id,
                seat=game.your_seat,
                version=legal.version,
                view=game.view,
                legal=commands(game.game, legal.moves),
                rng=self.rng,
            )
            choice = self.policy(turn)
            try:
                self.client.move(game_id, legal.version, choice)
            except ApiError as refused:
                if refused.code != "version_conflict":  # a timeout or a bot moved first
                    raise
            made += 1

    def run(self, until: Callable[[Runner], bool] = lambda _: False) -> None:
        """Serve notices (or poll) until `until(self)` holds after a game ends."""
        after = 0
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
                time.sleep(POLL)

    def _notice(self, notice: dict[str, Any]) -> None:
        kind, game_id = notice["kind"], notice["game"]
        if kind == "your_turn":
            try:
                made = self.play(game_id)
            except ApiError as refused:  # an old notice of a game over since
                log.info("not_played", game=game_id, code=refused.code)
                return
            if made:
                self.served.add(game_id)
                log.info("played", game=game_id, moves=made)
        elif kind in ("game_finished", "game_aborted") and game_id in self.served:
            self.finished += 1
            log.info(kind, game=game_id, **notice.get("data", {}))

    def poll_once(self) -> None:
        """Without the player stream: play each running game that awaits this player (the
        client must know its player's id to list them)."""
        if self.client.player is None:
            log.warning("cannot_poll", reason="the player's id is not known (--player)")
            return
        for summary in self.client.games(player=self.client.player, status="active"):
            if summary.get("awaiting"):
                self._notice({"kind": "your_turn", "game": summary["id"]})

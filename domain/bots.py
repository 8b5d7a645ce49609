"""Bots by name, for every runner (the service, `simulate`, `selfplay`, `duel`): one place
that reads a bot spec and refuses a bad one.

A spec is a bot name: `random` (every game), a game's own bots (`greedy`), or `mcts`
(information-set Monte Carlo tree search, domain/search.py) with an optional budget after a
colon: `mcts`, `mcts:playouts=400`, `mcts:playouts=200,rollout=random`, `mcts:ms=500`,
`mcts:horizon=12` (rollout moves before the game's estimate; `end` plays every rollout out).
Short keys fit the API's 32-character bot names: `p` (playouts), `r` (rollout), `h`
(horizon). A spec asking for more than the server maximum is refused, never trimmed.
"""

from __future__ import annotations

import random
from typing import Any, get_args

from domain.contract import Bot, Evaluation, Game, SeatInfo, random_bot
from domain.search import Budget, Rollout, search

MCTS = "mcts"
DEFAULT_PLAYOUTS = 16  # with rollouts cut at the game's horizon: a few hundred ms per decision
END = "end"  # the horizon of rollouts played to the end of the game
MAX_PLAYOUTS = 2_000  # the server maximum per decision
MAX_MS = 10_000  # the server maximum thinking time per decision (a time budget)
ROLLOUTS: tuple[Rollout, ...] = get_args(Rollout)
_KEYS = {
    "playouts": "playouts",
    "p": "playouts",
    "ms": "ms",
    "rollout": "rollout",
    "r": "rollout",
    "horizon": "horizon",
    "h": "horizon",
}


class BotSpecError(Exception):
    """A bot spec the runners refuse; `code` is stable (the API answers 422 with it):
    `unknown_bot`, `invalid_bot` (a malformed budget), `bot_budget_too_large`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def searchable(game: Game[Any, Any]) -> bool:
    """Whether `game` can be searched: it declares `can_sample_hidden` (every hosted game),
    since the search plans on states drawn by `sample_hidden`."""
    return game.can_sample_hidden


def bot_names(game: Game[Any, Any]) -> list[str]:
    """The bot names `game` accepts (an `mcts` name may carry a budget)."""
    return ["random", *sorted(game.bots), *([MCTS] if searchable(game) else [])]


def _default_playouts(evaluation: Evaluation | None) -> int:
    if evaluation is None or evaluation.playouts is None:
        return DEFAULT_PLAYOUTS
    return evaluation.playouts


def parse_budget(game: Game[Any, Any], spec: str) -> Budget:
    """The budget of an `mcts[:key=value,...]` spec, checked against the server maximum."""
    _, _, params = spec.partition(":")
    values: dict[str, Any] = {}
    for item in filter(None, params.split(",")):
        key, eq, raw = item.partition("=")
        field = _KEYS.get(key.strip())
        if field is None or not eq or field in values:
            raise BotSpecError(
                "invalid_bot",
                f"bad mcts parameter {item!r}: use playouts (p), ms, rollout (r) or horizon (h),"
                " once each",
            )
        raw = raw.strip()
        if field == "horizon" and raw == END:
            values[field] = None
            continue
        if field == "rollout":
            if raw not in ROLLOUTS or (raw != "random" and raw not in game.bots):
                raise BotSpecError("invalid_bot", f"rollout is one of {', '.join(ROLLOUTS)}")
            values[field] = raw
            continue
        least = 0 if field == "horizon" else 1
        if not (raw.isascii() and raw.isdigit()) or int(raw) < least:  # ("²" is a digit)
            raise BotSpecError(
                "invalid_bot", f"{field} is a whole number from {least}, not {raw!r}"
            )
        values[field] = int(raw)
    evaluation = game.evaluation
    if "ms" in values and "playouts" not in values:
        values["playouts"] = MAX_PLAYOUTS  # the clock decides
    budget = Budget(
        playouts=values.get("playouts", _default_playouts(evaluation)),
        ms=values.get("ms"),
        rollout=values.get("rollout", "greedy" if "greedy" in game.bots else "random"),
        horizon=values.get("horizon", None if evaluation is None else evaluation.horizon),
    )
    if budget.playouts > MAX_PLAYOUTS:
        raise BotSpecError(
            "bot_budget_too_large",
            f"mcts playouts {budget.playouts} is over the server maximum {MAX_PLAYOUTS}",
        )
    if budget.ms is not None and budget.ms > MAX_MS:
        raise BotSpecError(
            "bot_budget_too_large", f"mcts ms {budget.ms} is over the server maximum {MAX_MS}"
        )
    return budget


def mcts_bot(game: Game[Any, Any], budget: Budget) -> Bot:
    """`greedy` rollouts use the game's `rollout_bot` when it has one (a faster greedy) and its
    `greedy` bot otherwise; the root's first move is always `greedy`'s."""
    if budget.rollout == "random":
        prior: Bot = random_bot
        policy: Bot = random_bot
    else:
        prior = game.bots[budget.rollout]
        policy = game.rollout_bot or prior

    def mcts(game: Game[Any, Any], info: SeatInfo, rng: random.Random) -> Any:
        return search(game, info, rng, budget, policy, prior)

    return mcts


def resolve_bot(game: Game[Any, Any], spec: str) -> Bot:
    """The bot a spec names for `game`, or BotSpecError."""
    if spec == "random":
        return random_bot
    if spec in game.bots:
        return game.bots[spec]
    name, _, _ = spec.partition(":")
    if name == MCTS and searchable(game):
        return mcts_bot(game, parse_budget(game, spec))
    raise BotSpecError(
        "unknown_bot", f"{game.name} has no bot {spec!r} (has: {', '.join(bot_names(game))})"
    )

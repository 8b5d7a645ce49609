"""Information-set Monte Carlo tree search, for every game (single-observer ISMCTS: Cowling,
Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).

Each playout takes a determinization drawn from the seat's information (`SeatInfo.sample`,
that is `game.sample_hidden`: the bot never holds the true state), walks one tree shared by
all determinizations with UCT, adds one node, and plays on with the rollout policy: `random`,
or `greedy` (the game's `rollout_bot` when it supplies one, a faster greedy; else its `greedy`
bot). Tree nodes are keyed by (seat, command), so one node gathers every determinization in
which that move was legal; selection counts how often a child was *available* instead of how
often its parent was visited (the ISMCTS form of UCB1).

Playouts are few (a rollout costs milliseconds a move in these rules), so the search spends
them where they tell most:

- **Cut rollouts.** A game that offers an `Evaluation` (each seat's estimated final score)
  stops each rollout `horizon` moves after the tree and scores the position by each seat's
  estimated margin over the best other seat. Playing to the end costs a hundred moves or more
  and mostly measures the noise of the far future; the horizon (the game's, or `h=` in the
  bot spec) covers the consequences of a move: the other seats' answers to a role, the
  production after a placement.
- **Common random numbers.** The playouts share a few determinizations (the square root of
  the budget), each with its own chance stream for the rules and the bots, so two moves tried
  in the same world meet the same hidden draws and dice: their difference is the moves', not
  the luck's.
- **Greedy first.** A node may have `1 + sqrt(visits / 2)` children (progressive widening).
  At the root the first is the `prior`'s choice (the game's `greedy` bot), then the moves that
  look best one step ahead (by the estimated margin); deeper, the rollout policy's move first.
  So the greedy move stands unless an alternative earns more visits: the search verifies
  greedy's best candidates with the other seats' answers instead of wandering among them all.
  A game may bound the moves tried (`Evaluation.candidates`): Santa Maria's free actions,
  whose worth lies in the main action they prepare, win on noise alone when tried alone.

A search is deterministic for a given `rng` and a playout budget. A time budget (`ms`) stops
on the clock, so it is not reproducible: the recorded command, not the bot, is what replays
and audits re-run (service/audit.py re-executes recorded commands through `decide`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from domain.contract import Bot, Evaluation, Game, Result, SeatInfo

WIN_WEIGHT = 0.4  # reward: winning (shared when tied) ...
MARGIN_SCALE = 8.0  # ... and the score margin over the best other seat, squashed
EXPLORATION = 0.7  # UCB1 constant for rewards in [0, 1]
MAX_ROLLOUT_MOVES = 5_000  # a safety net: every game ends far sooner


Rollout = Literal["greedy", "random"]  # the rollout policy: the game's greedy, or uniform


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """What one decision may spend: `playouts` at most, and `ms` milliseconds at most when
    set (not reproducible: see the module docstring). A rollout stops after `horizon` moves
    and scores the position with the game's `Evaluation` (None: play to the end)."""

    playouts: int
    ms: int | None = None
    rollout: Rollout = "greedy"
    horizon: int | None = None


class _Node:
    __slots__ = ("avail", "children", "order", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[bytes, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.order: dict[bytes, float] = {}  # a move's rank when it is expanded (low first)


def rewards(result: Result) -> list[float]:
    """Each seat's reward in [0, 1]: its share of the win, blended with its score margin over
    the best other seat (a margin gives a few playouts a less noisy signal than wins alone)."""
    winners = result.winners
    margins = _margins(result.scores)
    return [
        WIN_WEIGHT * (1.0 / len(winners) if s in winners else 0.0) + (1 - WIN_WEIGHT) * m
        for s, m in enumerate(margins)
    ]


def estimated_rewards(estimates: list[float]) -> list[float]:
    """Each seat's reward in [0, 1] for a game not over: its estimated margin over the best
    other seat, squashed like the margin of a finished game."""
    return _margins(estimates)


def _margins(scores: list[float] | list[int]) -> list[float]:
    n = len(scores)
    out = []
    for s in range(n):
        best_other = max((scores[o] for o in range(n) if o != s), default=0)
        margin = (scores[s] - best_other) / MARGIN_SCALE
        out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, margin)))))
    return out


def _key(seat: int, command: Any) -> bytes:
    return msgspec.json.encode([seat, command])


def _width(visits: int) -> int:
    """How many children a node visited `visits` times may have (progressive widening): the
    policy's move alone at first, a second after 2 visits, a third after 8, ..."""
    return 1 + math.isqrt(visits // 2)


def search(
    game: Game[Any, Any],
    info: SeatInfo,
    rng: random.Random,
    budget: Budget,
    policy: Bot,
    prior: Bot | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Any:
    """The command ISMCTS chooses for `info.seat` within `budget`, with `policy` as the
    rollout policy and `prior` (default: `policy`) choosing each node's first child."""
    first_choice = policy if prior is None else prior
    legal = info.legal
    if len(legal) == 1:
        return legal[0]
    evaluation = game.evaluation
    if evaluation is not None and evaluation.settled is not None and evaluation.settled(legal):
        return first_choice(game, info, rng)
    root = _Node()
    worlds: list[tuple[Any, int]] = []  # determinizations, each with its chance seed
    count = max(1, math.isqrt(budget.playouts))
    deadline = None if budget.ms is None else clock() + budget.ms / 1000
    done = 0
    while done < budget.playouts:
        if deadline is not None and done > 0 and clock() >= deadline:
            break
        if len(worlds) < count:
            worlds.append((info.sample(rng), rng.getrandbits(64)))
        world, seed = worlds[done % count]
        if done == 0 and evaluation is not None:
            root.order = _one_ply(game, world, info.seat, legal, random.Random(seed), evaluation)
        state, chance = game.clone(world), random.Random(seed)
        _playout(game, state, root, rng, chance, policy, first_choice, budget)
        root.visits += 1
        done += 1
    # the most visited move; on a tie the rollout policy's own move (expanded first), then
    # the better mean
    first = next(iter(root.children), None)
    best, best_rank = legal[0], (-1, False, 0.0)
    for command in legal:
        key = _key(info.seat, command)
        child = root.children.get(key)
        if child is None or child.visits == 0:
            continue
        rank = (child.visits, key == first, child.total / child.visits)
        if rank > best_rank:
            best, best_rank = command, rank
    return best


def _one_ply(
    game: Game[Any, Any],
    state: Any,
    seat: int,
    legal: list[Any],
    rng: random.Random,
    evaluation: Evaluation,
) -> dict[bytes, float]:
    """Each move's rank at the root: minus the seat's estimated reward right after it, so the
    tree tries the moves that look best one step ahead right after the prior's own move."""
    order = {}
    for command in legal:
        after = game.clone(state)
        for event in game.decide(after, seat, command, rng):
            after = game.evolve(after, event)
        outcome = game.result(after)
        reward = (
            rewards(outcome)
            if outcome is not None
            else estimated_rewards(evaluation.estimate(after))
        )
        order[_key(seat, command)] = rng.random() * 1e-6 - reward[seat]
    return order


def _playout(
    game: Game[Any, Any],
    state: Any,
    root: _Node,
    rng: random.Random,
    chance: random.Random,
    policy: Bot,
    prior: Bot,
    budget: Budget,
) -> None:
    """One playout in a determinization: `rng` picks among untried moves, `chance` draws
    everything inside the world (the rules' dice and the bots' choices), so the playouts of
    one world share their chance outcomes whichever move they try (common random numbers)."""
    evaluation = game.evaluation
    candidates = None if evaluation is None else evaluation.candidates
    path: list[tuple[_Node, int]] = []
    node = root
    expanded = False
    while not expanded and game.result(state) is None:
        seat = game.awaiting(state)[0]
        moves = game.legal_commands(state, seat)
        keys = [_key(seat, m) for m in moves]
        present: list[tuple[_Node, Any]] = []
        untried: list[tuple[bytes, Any]] = []
        for key, move in zip(keys, moves, strict=True):
            child = node.children.get(key)
            if child is None:
                untried.append((key, move))
            else:
                child.avail += 1
                present.append((child, move))
        widen = len(node.children) < _width(node.visits)
        if candidates is not None and untried and widen:
            allowed = {_key(seat, m) for m in candidates(state, seat, moves)}
            untried = [item for item in untried if item[0] in allowed]
        if not present or (untried and widen):
            if not node.children or not untried:  # at the root the prior's, deeper the policy's
                first = prior if node is root else policy
                chosen = first(game, SeatInfo.within(game, state, seat), chance)
                key = _key(seat, chosen)
            elif node.order:
                key, chosen = min(untried, key=lambda item: node.order[item[0]])
            else:
                key, chosen = untried[rng.randrange(len(untried))]
            child = _Node()
            child.avail = 1
            node.children[key] = child
            expanded = True
        else:
            child, chosen = present[0]
            best = -1.0
            for candidate, move in present:
                if candidate.visits == 0:  # pragma: no cover - only after an endless rollout
                    score = math.inf
                else:
                    mean = candidate.total / candidate.visits
                    explore = math.sqrt(math.log(candidate.avail) / candidate.visits)
                    score = mean + EXPLORATION * explore
                if score > best:
                    child, chosen, best = candidate, move, score
        path.append((child, seat))
        for event in game.decide(state, seat, chosen, chance):
            state = game.evolve(state, event)
        node = child
    truncated = budget.horizon is not None and evaluation is not None
    moves_left = budget.horizon if truncated and budget.horizon is not None else MAX_ROLLOUT_MOVES
    while game.result(state) is None and moves_left > 0:
        seat = game.awaiting(state)[0]
        command = policy(game, SeatInfo.within(game, state, seat), chance)
        for event in game.decide(state, seat, command, chance):
            state = game.evolve(state, event)
        moves_left -= 1
    result = game.result(state)
    if result is not None:
        reward = rewards(result)
    elif truncated and evaluation is not None:
        reward = estimated_rewards(evaluation.estimate(state))
    else:  # pragma: no cover - no game lasts that long: nothing is learnt
        return
    for child, seat in path:
        child.visits += 1
        child.total += reward[seat]

"""Random bots play complete games for every player count: every listed command is accepted,
mutated ones are refused with a RuleError (never another exception), and the invariants
hold after every event."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.contract import RuleError, random_bot
from domain.plus_ultra import GAME
from domain.plus_ultra import commands as C
from domain.plus_ultra import data as D
from domain.plus_ultra.state import Options
from domain.simulate import play
from tests.plus_ultra.invariants import Tracker, check, check_settled
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

CONFIGS = {
    "2p": (2, Options()),
    "3p": (3, Options()),
    "4p": (4, Options()),
    "4p-two-commons-seats": (4, Options(common_actions_per_turn=2, initial_order="seats")),
    "3p-two-commons": (3, Options(common_actions_per_turn=2)),
}

# one instance of every command kind, for "wrong phase" probes
ALL_KINDS: list[Any] = [
    C.ReactivateTercios(accept=True),
    C.PickCharacter(character="king"),
    C.BuyBull(accept=True),
    C.CommitTercios(count=0),
    C.CharacterAction(character="king", action=1),
    C.PassCharacter(character="king"),
    C.BullCharacterAction(action=2),
    C.CommonAction(action="loan"),
    C.DiscardEstate(estate="wheat_fields"),
    C.EndRound(),
    C.ResolveNatives(method="decline"),
    C.ResolveColony(place_house=False),
    C.LevyResponse(pay=False),
    C.RaidResponse(choice="pay"),
]

PARAM_MUTATIONS: list[dict[str, Any]] = [
    {"row": 0},
    {"row": 8},
    {"row": -1},
    {"market_space": 5},
    {"market_space": 0},
    {"source": "church"},
    {"church_space": 5},
    {"church_space": 0},
    {"pay": 1},
    {"pay": 5},
    {"war_space": 7},
    {"tired": None},
    {"target": 9},
    {"target": -1},
    {"item": "gold"},
    {"colony": 0},
    {"colony": 8},
    {"method": "steal"},
    {"steps": 3},
    {"steps": 0},
]


def mutations(cmd: Any, n: int) -> list[Any]:
    out: list[Any] = []
    rep = msgspec.structs.replace
    if isinstance(cmd, (C.CharacterAction, C.BullCharacterAction, C.CommonAction)):
        for m in PARAM_MUTATIONS:
            out.append(rep(cmd, params=rep(cmd.params, **m)))
        out.append(rep(cmd, params=C.Params()))
    if isinstance(cmd, (C.CharacterAction, C.PassCharacter)):
        out.extend(rep(cmd, character=c) for c in (*D.CHARACTERS, "jester"))
    if isinstance(cmd, (C.CharacterAction, C.BullCharacterAction)):
        out.extend(rep(cmd, action=a) for a in (0, 1, 2, 3))
    if isinstance(cmd, C.CommonAction):
        out.append(rep(cmd, use_bull=not cmd.use_bull))
        out.extend(rep(cmd, action=a) for a in (*D.COMMON_ACTIONS, "banquet"))
    if isinstance(cmd, C.PickCharacter):
        out.extend(C.PickCharacter(character=c) for c in (*D.CHARACTERS, "jester"))
    if isinstance(cmd, C.CommitTercios):
        out.extend(C.CommitTercios(count=k) for k in (-1, 6, cmd.count + 1))
    if isinstance(cmd, C.DiscardEstate):
        out.extend(C.DiscardEstate(estate=e) for e in [*D.ESTATES, "nowhere"])
    if isinstance(cmd, C.ResolveNatives):
        out.extend(C.ResolveNatives(method=m) for m in ("bull", "pay", "decline", "steal"))
    if isinstance(cmd, C.RaidResponse):
        out.extend(C.RaidResponse(choice=c) for c in ("tire", "pay", "none"))
    return out


def fingerprint(state: Any) -> bytes:
    return msgspec.msgpack.encode(state)


def run_game(
    label: str,
    i: int,
    seed: bytes,
    n: int,
    options: Options,
    check_every: int = 4,
    bots: list[Any] | None = None,
) -> None:
    where = describe(label, i)
    tracker = Tracker()
    probe_rng = random.Random(seed)
    decisions = 0

    def on_event(state: Any, event: Any) -> None:
        errs = check(state, event, tracker)
        assert not errs, f"{where}: after {type(event).__name__}: {errs}"

    def on_decision(state: Any, seat: int, command: Any) -> None:
        nonlocal decisions
        decisions += 1
        errs = check_settled(state)
        assert not errs, f"{where}: {errs}"
        legal = GAME.legal_commands(state, seat)
        assert command in legal, where
        if decisions % check_every:
            return
        before = fingerprint(state)
        rng = random.Random(0)
        for cmd in legal:
            try:
                GAME.decide(state, seat, cmd, rng)
            except RuleError as exc:  # pragma: no cover - a failure message
                raise AssertionError(f"{where}: listed {cmd} refused: {exc!r}") from exc
        waiting = GAME.awaiting(state)
        probes: list[tuple[int, Any]] = []
        for other in range(n):  # out of turn
            if other not in waiting:
                probes.append((other, command))
        probes.extend((seat, k) for k in ALL_KINDS)  # wrong phase / wrong kind
        for cmd in probe_rng.sample(legal, min(3, len(legal))):
            probes.extend((seat, m) for m in mutations(cmd, n))
        for who, cmd in probes:
            if who == seat and cmd in legal:
                continue
            try:
                GAME.decide(state, who, cmd, rng)
            except RuleError as exc:
                assert exc.code.startswith("illegal_move."), where
            else:
                raise AssertionError(f"{where}: unlisted {cmd} from seat {who} accepted")
        assert fingerprint(state) == before, f"{where}: decide mutated the state"

    played = play(
        GAME, options, bots or [random_bot] * n, seed, on_decision=on_decision, on_event=on_event
    )
    assert played.result is not None, where
    assert not GAME.awaiting(played.state), where
    assert sorted(played.result.ranks) == list(range(1, n + 1)), where
    # I15: replaying the events rebuilds the same state
    state = GAME.initial(options, n)
    for ev in played.events:
        state = GAME.evolve(state, ev)
    assert state == played.state, f"{where}: replay differs"


@pytest.mark.parametrize("label", list(CONFIGS))
def test_random_games(label: str) -> None:
    n, options = CONFIGS[label]
    for i, seed in enumerate(game_seeds(f"plus-ultra/{label}")):
        run_game(label, i, seed, n, options)


def test_determinism() -> None:
    seed = game_seeds("plus-ultra/determinism", 1)[0]
    a = play(GAME, Options(), [random_bot] * 4, seed)
    b = play(GAME, Options(), [random_bot] * 4, seed)
    assert a.events == b.events, describe("plus-ultra/determinism", 0)


def test_greedy_games_keep_the_invariants() -> None:
    """Greedy bots reach situations random ones rarely do (Magellan completion, full Church)."""
    label = "plus-ultra/greedy-mix"
    seeds = game_seeds(label, max(2, len(game_seeds(label)) // 6))
    for i, seed in enumerate(seeds):
        n = 2 + i % 3
        bots = [GAME.bots["greedy"] if s % 2 == 0 else random_bot for s in range(n)]
        run_game(label, i, seed, n, Options(), check_every=6, bots=bots)

"""Property tests: random bots play complete games for every player count and board option.

On each decision: every listed command is accepted by `decide` (sampled decisions), random
and mutated commands are accepted exactly when listed and otherwise refused with RuleError,
and `decide` never mutates its state. After every event: the invariants ."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.contract import RuleError, random_bot, rank
from domain.randomness import rng_for
from domain.santa_maria import GAME, data
from domain.santa_maria import commands as cmd
from domain.santa_maria import events as ev
from domain.santa_maria.bots import greedy
from domain.santa_maria.state import SantaMariaOptions
from domain.simulate import play
from tests.santa_maria.invariants import InvariantChecker
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

CONFIGS = [(n, mode) for n in (2, 3, 4) for mode in ("random", "draft")]
ENC = msgspec.json.Encoder()


def key(c: Any) -> bytes:
    """Command identity: gold_for is a multiset."""
    if isinstance(c, (cmd.Expand, cmd.Ship)) and c.gold_for:
        c = msgspec.structs.replace(
            c, gold_for=sorted(c.gold_for, key=lambda k: data.SORT_ORDER.get(k, 9))
        )
    return ENC.encode(c)


KINDS = ["wood", "grain", "sugar", "gem", "gold", "coins", "points", "coal"]


def probes(state: Any, seat: int, legal: list[Any], r: random.Random) -> list[Any]:
    """Random commands of every kind, plus mutations of listed ones."""
    g = lambda: r.randint(-1, 7)  # noqa: E731
    pick = lambda xs: r.choice(xs)  # noqa: E731
    tiles = [*list(data.TILES), "XX99"]
    out: list[Any] = [
        cmd.ChooseColony(board=pick([*list(data.BOARD_NAMES), "atlantis"])),
        cmd.Expand(
            tile=pick(tiles),
            cells=[[g(), g()] for _ in range(r.randint(1, 4))],
            gold_for=[pick(KINDS) for _ in range(r.randint(0, 2))],
        ),
        cmd.ActivateBuilding(row=g(), col=g()),
        cmd.ActivateDie(die="white", face=g(), value=g()),
        cmd.ActivateDie(die="blue", index=r.randint(-1, 4), value=g()),
        cmd.ActivateDie(die=pick(["white", "blue", "red"]), face=g(), index=g(), value=g()),
        cmd.Retire(space=f"RS{r.randint(0, 6)}"),
        cmd.Sell(resource=pick(KINDS), count=r.randint(-1, 4)),
        cmd.Buy(resource=pick(KINDS), count=r.randint(-1, 4)),
        cmd.Alchemy(pay=pick(KINDS), gain=pick(KINDS)),
        cmd.Trade(pay=pick(KINDS), gain=pick(KINDS)),
        cmd.Ship(
            dock=r.randint(0, 5),
            gold_for=[pick(KINDS[:4]) for _ in range(r.randint(0, 3))],
            coins_for=pick([None, None, *KINDS[:4]]),
        ),
        cmd.Religion(extra=r.randint(-1, 3), gold=r.randint(-1, 3)),
        cmd.Conquistador(extra=r.randint(-1, 2)),
        cmd.Recruit(space=pick([*list(data.MONK_SPACES), "bishop-9"])),
        cmd.PlaceRoad(row=g(), col=g()),
        cmd.Decline(),
        cmd.EndTurn(),
    ]
    for c in r.sample(legal, min(6, len(legal))):
        if isinstance(c, cmd.Expand):
            out.append(msgspec.structs.replace(c, tile=pick(tiles)))
            cells = [list(x) for x in c.cells]
            cells[r.randrange(len(cells))][r.randrange(2)] += pick([-1, 1])
            out.append(msgspec.structs.replace(c, cells=cells))
            out.append(msgspec.structs.replace(c, cells=cells[::-1]))
            out.append(msgspec.structs.replace(c, gold_for=[*c.gold_for, "wood"]))
        elif isinstance(c, cmd.ActivateBuilding):
            out.append(cmd.ActivateBuilding(row=c.row, col=r.randint(1, 6)))
        elif isinstance(c, cmd.ActivateDie):
            out.append(msgspec.structs.replace(c, value=r.randint(1, 6)))
            if c.face is not None:
                out.append(msgspec.structs.replace(c, face=r.randint(1, 6)))
        elif isinstance(c, (cmd.Sell, cmd.Buy)):
            out.append(msgspec.structs.replace(c, count=c.count + 1))
        elif isinstance(c, cmd.Ship):
            out.append(msgspec.structs.replace(c, dock=r.randint(1, 4)))
            out.append(msgspec.structs.replace(c, gold_for=[*c.gold_for, pick(KINDS[:4])]))
        elif isinstance(c, cmd.Religion):
            out.append(cmd.Religion(extra=c.extra + 1, gold=c.gold))
            out.append(cmd.Religion(extra=c.extra, gold=c.gold + 1))
        elif isinstance(c, cmd.Recruit):
            out.append(cmd.Recruit(space=pick(list(data.MONK_SPACES))))
        elif isinstance(c, cmd.Trade):
            out.append(cmd.Trade(pay=pick(KINDS), gain=c.gain))
    return out


def check_game(
    seats: int, options: SantaMariaOptions, seed: bytes, msg: str, bots: list[Any]
) -> None:
    """Play one game with the checks of the module docstring."""
    checker = InvariantChecker()
    r = random.Random(seed)
    commands: list[tuple[int, Any]] = []
    decisions = 0

    def on_decision(state: Any, seat: int, command: Any) -> None:
        nonlocal decisions
        decisions += 1
        commands.append((seat, command))
        assert GAME.awaiting(state) == [seat], msg
        rng1 = random.Random(1)
        watch = decisions % 5 == 0
        before = ENC.encode(state) if watch else b""
        legal = GAME.legal_commands(state, seat)
        assert legal, msg
        keys = {key(c) for c in legal}
        assert len(keys) == len(legal), f"{msg}: duplicate legal commands"
        assert key(command) in keys, msg
        if not isinstance(state.pending, type(None)):
            assert cmd.EndTurn() not in legal, msg
        full = len(legal) <= 12 or decisions % 16 == 0
        sample = legal if full else r.sample(legal, 12)
        for c in sample:
            GAME.decide(state, seat, c, rng1)
        for other in range(seats):
            if other != seat:
                assert not GAME.legal_commands(state, other), msg
                with pytest.raises(RuleError) as err:
                    GAME.decide(state, other, command, rng1)
                assert err.value.code == "illegal_move.not_your_turn", msg
        for c in probes(state, seat, legal, r) if decisions % 2 == 0 else ():
            if key(c) in keys:
                GAME.decide(state, seat, c, rng1)
            else:
                try:
                    GAME.decide(state, seat, c, rng1)
                except RuleError as e:
                    assert e.code.startswith("illegal_move."), msg
                else:
                    raise AssertionError(f"{msg}: unlisted command accepted: {c}")
        if watch:
            assert ENC.encode(state) == before, f"{msg}: decide mutated the state"

    def on_event(state: Any, event: Any) -> None:
        checker(state, event, msg)

    played = play(
        GAME, options, bots, seed, on_decision=on_decision, on_event=on_event, per_version=True
    )
    res = played.result
    assert res is not None, msg
    assert GAME.awaiting(played.state) == [], msg
    assert not GAME.legal_commands(played.state, 0), msg
    for seat in range(seats):
        with pytest.raises(RuleError):
            GAME.decide(played.state, seat, cmd.EndTurn(), random.Random(1))
    # Scoring: total = points + ships + scholars + bishops; ranks by (total, coins, res).
    for seat, _p in enumerate(played.state.players):
        d = res.details["players"][seat]
        assert d["total"] == d["points"] + d["ships"] + d["scholars"] + d["bishops"], msg
        assert res.scores[seat] == d["total"], msg
    final = [e for e in played.events if isinstance(e, ev.GameEnded)]
    assert len(final) == 1 and final[0].scores == res.scores, msg
    # Replay: folding the events reproduces the state ...
    folded = GAME.initial(options, seats)
    for e in played.events:
        folded = GAME.evolve(folded, e)
    assert ENC.encode(folded) == ENC.encode(played.state), msg
    # ... and re-deciding the recorded commands reproduces the events.
    state = GAME.initial(options, seats)
    events = GAME.setup(options, seats, rng_for(seed, 0))
    for e in events:
        state = GAME.evolve(state, e)
    for seat, c in commands:
        new = GAME.decide(state, seat, c, rng_for(seed, len(events)))
        for e in new:
            state = GAME.evolve(state, e)
        events.extend(new)
    assert events == played.events, msg
    # Event (de)serialisation round-trips through the tagged union.
    dec = msgspec.json.Decoder(GAME.event_type)
    assert [dec.decode(ENC.encode(e)) for e in played.events] == played.events, msg
    keys = [(res.scores[x], *res.tiebreak[x]) for x in range(seats)]
    assert res.ranks == rank(keys), msg
    p0 = played.state.players[0]
    assert res.tiebreak[0] == [p0.coins, sum(p0.res.values())], msg


@pytest.mark.parametrize("seats,mode", CONFIGS)
def test_random_games(seats: int, mode: str) -> None:
    label = f"santa-maria/{seats}p/{mode}"
    options = SantaMariaOptions(colony_boards=mode)
    for i, seed in enumerate(game_seeds(label)):
        check_game(seats, options, seed, describe(label, i), [random_bot] * seats)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_greedy_games(seats: int) -> None:
    """The greedy bot only ever picks listed commands and its games end normally."""
    label = f"santa-maria/greedy/{seats}p"
    options = SantaMariaOptions()
    for i, seed in enumerate(game_seeds(label, 2)):
        bots: list[Any] = [greedy] + [random_bot] * (seats - 1)
        check_game(seats, options, seed, describe(label, i), bots)

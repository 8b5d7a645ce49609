"""Property tests: random bots play whole games for every player count and favour variant.

On sampled decisions every listed command must be accepted by `decide` (on the unchanged
state), a broad universe of other commands (other targets, tiles, cubes, rows, deltas, the
wrong command kind, another seat) must be refused with a RuleError and nothing else, and the
invariants hold after every event. Replaying the events reproduces the final state.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.caylus import GAME, CaylusOptions, data
from domain.caylus import commands as cmd
from domain.contract import RuleError, SeatInfo, random_bot
from domain.simulate import play
from tests.caylus.invariants import InvariantChecker
from tests.support.sampling import (
    describe,
    game_seeds,
    games_per_config,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

CONFIGS = [
    (n, fav, jeweller)
    for n in (2, 3, 4, 5)
    for fav, jeweller in (("full", False), ("simplified", True))
]

_TARGETS: list[Any] = [0, 1, 5, 7, 8, 9, 12, 16, 20, 28, 29, -3, *list(data.PLACE_TARGETS_NAMED)]
_TARGETS += ["bogus", "none"]


def universe(st: Any, seat: int) -> list[Any]:
    """Well-typed commands of every kind, legal or not (the mutation pool)."""
    out: list[Any] = [cmd.Pass(), cmd.CastleDone()]
    out += [cmd.PlaceWorker(target=t) for t in _TARGETS]
    out += [cmd.GateMove(target=t) for t in _TARGETS]
    for d in range(-5, 6):
        out += [cmd.GuildMove(delta=d), cmd.ProvostMove(delta=d)]
    out += [cmd.Joust(accept=b) for b in (True, False)] + [
        cmd.InnChoice(stay=b) for b in (True, False)
    ]
    out += [cmd.Produce(option=o) for o in ("F", "W", "S", "C", "G", "FFC", "WWF", "SSC", "Q")]
    out += [cmd.OwnerBonus(cube=c) for c in (*data.CUBES, "Q")]
    for t in (
        "none",
        "bogus",
        "wood_peddler",
        "mason",
        "lawyer",
        "wood_farm_food",
        "church",
        "architect",
        "park",
        "jeweller",
        "statue",
    ):
        out += [cmd.Build(tile=t), cmd.Build(tile=t, any_cube="G"), cmd.Build(tile=t, any_cube="F")]
    homes = [s for s in data.ROAD_SPACES if st.tiles[s] == "residence"]
    for t in ("none", "statue", "granary", "cathedral", "bogus", "mason"):
        for r in [0, 3, 29, *homes]:
            out.append(cmd.BuildPrestige(tile=t, residence_space=r))
    out += [cmd.Transform(target_space=s) for s in (0, 1, 3, 6, 7, 8, 11, 13, 16, 29, -1)]
    out += [cmd.Sell(cube=c) for c in (*data.CUBES, "none", "Q")]
    out += [cmd.Buy(cubes=c) for c in ([], ["F"], ["G"], ["W", "S"], ["C", "C"], ["F", "F", "F"])]
    out += [cmd.Exchange(option=o) for o in ("none", "first", "second", "third")]
    out += [cmd.Exchange(option="first", cubes=c) for c in (["F", "W"], ["G", "F"], ["C", "C"])]
    out += [cmd.Exchange(option="second", cubes=["F", "W", "S", "C"])]
    out += [cmd.CastleBatch(batch=b) for b in (*data.BATCHES, "FFF", "WSC", "")]
    for row in ("a", "b", "c", "d", "e"):
        for col in range(-1, 7):
            out.append(cmd.Favour(row=row, column=col))
    out += [cmd.Favour(row="c", column=2, cube=c) for c in ("W", "S", "G")]
    out += [cmd.Favour(row="c", column=4, give=g, take=["S", "C"]) for g in ("G", "F", "Q")]
    out += [cmd.Favour(row="c", column=4, give="F", take=["G", "G"])]
    out += [cmd.Favour(row="d", column=2, tile=t) for t in ("mason", "wood_peddler", "park")]
    out += [cmd.Favour(row="d", column=3, tile=t) for t in ("church", "park", "mason")]
    out += [cmd.Favour(row="d", column=4, target_space=s) for s in (1, 3, 7, 13, 0)]
    out += [cmd.Favour(row="d", column=5, tile="statue", residence_space=r) for r in [3, *homes]]
    return out


def _check_decision(st: Any, seat: int, legal: list[Any], rng: random.Random, why: str) -> None:
    before = msgspec.to_builtins(st)
    n = st.seats
    # every listed command is accepted (sampled when the list is long)
    sample = legal if len(legal) <= 12 else rng.sample(legal, 12)
    for c in sample:
        try:
            GAME.decide(st, seat, c, rng)
        except RuleError as err:  # pragma: no cover - failure path
            raise AssertionError(f"listed {c} refused: {err!r} {why}") from None
    # another seat is refused
    for other in range(-1, n + 1):
        if other != seat:
            with pytest.raises(RuleError) as info:
                GAME.decide(st, other, legal[0], rng)
            assert info.value.code == "illegal_move.not_your_turn", why
    # every command of the mutation pool not listed is refused with a RuleError only
    for c in universe(st, seat):
        if c in legal:
            continue
        try:
            GAME.decide(st, seat, c, rng)
        except RuleError as err:
            assert err.code.startswith("illegal_move."), why
        else:
            raise AssertionError(f"unlisted {c} accepted {why}")
    assert msgspec.to_builtins(st) == before, f"decide mutated the state {why}"


def eager_bot(game: Any, info: SeatInfo, rng: random.Random) -> Any:
    """Random, but usually takes an effect rather than passing or declining (explores the deep
    favour columns, builds, transformations and prestige tiles that random play rarely hits)."""
    legal = info.legal
    active = [c for c in legal if not _is_passive(c)]
    if active and rng.random() < 0.85:
        return rng.choice(active)
    return rng.choice(legal)


def _is_passive(c: Any) -> bool:
    return c in _PASSIVE or (isinstance(c, cmd.Favour) and c.column == 0)


_PASSIVE = [
    cmd.Pass(),
    cmd.ProvostMove(delta=0),
    cmd.GuildMove(delta=0),
    cmd.GateMove(target="none"),
    cmd.Joust(accept=False),
    cmd.Build(tile="none"),
    cmd.BuildPrestige(tile="none"),
    cmd.Transform(target_space=0),
    cmd.Sell(cube="none"),
    cmd.Buy(cubes=[]),
    cmd.Exchange(option="none"),
    cmd.CastleDone(),
]


def _options(favours: str, jeweller: bool) -> CaylusOptions:
    return CaylusOptions(favours=favours, jeweller=jeweller, lawyer_prestige=3 if jeweller else 4)


def run_games(
    label: str,
    seats: int,
    options: CaylusOptions,
    bots: list[Any],
    count: int | None,
    check_rate: float,
) -> None:
    for i, seed in enumerate(game_seeds(label, count)):
        why = describe(label, i)
        checker = InvariantChecker(seats, options, why)
        rng = random.Random(seed)

        def on_decision(
            st: Any, seat: int, command: Any, why: str = why, rng: random.Random = rng
        ) -> None:
            legal = GAME.legal_commands(st, seat)
            assert command in legal, why
            assert len(legal) >= 2, f"single-option decision left pending {why}"
            assert GAME.awaiting(st) == [seat], why
            for other in range(seats):
                if other != seat:
                    assert GAME.legal_commands(st, other) == [], why
            if rng.random() < check_rate:
                _check_decision(st, seat, legal, rng, why)

        played = play(GAME, options, bots, seed, on_decision=on_decision, on_event=checker.check)
        st = played.state
        checker.check_final(st)
        assert GAME.awaiting(st) == [] and GAME.legal_commands(st, 0) == [], why
        res = played.result
        assert res is not None and res.scores == [p.pp for p in st.players], why
        assert min(res.ranks) == 1, why
        # replay: folding the recorded events reproduces the state (no randomness in evolve)
        replay = GAME.initial(options, seats)
        for e in played.events:
            replay = GAME.evolve(replay, e)
        assert msgspec.to_builtins(replay) == msgspec.to_builtins(st), why
        # events survive a JSON round trip through the tagged union
        raw = msgspec.json.encode(played.events)
        back = msgspec.json.decode(raw, type=list[GAME.event_type])
        assert back == played.events, why
        with pytest.raises(RuleError):
            GAME.decide(st, 0, cmd.Pass(), rng)


@pytest.mark.parametrize("seats,favours,jeweller", CONFIGS)
def test_random_games(seats: int, favours: str, jeweller: bool) -> None:
    label = f"caylus-{seats}p-{favours}{'-jeweller' if jeweller else ''}"
    run_games(label, seats, _options(favours, jeweller), [random_bot] * seats, None, 0.04)


@pytest.mark.parametrize("seats,favours,jeweller", CONFIGS)
def test_mixed_bot_games(seats: int, favours: str, jeweller: bool) -> None:
    """Eager and greedy bots reach the deep favour columns, prestige tiles and lawyers."""
    label = f"caylus-mixed-{seats}p-{favours}{'-jeweller' if jeweller else ''}"
    bots: list[Any] = [eager_bot, GAME.bots["greedy"], eager_bot, random_bot, eager_bot][:seats]
    run_games(
        label, seats, _options(favours, jeweller), bots, max(1, games_per_config() // 4), 0.05
    )

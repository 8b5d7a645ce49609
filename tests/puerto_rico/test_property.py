# ruff: noqa: B023  (the callbacks run synchronously inside play, within the loop body)
"""Property test: random bots play complete games for 2-5 players, with and without the
expansion. Every listed command is accepted; mutated commands are refused with a RuleError
(or, if accepted, were listed); the invariants hold after every event; replay reproduces
the final state."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.contract import RuleError, random_bot
from domain.puerto_rico import GAME
from domain.puerto_rico import commands as C
from domain.puerto_rico import events as E
from domain.puerto_rico.data import BUILDING_ORDER, GOODS
from domain.simulate import play
from tests.puerto_rico.invariants import check, check_must_fill, final_scores
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

CONFIGS = [
    (n, exp, auto) for n in (2, 3, 4, 5) for exp in ("none", "new-buildings") for auto in (True,)
] + [(3, "new-buildings", False), (2, "none", False)]

PROTOS: list[Any] = [
    C.DraftBuilding(building="statue"),
    C.ChooseRole(role="mayor"),
    C.HaciendaDraw(),
    C.HaciendaPlace(as_forest=True),
    C.Settle(source="face_up", kind="corn"),
    C.Settle(source="quarry"),
    C.Settle(source="forest"),
    C.Settle(source="moon"),
    C.Pass(),
    C.PlaceColonists(layout={}),
    C.PlaceColonists(layout={"corn": -1}, privilege=-3),
    C.Build(building="small_market"),
    C.Build(building="castle"),
    C.Build(building="harbor", black_market=C.BlackMarket(vp=True)),
    C.CraftsmanBonus(goods=["corn"]),
    C.CraftsmanBonus(goods=["gold", "corn", "corn"]),
    C.Sell(good="coffee"),
    C.Sell(good="corn", venue="trading_post"),
    C.Sell(good="x"),
    C.Load(good="corn", ship=0),
    C.Load(good="corn", ship=-1),
    C.Load(good="corn", ship=9),
    C.ShipWharf(good="corn"),
    C.ShipSmallWharf(goods={"corn": 1}),
    C.ShipSmallWharf(goods={"corn": 0}),
    C.Store(keep={}),
    C.Store(keep={"sugar": 99}),
    C.MoveGuest(to="corn"),
    C.MoveGuest(to="san_juan"),
    C.MoveGuest(to="guest_house"),
    C.GuestsDone(),
]


def mutations(cmd: Any) -> list[Any]:
    """Commands close to a legal one: other building, good, ship, target, source..."""
    out: list[Any] = []
    if isinstance(cmd, C.Build):
        out += [msgspec.structs.replace(cmd, building=b) for b in BUILDING_ORDER]
        out.append(msgspec.structs.replace(cmd, university=not cmd.university))
        out.append(
            msgspec.structs.replace(
                cmd, black_market=C.BlackMarket(colonist_from="black_market", good="corn", vp=True)
            )
        )
        out.append(msgspec.structs.replace(cmd, black_market=C.BlackMarket(colonist_from="moon")))
    elif isinstance(cmd, C.Sell):
        out += [C.Sell(good=g, venue=v) for g in GOODS for v in ("trading_house", "trading_post")]
    elif isinstance(cmd, C.Load):
        out += [C.Load(good=g, ship=i) for g in GOODS for i in range(-1, 4)]
    elif isinstance(cmd, C.ShipWharf):
        out += [C.ShipWharf(good=g) for g in GOODS]
    elif isinstance(cmd, C.ShipSmallWharf):
        out += [C.ShipSmallWharf(goods={g: 1}) for g in GOODS]
        out.append(C.ShipSmallWharf(goods={k: v + 1 for k, v in cmd.goods.items()}))
    elif isinstance(cmd, C.Settle):
        out += [C.Settle(source="face_up", kind=g, hospice=h) for g in GOODS for h in (0, 1)]
        out += [C.Settle(source=s, hospice=h) for s in ("quarry", "forest") for h in (0, 1)]
        out.append(C.Settle(source="quarry", kind="corn"))
    elif isinstance(cmd, C.PlaceColonists):
        out.append(C.PlaceColonists(layout=cmd.layout, privilege=cmd.privilege + 1))
        for k in cmd.layout:
            out.append(
                C.PlaceColonists(
                    layout={**cmd.layout, k: cmd.layout[k] + 1}, privilege=cmd.privilege
                )
            )
            out.append(
                C.PlaceColonists(
                    layout={**cmd.layout, k: cmd.layout[k] - 1}, privilege=cmd.privilege
                )
            )
        out.append(C.PlaceColonists(layout={**cmd.layout, "san_juan": 1}))
    elif isinstance(cmd, C.Store):
        for g in GOODS:
            out.append(C.Store(keep={**cmd.keep, g: cmd.keep.get(g, 0) + 1}))
            if g in cmd.keep:
                out.append(C.Store(keep={**cmd.keep, g: cmd.keep[g] - 1}))
    elif isinstance(cmd, C.CraftsmanBonus):
        out += [C.CraftsmanBonus(goods=[g]) for g in GOODS]
        out += [C.CraftsmanBonus(goods=[g, h]) for g in GOODS for h in GOODS]
    elif isinstance(cmd, C.ChooseRole):
        out += [C.ChooseRole(role=r) for r in ("settler", "prospector_2", "governor")]
    elif isinstance(cmd, C.DraftBuilding):
        out += [C.DraftBuilding(building=b) for b in BUILDING_ORDER]
    elif isinstance(cmd, C.MoveGuest):
        targets = ("corn", "quarry", "statue", "san_juan", *BUILDING_ORDER)
        out += [C.MoveGuest(to=t) for t in targets]
    return out


def _refused_or_listed(state: Any, seat: int, cmd: Any, listed: Any, where: str) -> None:
    try:
        GAME.decide(state, seat, cmd, random.Random(0))
    except RuleError:
        return
    assert cmd in listed, f"accepted but not listed: {cmd} {where}"


def _encode(state: Any) -> bytes:
    return msgspec.msgpack.encode(state)


@pytest.mark.parametrize("n,expansion,auto", CONFIGS)
def test_random_games(n: int, expansion: str, auto: bool) -> None:
    label = f"puerto-rico/{n}p/{expansion}/{'auto' if auto else 'manual'}"
    options = GAME.options_type(expansion=expansion, auto_forced=auto)
    seeds = game_seeds(label)
    if not auto:  # the manual configurations replay the same rules with more decisions
        seeds = seeds[: max(1, len(seeds) // 3)]
    for index, seed in enumerate(seeds):
        where = describe(label, index)
        sampler = random.Random(seed)
        last_place: list[int] = []

        def on_decision(state: Any, seat: int, command: Any) -> None:
            listed = GAME.legal_commands(state, seat)
            assert command in listed, where
            if sampler.random() > 0.06:
                return
            before = _encode(state)
            cmds = (
                list(listed)
                if len(listed) <= 40
                else [listed[sampler.randrange(len(listed))] for _ in range(40)]
            )
            for cmd in cmds:
                try:
                    GAME.decide(state, seat, cmd, random.Random(1))
                except RuleError as exc:
                    raise AssertionError(f"listed {cmd} refused: {exc!r} {where}") from exc
            for cmd in mutations(command) + PROTOS:
                _refused_or_listed(state, seat, cmd, listed, where)
            for other in range(state.n):
                if other not in GAME.awaiting(state):
                    assert GAME.legal_commands(state, other) == [], where
                    with pytest.raises(RuleError):
                        GAME.decide(state, other, command, random.Random(0))
            assert _encode(state) == before, f"decide mutated the state {where}"

        def on_event(state: Any, event: Any) -> None:
            check(state, where)
            if isinstance(event, E.RoleChosen) and event.role == "captain":
                loads = zip(state.ship_load, state.ship_capacity, strict=True)
                assert all(load < cap for load, cap in loads), where
            if isinstance(event, E.ColonistsPlaced):
                last_place.append(event.seat)
                check_must_fill(state, event.seat, where)

        played = play(
            GAME, options, [random_bot] * n, seed, on_decision=on_decision, on_event=on_event
        )
        result = played.result
        assert result is not None, where
        assert result.scores == final_scores(played.state), where
        ended = played.events[-1]
        assert isinstance(ended, E.GameEnded) and ended.scores == result.scores, where
        # 11: ranks consistent with (score, tie-break)
        for a in range(n):
            for b in range(n):
                ka = (result.scores[a], result.tiebreak[a])
                kb = (result.scores[b], result.tiebreak[b])
                assert (ka > kb) == (result.ranks[a] < result.ranks[b]), where
        # 13: replaying the log reproduces the state
        replay = GAME.initial(options, n)
        for event in played.events:
            replay = GAME.evolve(replay, event)
        assert _encode(replay) == _encode(played.state), where
        assert GAME.awaiting(played.state) == [], where
        with pytest.raises(RuleError):
            GAME.decide(played.state, 0, C.Pass(), random.Random(0))


@pytest.mark.parametrize("expansion", ["none", "new-buildings"])
def test_rerunning_commands_reproduces_events(expansion: str) -> None:
    """the recorded commands with the seed reproduce every event."""
    from domain.randomness import rng_for

    label = f"puerto-rico/rerun/{expansion}"
    options = GAME.options_type(expansion=expansion)
    for index, seed in enumerate(game_seeds(label, 3)):
        where = describe(label, index)
        commands: list[tuple[int, int, Any]] = []
        counter = {"events": 0}

        def on_decision(state: Any, seat: int, command: Any) -> None:
            commands.append((counter["events"], seat, command))

        def on_event(state: Any, event: Any) -> None:
            counter["events"] += 1

        played = play(
            GAME,
            options,
            [random_bot] * 4,
            seed,
            on_decision=on_decision,
            on_event=on_event,
            per_version=True,
        )
        state = GAME.initial(options, 4)
        events = GAME.setup(options, 4, rng_for(seed, 0))
        for e in events:
            state = GAME.evolve(state, e)
        for version, seat, command in commands:
            assert version == len(events), where
            new = GAME.decide(state, seat, command, rng_for(seed, version))
            for e in new:
                state = GAME.evolve(state, e)
            events.extend(new)
        assert events == played.events, where

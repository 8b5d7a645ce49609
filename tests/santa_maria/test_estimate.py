"""The search's estimate (domain/santa_maria/estimate.py) and the tool that fits it
(tests/fit_estimate.py): the committed table matches the features, covers every stage,
is exact once the game is over, and predicts final scores better than greedy's hand-tuned
value on games it was not fitted to."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.registry import GAMES
from domain.santa_maria import estimate_weights
from domain.santa_maria.bots import value
from domain.santa_maria.estimate import FEATURES, estimate
from domain.simulate import play
from tests import fit_estimate as fit
from tests.support.sampling import (
    describe,
    game_seeds,
    print_seed,  # noqa: F401 (autouse: a failure shows the seed)
)

GAME = GAMES["santa-maria"]


def test_the_table_has_a_weight_per_feature_for_every_stage() -> None:
    """Changing the features without a refit fails here."""
    assert estimate_weights.FITTED_FEATURES == FEATURES
    for players in (2, 3, 4):
        stages = estimate_weights.WEIGHTS[players]
        assert set(stages) == {f"{y}{r}" for y in (1, 2, 3) for r in "ar"}
        assert all(len(w) == len(FEATURES) for w in stages.values())


def _sampled(players: int, seed: bytes) -> tuple[list[tuple[list[float], list[float]]], Any]:
    """A greedy game's (estimate, value) pairs at a tenth of its play decisions, and the end."""
    pick = random.Random(seed)
    taken: list[tuple[list[float], list[float]]] = []

    def take(state: Any, seat: int, command: Any) -> None:
        if state.phase == "play" and pick.random() < 0.1:
            taken.append((estimate(state), [value(state, s) for s in range(players)]))

    greedy = GAME.bots["greedy"]
    played = play(GAME, GAME.options_type(), [greedy] * players, seed, on_decision=take)
    return taken, played


@pytest.mark.parametrize("players", [3, 4])
def test_the_estimate_predicts_final_scores_better_than_greedys_value(players: int) -> None:
    label = f"sm-estimate/{players}"
    errors = {"estimate": 0.0, "value": 0.0}
    for index, seed in enumerate(game_seeds(label, 3)):
        taken, played = _sampled(players, seed)
        assert played.result is not None and taken, describe(label, index)
        final = played.result.scores
        for estimates, values in taken:
            errors["estimate"] += sum(abs(e - f) for e, f in zip(estimates, final, strict=True))
            errors["value"] += sum(abs(v - f) for v, f in zip(values, final, strict=True))
        assert estimate(played.state) == [float(s) for s in final], describe(label, index)
    assert errors["estimate"] < errors["value"], (errors, describe(label, 0))


def test_the_solver_recovers_known_weights() -> None:
    rng = random.Random(3)
    truth = [2.0, -1.5, 0.25, 4.0]
    rows = []
    for _ in range(200):
        x = [1.0] + [rng.uniform(-5, 5) for _ in truth[1:]]
        rows.append((x, sum(a * b for a, b in zip(truth, x, strict=True))))
    assert fit.solve(rows, 0.0) == pytest.approx(truth)
    shrunk = fit.solve(rows, 10.0)
    assert sum(map(abs, shrunk[1:])) < sum(map(abs, truth[1:]))  # ridge shrinks, not the bias
    assert fit.r_squared(rows, truth) == pytest.approx(1.0)


def test_the_written_table_reads_back() -> None:
    table = {
        players: {stage: list(w) for stage, w in stages.items()}
        for players, stages in estimate_weights.WEIGHTS.items()
    }
    text = fit.render(table, FEATURES, "santa-maria", 300)
    space: dict[str, Any] = {}
    exec(text, space)  # our own generated module text
    assert space["WEIGHTS"] == estimate_weights.WEIGHTS
    assert space["FITTED_FEATURES"] == FEATURES
    assert all(len(line) <= 100 for line in text.splitlines())

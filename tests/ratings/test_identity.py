"""A bot's rating identity is its full spec, aliases spelt one way; the provisional mark."""

from __future__ import annotations

import pytest

from domain.bots import parse_budget
from domain.registry import get
from projections.ratings import (
    MODEL,
    PROVISIONAL_SIGMA,
    bot_identity,
    canonical,
    provisional,
)


@pytest.mark.parametrize(
    ("spec", "identity"),
    [
        ("random", "random"),
        ("greedy", "greedy"),
        ("mcts", "mcts"),
        ("mcts:", "mcts"),
        ("mcts:p=64", "mcts:playouts=64"),
        ("mcts:playouts=64", "mcts:playouts=64"),
        ("mcts:p=064", "mcts:playouts=64"),
        ("mcts:r=random,p=8", "mcts:playouts=8,rollout=random"),
        ("mcts: h = end , ms=500", "mcts:ms=500,horizon=end"),
        ("mcts:p=8,p=9", "mcts:p=8,p=9"),  # refused by the runners: kept as it is
        ("mcts:colour=red", "mcts:colour=red"),
    ],
)
def test_a_spec_and_its_aliases_are_one_identity(spec: str, identity: str) -> None:
    assert bot_identity(spec) == identity


def test_the_identity_keeps_the_meaning_of_the_spec() -> None:
    caylus = get("caylus")
    assert caylus is not None
    for spec in ("mcts:p=64", "mcts:r=random,p=8,h=3", "mcts:ms=500,h=end", "mcts"):
        assert parse_budget(caylus, bot_identity(spec)) == parse_budget(caylus, spec)
    assert bot_identity("mcts:p=64") != bot_identity("mcts")  # two bots, two ratings


def test_participant_ids_are_canonical_for_bots_only() -> None:
    assert canonical("bot:mcts:p=2") == "bot:mcts:playouts=2"
    assert canonical("bot:greedy") == "bot:greedy"
    assert canonical("0f3a9c") == "0f3a9c"


def test_a_new_rating_is_provisional_until_sigma_falls_to_the_threshold() -> None:
    assert provisional(MODEL.sigma)
    assert provisional(PROVISIONAL_SIGMA + 1e-9)
    assert not provisional(PROVISIONAL_SIGMA)
    # about ten two-seat games against a settled opponent (docs/ratings.md)
    me, games = MODEL.rating(), 0
    while provisional(me.sigma):
        other = MODEL.rating(mu=25, sigma=2.0)
        ranks = [1, 2] if games % 2 else [2, 1]
        me = MODEL.rate([[me], [other]], ranks=ranks)[0][0]
        games += 1
    assert 9 <= games <= 12

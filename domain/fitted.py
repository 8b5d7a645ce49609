"""Fitted estimates for the search: a game's `estimate.py` describes each seat of a position
as a stage (a key such as "2a": year 2, not retired) and a feature vector; its
`estimate_weights.py`, written by `python -m tests.fit_estimate --game G`, holds one weight
vector per player count and stage, fitted by least squares to the game's greedy self-play.
The estimate of a seat's final score is the dot product."""

from __future__ import annotations

from collections.abc import Sequence

Record = tuple[str, list[float]]  # (stage, features) of one seat
Weights = dict[int, dict[str, tuple[float, ...]]]  # players -> stage -> weights


def predict(weights: Weights, records: Sequence[Record]) -> list[float]:
    """Each seat's estimated final score."""
    table = weights[len(records)]
    return [
        sum(w * f for w, f in zip(table[stage], features, strict=True))
        for stage, features in records
    ]

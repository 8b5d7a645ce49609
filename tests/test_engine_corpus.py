"""Every game of the fixed corpus (tests/engine_corpus.py) still produces byte-identical
events, legal lists and hidden-information draws: a faster engine plays the same games."""

from __future__ import annotations

from collections import defaultdict

import pytest

from domain.registry import GAMES
from tests.engine_corpus import Entry, bot_chooser, configs, load, play, replay_chooser

_BY_CONFIG: dict[tuple[str, int, str], list[Entry]] = defaultdict(list)
for _entry in load():
    _BY_CONFIG[_entry.game, _entry.seats, _entry.bot].append(_entry)


def test_the_corpus_covers_every_game_seat_count_and_bot() -> None:
    assert sorted(_BY_CONFIG) == sorted(configs())
    assert all(len(entries) >= 30 for entries in _BY_CONFIG.values())


def _digests(entry: Entry) -> dict[str, str]:
    return {"events": entry.events, "legal": entry.legal, "hidden": entry.hidden}


@pytest.mark.parametrize(("name", "seats", "bot"), sorted(_BY_CONFIG))
def test_the_same_games_from_the_same_seeds(name: str, seats: int, bot: str) -> None:
    """Random games are played again by the hosted random bot from their seeds (the same
    legal lists, the same choices); greedy games replay their recorded commands (the bots
    themselves may improve: the rules may not change)."""
    game = GAMES[name]
    for entry in _BY_CONFIG[name, seats, bot]:
        seed = bytes.fromhex(entry.seed)
        if bot == "random":
            chooser = bot_chooser(game, "random", seed)
        else:
            chooser = replay_chooser(game, entry.moves)
        moves, digests = play(game, seats, seed, chooser)
        assert (moves, digests) == (entry.moves, _digests(entry)), entry.seed

"""A fixed corpus of bot games that pins the rules down to the byte: stored games are replayed
and audited from their seeds and commands, so a change meant to make the engine faster must
leave every event exactly as it was (tests/test_engine_corpus.py checks it).

The games are played the way the game service plays its bots (service/games.py): the rules
draw from `rng_for(seed, version)` and the bot from `rng_for(seed, version, "bot")`, where
`version` counts the events so far (the service also counts its own events; the streams are
the same kind). A game is kept as its seed, its moves and three SHA-256 digests:

- `moves`: each chosen command as its index in `legal_commands` (so the replay needs no bot
  and pins the order of the legal lists that random bots draw from), or as the command itself
  where the rules list more than `LISTED` commands lazily (Puerto Rico's mayor layouts);
- `events`: every event and the result, as JSON;
- `legal`: the length of every legal list, and every list of at most `LISTED` commands;
- `hidden`: `sample_hidden` drawn every `HIDDEN_EVERY` moves (what MCTS bots plan on).

Record again only when the rules are meant to change, never to make a test pass:
`.venv/bin/python -m tests.engine_corpus` rewrites tests/data/engine_corpus.json.gz.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from domain.bots import resolve_bot
from domain.contract import Game, SeatInfo
from domain.randomness import rng_for
from domain.registry import GAMES

CORPUS = Path(__file__).parent / "data" / "engine_corpus.json.gz"
HOSTED = ("caylus", "plus-ultra", "puerto-rico", "santa-maria")  # domain/registry.py
GAMES_PER_CONFIG = 30
BOTS = ("random", "greedy")
HIDDEN_EVERY = 50
LISTED = 200


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    seats: int
    bot: str
    seed: str  # hex
    moves: list[int | dict[str, Any]]
    events: str
    legal: str
    hidden: str


# chooses a command from (state, seat, legal list, version)
Chooser = Callable[[Any, int, Any, int], Any]


def configs() -> Iterator[tuple[str, int, str]]:
    for name in HOSTED:
        game = GAMES[name]
        for seats in range(game.min_players, game.max_players + 1):
            for bot in BOTS:
                yield name, seats, bot


def seed_of(name: str, seats: int, bot: str, index: int) -> bytes:
    return hashlib.sha256(f"engine-corpus/{name}/{seats}/{bot}/{index}".encode()).digest()


def play(
    game: Game[Any, Any], seats: int, seed: bytes, choose: Chooser
) -> tuple[list[int | dict[str, Any]], dict[str, str]]:
    """One game from `seed`, each command chosen by `choose`: its moves and digests."""
    options = game.options_type()
    state = game.initial(options, seats)
    events, legal_digest, hidden = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    version = 0

    def apply(new: list[Any]) -> None:
        nonlocal state, version
        for event in new:
            events.update(msgspec.json.encode(event))
            state = game.evolve(state, event)
        version += len(new)

    apply(game.setup(options, seats, rng_for(seed, version)))
    moves: list[int | dict[str, Any]] = []
    while game.result(state) is None:
        seat = game.awaiting(state)[0]
        legal = game.legal_commands(state, seat)
        legal_digest.update(len(legal).to_bytes(8, "big"))
        if len(legal) <= LISTED:
            legal_digest.update(msgspec.json.encode(list(legal)))
        if len(moves) % HIDDEN_EVERY == 0:
            sample = game.sample_hidden(state, seat, rng_for(seed, version, "sample"))
            hidden.update(msgspec.json.encode(msgspec.to_builtins(sample)))
        command = choose(state, seat, legal, version)
        listed = isinstance(legal, list) or len(legal) <= LISTED
        moves.append(legal.index(command) if listed else to_builtins(command))
        apply(game.decide(state, seat, command, rng_for(seed, version)))
    events.update(msgspec.json.encode(game.result(state)))
    digests = {
        "events": events.hexdigest(),
        "legal": legal_digest.hexdigest(),
        "hidden": hidden.hexdigest(),
    }
    return moves, digests


def to_builtins(command: Any) -> dict[str, Any]:
    return msgspec.to_builtins(command)  # type: ignore[no-any-return]


def bot_chooser(game: Game[Any, Any], bot: str, seed: bytes) -> Chooser:
    """The named bot, with the bot stream the service gives it."""
    chosen = resolve_bot(game, bot)

    def choose(state: Any, seat: int, legal: Any, version: int) -> Any:
        return chosen(game, SeatInfo.of(game, state, seat), rng_for(seed, version, "bot"))

    return choose


def replay_chooser(game: Game[Any, Any], moves: list[int | dict[str, Any]]) -> Chooser:
    """The recorded moves again, in order."""
    queue = iter(moves)

    def choose(state: Any, seat: int, legal: Any, version: int) -> Any:
        move = next(queue)
        if isinstance(move, int):
            return legal[move]
        return msgspec.convert(move, game.command_type)

    return choose


def record_one(name: str, seats: int, bot: str, index: int) -> Entry:
    game = GAMES[name]
    seed = seed_of(name, seats, bot, index)
    moves, digests = play(game, seats, seed, bot_chooser(game, bot, seed))
    return Entry(game=name, seats=seats, bot=bot, seed=seed.hex(), moves=moves, **digests)


def load() -> list[Entry]:
    return msgspec.json.decode(gzip.decompress(CORPUS.read_bytes()), type=list[Entry])


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else GAMES_PER_CONFIG
    entries: list[Entry] = []
    for name, seats, bot in configs():
        print(f"{name} {seats} {bot}", file=sys.stderr, flush=True)
        entries.extend(record_one(name, seats, bot, i) for i in range(count))
    CORPUS.parent.mkdir(exist_ok=True)
    raw = b"[\n" + b",\n".join(msgspec.json.encode(e) for e in entries) + b"\n]\n"
    CORPUS.write_bytes(gzip.compress(raw, mtime=0))


if __name__ == "__main__":
    main(sys.argv[1:])

"""A move is decoded strictly, at every depth: each game's legal moves, sent with one field
renamed or one field added (at the top of the move, or inside a nested object), are refused
422 `invalid_move.unknown_field` naming the field's path, and the game does not change.
Random games of every game, seeded from the run's seed (printed)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from api.main import build
from domain.registry import GAMES
from service.settings import Settings
from tests.support.api import Api
from tests.support.sampling import base_seed, print_seed  # noqa: F401 (autouse)

STEPS = 30  # decisions of the person's seat checked per game


@pytest.fixture
def api(sqlite_settings: Settings) -> Iterator[Api]:
    with TestClient(build(sqlite_settings)) as client:
        yield Api(client)


def _objects(game: Any, tag: str) -> set[str]:
    """The fields of the command tagged `tag` that hold an object with fields of its own (a
    Struct, not a map such as Puerto Rico's `layout`, whose keys are data)."""
    union = msgspec.inspect.type_info(game.command_type)
    assert isinstance(union, msgspec.inspect.UnionType)
    command = next(t for t in union.types if getattr(t, "tag", None) == tag)
    found = set()
    for field in command.fields:
        kinds = (
            field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else [field.type]
        )
        if any(isinstance(k, msgspec.inspect.StructType) for k in kinds):
            found.add(field.encode_name)
    return found


def _mistakes(
    game: Any, move: dict[str, Any], rng: random.Random
) -> list[tuple[dict[str, Any], str]]:
    """The move with one field renamed (if it has a field besides `type`) and with one
    field added, at the top or in a nested object: (the wrong move, the path refused)."""
    wrong: list[tuple[dict[str, Any], str]] = []
    fields = [k for k in move if k != "type"]
    if fields:
        name = rng.choice(fields)
        renamed = {(k + "_" if k == name else k): v for k, v in move.items()}
        wrong.append((renamed, f"move.{name}_"))
    objects = _objects(game, move["type"])
    nested = [k for k, v in move.items() if isinstance(v, dict) and k in objects]
    if nested and rng.random() < 0.5:
        inner = rng.choice(nested)
        added = {**move, inner: {**move[inner], "colour": "red"}}
        wrong.append((added, f"move.{inner}.colour"))
    else:
        wrong.append(({**move, "colour": "red"}, "move.colour"))
    return wrong


@pytest.mark.parametrize("name", sorted(n for n in GAMES if n != "secret-duel"))
def test_a_move_with_a_field_renamed_or_added_is_refused_and_changes_nothing(
    api: Api, name: str
) -> None:
    rng = random.Random(f"{base_seed()}/{name}")
    ada = api.player("ada")
    game = GAMES[name]
    bots = {s: "random" for s in range(1, game.min_players)}
    game_id = api.create(ada, name, game.min_players, bots, seat=0)["id"]
    checked = 0
    for _ in range(STEPS):
        state = api.settled(game_id, ada)
        if state["status"] != "active" or 0 not in state["awaiting"]:
            break
        legal = api.legal(game_id, ada)
        move = rng.choice(legal["moves"])
        for wrong, path in _mistakes(game, move, rng):
            r = api.move(game_id, ada, legal["version"], wrong)
            assert r.status_code == 422, (name, wrong, r.text)
            body = r.json()
            assert body["code"] == "invalid_move.unknown_field", (name, wrong, body)
            assert body["field"] == path, (name, wrong, body)
            checked += 1
        assert api.game(game_id, ada)["version"] == legal["version"]  # nothing changed
        r = api.move(game_id, ada, legal["version"], move)
        assert r.status_code == 200, r.text
    assert checked >= 2 * 5, f"only {checked} wrong moves sent"


def _structs(info: Any, seen: set[type]) -> Iterator[Any]:
    """Every Struct reachable from a type (through unions, lists, maps and fields)."""
    if isinstance(info, msgspec.inspect.StructType):
        if info.cls in seen:
            return
        seen.add(info.cls)
        yield info
        for field in info.fields:
            yield from _structs(field.type, seen)
    for attr in ("types", "item_type", "key_type", "value_type"):
        inner = getattr(info, attr, None)
        if isinstance(inner, tuple):
            for each in inner:
                yield from _structs(each, seen)
        elif inner is not None:
            yield from _structs(inner, seen)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_object_a_move_or_its_options_may_hold_refuses_unknown_fields(name: str) -> None:
    """Not only the commands: every object nested in one (Puerto Rico's `black_market`,
    Plus Ultra's `params`), and the options."""
    game = GAMES[name]
    for root in (game.command_type, game.options_type):
        found = list(_structs(msgspec.inspect.type_info(root), set()))
        assert found
        lax = [s.cls.__name__ for s in found if not s.forbid_unknown_fields]
        assert not lax, f"{name}: {lax} would drop an unknown field"

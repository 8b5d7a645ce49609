"""The game service's cache of decided games, bounded by memory rather than by count.

A finished game's fold holds its rules state and an entry for every keyed request: from a
few KiB to well over 100 KiB, so a cap on the number of games bounds nothing. Each fold is
weighed by its deep size (every object it reaches, less what all games share: the rules
object, classes, enum members), measured when a game is first cached and again each time
its version has doubled since, and scaled by its version in between (a fold grows with its
events). The least recently used games go first when the total passes `max_bytes`.
"""

from __future__ import annotations

import enum
import sys
import threading
import types
from collections import OrderedDict
from typing import Any
from uuid import UUID

import msgspec

from service.fold import Fold

_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, enum.Enum)


def deep_size(root: Any, shared: tuple[Any, ...] = ()) -> int:
    """Bytes of `root` and of every object it reaches, each counted once, less `shared`."""
    seen = {id(s) for s in shared}
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _SHARED):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif isinstance(obj, msgspec.Struct):
            stack.extend(getattr(obj, name) for name in obj.__struct_fields__)
        elif hasattr(obj, "__dict__"):
            stack.append(vars(obj))
        else:
            slots = getattr(type(obj), "__slots__", ())
            stack.extend(getattr(obj, name) for name in slots if hasattr(obj, name))
    return total


class FoldCache:
    def __init__(self, max_bytes: int, max_games: int) -> None:
        self.max_bytes = max_bytes
        self.max_games = max_games
        self.bytes = 0
        self._folds: OrderedDict[UUID, Fold] = OrderedDict()
        self._weights: dict[UUID, tuple[int, int, int]] = {}  # (measured at, size, counted)
        self._lock = threading.Lock()

    def get(self, game_id: UUID) -> Fold | None:
        return self._folds.get(game_id)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._folds

    def __len__(self) -> int:
        return len(self._folds)

    def keep(self, fold: Fold) -> list[UUID]:
        """Cache `fold` unless a later version of its game is cached; it becomes the most
        recently used. Returns the games dropped to make room."""
        with self._lock:
            current = self._folds.get(fold.id)
            if current is None or current.version <= fold.version:
                self._folds[fold.id] = fold
                self._weigh(fold)
            self._folds.move_to_end(fold.id)
            dropped = []
            while len(self._folds) > 1 and (
                self.bytes > self.max_bytes or len(self._folds) > self.max_games
            ):
                old, _ = self._folds.popitem(last=False)
                self.bytes -= self._weights.pop(old)[2]
                dropped.append(old)
            return dropped

    def _weigh(self, fold: Fold) -> None:
        measured_at, size, counted = self._weights.get(fold.id, (0, 0, 0))
        version = max(fold.version, 1)
        if version >= 2 * measured_at:
            measured_at, size = version, deep_size(fold, (fold.game,))
        weight = size * version // measured_at
        self.bytes += weight - counted
        self._weights[fold.id] = (measured_at, size, weight)

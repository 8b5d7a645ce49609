"""A thread-safe map that keeps at most `size` entries, dropping the least recently used:
for what a process remembers per game or per player, so that memory stays bounded however
many games or players a public server sees."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

from cachetools import LRUCache

K = TypeVar("K")
V = TypeVar("V")


class BoundedMap(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self._items: LRUCache[K, V] = LRUCache(maxsize=size)
        self._lock = threading.Lock()  # an LRU's reads reorder it: every access is a write

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value

    def pop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        return len(self._items)

"""Merkle trees as RFC 9162 (Certificate Transparency 2.0) defines them: the hashing, the
audit paths and consistency proofs, and their verification. Pure functions of bytes:
`tabletop verify` and `tabletop monitor` use them without a store, and the log
(service/transparency.py) builds its proofs with them over the subtree hashes pymerkle
computes.

Leaf hash HASH(0x00 || d), interior node HASH(0x01 || left || right), HASH = SHA-256; the
empty tree's hash is HASH() of nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

Subtree = Callable[[int, int], bytes]  # (start, end) -> MTH of leaves[start:end]


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def inclusion_path(subtree: Subtree, index: int, size: int) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 section 2.1.3.1: the siblings from the leaf up."""

    def path(m: int, start: int, end: int) -> list[bytes]:
        if end - start == 1:
            return []
        k = _split(end - start)
        if m < k:
            return [*path(m, start, start + k), subtree(start + k, end)]
        return [*path(m - k, start + k, end), subtree(start, start + k)]

    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    return path(index, 0, size)


def consistency_proof(subtree: Subtree, first: int, second: int) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 section 2.1.4.1 (empty when m is 0 or m == n)."""

    def sub(m: int, start: int, end: int, whole: bool) -> list[bytes]:
        if m == end - start:
            return [] if whole else [subtree(start, end)]
        k = _split(end - start)
        if m <= k:
            return [*sub(m, start, start + k, whole), subtree(start + k, end)]
        return [*sub(m - k, start + k, end, False), subtree(start, start + k)]

    if not 0 <= first <= second:
        raise ValueError(f"no consistency proof from {first} to {second}")
    return [] if first == 0 else sub(first, 0, second, True)


def verify_inclusion(leaf: bytes, index: int, size: int, path: list[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: whether `leaf` (a leaf hash) is leaf `index` of the tree of
    `size` leaves whose root is `root`."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(
    first: int, second: int, proof: list[bytes], first_root: bytes, second_root: bytes
) -> bool:
    """RFC 9162 section 2.1.4.2: whether the tree of `second` leaves (root `second_root`)
    extends the tree of `first` leaves (root `first_root`), appending only."""
    if not 0 <= first <= second:
        return False
    if first == second:
        return not proof and first_root == second_root
    if first == 0:
        return not proof
    if not proof:
        return False
    path = [first_root, *proof] if first & (first - 1) == 0 else list(proof)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == first_root and sr == second_root

"""The log's Merkle tree (pymerkle's hashing under service/transparency.py, RFC 9162 proofs
from service/merkle.py) against a small implementation of RFC 9162 written here from the
RFC's definitions, over random tree sizes."""

from __future__ import annotations

import hashlib
import random

from service import merkle
from service.transparency import _Tree
from tests.support.sampling import base_seed


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _k(n: int) -> int:
    return 1 << ((n - 1).bit_length() - 1)  # the largest power of two below n


def mth(d: list[bytes]) -> bytes:
    if not d:
        return _h(b"")
    if len(d) == 1:
        return _h(b"\x00" + d[0])
    k = _k(len(d))
    return _h(b"\x01" + mth(d[:k]) + mth(d[k:]))


def path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return [*path(m, d[:k]), mth(d[k:])]
    return [*path(m - k, d[k:]), mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    if m == len(d):
        return [] if b else [mth(d)]
    k = _k(len(d))
    if m <= k:
        return [*subproof(m, d[:k], b), mth(d[k:])]
    return [*subproof(m - k, d[k:], False), mth(d[:k])]


def root_from_path(m: int, n: int, leaf: bytes, p: list[bytes]) -> bytes:
    """The root an audit path leads to, by PATH's own recursion read backwards."""
    if n == 1:
        assert not p
        return leaf
    k = _k(n)
    if m < k:
        return _h(b"\x01" + root_from_path(m, k, leaf, p[:-1]) + p[-1])
    return _h(b"\x01" + p[-1] + root_from_path(m - k, n - k, leaf, p[:-1]))


def _tree(entries: list[bytes]) -> _Tree:
    tree = _Tree()
    for entry in entries:
        tree.append_entry(entry)  # pymerkle hashes the leaf: H(0x00 || entry)
    return tree


def test_roots_and_proofs_agree_with_the_rfc_for_random_sizes() -> None:
    rng = random.Random(f"{base_seed()}/merkle")
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, *rng.sample(range(18, 300), 12)]:
        entries = [rng.randbytes(rng.randrange(0, 40)) for _ in range(n)]
        tree = _tree(entries)
        leaves = [merkle.leaf_hash(e) for e in entries]
        assert tree.hashes == leaves
        for size in {n, rng.randrange(1, n + 1)}:
            root = mth(entries[:size])
            assert tree.subtree(0, size) == root
            for m in {0, size - 1, rng.randrange(size)}:
                got = merkle.inclusion_path(tree.subtree, m, size)
                assert got == path(m, entries[:size])
                assert root_from_path(m, size, leaves[m], got) == root
                assert merkle.verify_inclusion(leaves[m], m, size, got, root)
                if got:
                    bent = [*got[:-1], bytes([got[-1][0] ^ 1]) + got[-1][1:]]
                    assert not merkle.verify_inclusion(leaves[m], m, size, bent, root)
                other = (m + 1) % size
                if entries[other] != entries[m]:  # (equal entries prove each other's place)
                    assert not merkle.verify_inclusion(leaves[other], m, size, got, root)
            first = rng.randrange(0, size + 1)
            proof = merkle.consistency_proof(tree.subtree, first, size)
            assert proof == ([] if first == 0 else subproof(first, entries[:size], True))
            old = mth(entries[:first])
            assert merkle.verify_consistency(first, size, proof, old, root)
            if 0 < first < size:
                assert not merkle.verify_consistency(first, size, proof, _h(b"x"), root)
                changed = list(entries[:size])
                changed[rng.randrange(first)] += b"!"  # history rewritten below `first`
                assert not merkle.verify_consistency(first, size, proof, old, mth(changed))


def test_the_empty_tree_and_the_bounds() -> None:
    assert _Tree().subtree(0, 0) == hashlib.sha256(b"").digest()
    tree = _tree([b"a", b"b", b"c"])
    for bad in [(-1, 3), (3, 3), (0, 0)]:
        try:
            merkle.inclusion_path(tree.subtree, *bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")
    assert not merkle.verify_inclusion(merkle.leaf_hash(b"a"), 3, 3, [], tree.subtree(0, 3))
    assert not merkle.verify_consistency(3, 2, [], tree.subtree(0, 3), tree.subtree(0, 2))

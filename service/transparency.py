"""The transparency log: every ended game and finished tournament, its final hash appended
to an append-only Merkle tree (RFC 9162 hashing), with signed tree heads, inclusion proofs
and consistency proofs (docs/trust.md).

The leaves and the signed heads are events in the store, in two streams of their own: the
store is the one truth on both stores (SQLite and Postgres), and its unique (stream,
version) key makes each append exactly-once without a lock. The log follows the store's
notification log: leaf n+1 is the next game or tournament ending after leaf n's position, so
the order is the log's commit order, the same whoever appends. Any process catches the log
up before it answers from it (`sync`): it reads the endings after the last leaf, appends
them and a head signed over the new size in one save; if another process appended first,
the save conflicts and it reads theirs (the same leaves) instead. A crash loses nothing: an
unsaved append is made again by the next reader.

Only the holder of the log's lock (service/role_lock.py: the `serve` process whose follower
took it) appends and signs; the others answer from the heads it stored. Before it signs it
asks whether it still holds the lock, and every process checks each stored head against
the tree of the stored leaves it holds: a process that lost the lock, or whose tree the
stored log no longer extends (the leaves or heads rewritten under it), refuses to sign or
to answer from its tree (503), and says so in its log, rather than sign a head of a tree
that is not the store's.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

import msgspec
import structlog
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import RecordConflictError
from eventsourcing.utils import get_topic
from pymerkle import BaseMerkleTree

from service import merkle
from service.chain import export_statement, head_statement, leaf_data, now_text
from service.errors import NotFound, Problem, Unprocessable
from service.fold import ENDINGS, UNREADABLE
from service.pg_recorder import LockedFunctionRecorder
from service.role_lock import RoleLock
from service.signing import Signer
from service.store import EventStoreApp, Recorded

log = structlog.get_logger("tabletop.transparency")

_NAMESPACE = uuid.UUID("9b2f4d1a-0c6e-4a57-8d3b-2e5f6a7c8d90")
LEAVES_STREAM = uuid.uuid5(_NAMESPACE, "transparency-leaves")
HEADS_STREAM = uuid.uuid5(_NAMESPACE, "transparency-heads")
TOURNAMENT_FINISHED = "tournament_finished"
PAGE = 1000  # notifications read at a time
_RECORDED = get_topic(Recorded)
# Seconds between the signer's full re-reads of the stored log against its tree (a rewrite
# of an old leaf shows nowhere else until another head is signed): TABLETOP_LOG_RECHECK_S.
RECHECK = 60.0


class LogRefused(Problem):
    """This process will not sign a head, or answer from a tree the store no longer holds:
    `log_inconsistent`, `log_signer_lost` or `log_not_signed` (no head yet)."""

    status = 503


@dataclass(frozen=True)
class LeafAppended(DomainEvent):
    """Leaf `originator_version - 1` of the log."""

    kind: LeafKind
    subject: str  # the game's or tournament's id
    final_hash: str  # the hash of its last event
    position: int  # that event's notification id: the log's order
    # That event's version (outside the leaf's hash: it says how many events a record that
    # lost its end had); 0 in leaves appended before it was kept.
    version: int = 0


@dataclass(frozen=True)
class HeadSigned(DomainEvent):
    """A signed tree head: the tree of the first `tree_size` leaves has root `root_hash`."""

    tree_size: int
    root_hash: str
    signed_at: str  # the head's "timestamp" (the library's own `timestamp` is a datetime)
    key_id: str
    signature: str


def head_out(head: HeadSigned) -> dict[str, Any]:
    return {
        "tree_size": head.tree_size,
        "root_hash": head.root_hash,
        "timestamp": head.signed_at,
        "key_id": head.key_id,
        "signature": head.signature,
    }


def leaf_out(leaf: LeafAppended) -> dict[str, str]:
    return {"kind": leaf.kind, "id": leaf.subject, "final_hash": leaf.final_hash}


LeafKind = Literal["game", "tournament"]  # what a leaf logs the end of


class _Tree(BaseMerkleTree):  # type: ignore[misc]
    """pymerkle's tree over the leaf hashes in memory (its subtree hashes cached)."""

    def __init__(self) -> None:
        super().__init__("sha256")
        self.hashes: list[bytes] = []

    def _encode_entry(self, data: bytes) -> bytes:
        return data

    def _store_leaf(self, data: bytes, digest: bytes) -> int:
        self.hashes.append(digest)
        return len(self.hashes)

    def _get_leaf(self, index: int) -> bytes:
        return self.hashes[index - 1]

    def _get_leaves(self, offset: int, width: int) -> list[bytes]:
        return self.hashes[offset : offset + width]

    def _get_size(self) -> int:
        return len(self.hashes)

    def subtree(self, start: int, end: int) -> bytes:
        """MTH of leaves[start:end]."""
        root: bytes = self._get_root(start, end)
        return root


class TransparencyLog:
    def __init__(self, store: EventStoreApp, signer: Signer) -> None:
        self._store = store
        self.signer = signer
        self._leaves: list[LeafAppended] = []
        self._index: dict[str, int] = {}  # subject -> leaf index
        self._heads: list[HeadSigned] = []
        self._by_size: dict[int, HeadSigned] = {}
        self._tree = _Tree()
        self._scanned = 0  # every ending up to this position is a leaf
        self._lock = threading.Lock()
        self._signs_on_own = not isinstance(store.recorder, LockedFunctionRecorder)  # SQLite
        self.lock: RoleLock | None = None  # the log's lock, once this process took it
        self.lost: str | None = None  # why it no longer holds it
        self.refusal: str | None = None  # why the stored log no longer extends its tree

    # ---- appending ---------------------------------------------------------------------------

    def sync(self) -> None:
        """Append every ending not in the log yet, and sign a head over the new size."""
        with self._lock:
            self._sync()

    def take(self, lock: RoleLock) -> bool:
        """Sign from now on if this process takes the log's lock (else another signs)."""
        if not lock.take():
            return False
        with self._lock:
            if self.lost is not None:
                log.warning("transparency_signer_again", role=lock.name)
            self.lock, self.lost = lock, None
        return True

    def follow(self, lock: RoleLock, stop: threading.Event, every: float = 1.0) -> None:
        """Keep the log caught up until `stop` (a thread of `tabletop serve`): a game is
        logged within about `every` seconds of its end even when nobody reads the log,
        which narrows the time in which it could be rewritten before it is logged. Waits
        on the log's lock while another process holds it; re-reads the whole stored log
        every TABLETOP_LOG_RECHECK_S seconds."""
        recheck = float(os.environ.get("TABLETOP_LOG_RECHECK_S", RECHECK))
        checked = time.monotonic()
        try:
            while not stop.wait(every):
                try:
                    if self.take(lock):
                        if time.monotonic() - checked >= recheck:
                            checked = time.monotonic()
                            self.recheck()
                        self.sync()
                except LogRefused:
                    pass  # said where it was found; it stays refused
                except Exception:  # the store away for a moment: the next round catches up
                    log.exception("transparency_sync_failed")
        finally:
            lock.release()

    def _sync(self) -> None:
        """(`sync` under the lock: the reads below hold it too, so that none sees the tree
        while a head is being computed.)"""
        for _ in range(10):
            self._refresh()
            if self.refusal is not None:
                raise LogRefused("log_inconsistent", self.refusal)
            if not self._signs_on_own and self.lock is None:
                return  # the holder of the log's lock signs: its stored heads answer
            start = max(self._scanned, self._leaves[-1].position if self._leaves else 0)
            endings, scanned = self._endings_after(start)
            endings = self._first_endings(endings)
            leaves = [
                LeafAppended(
                    originator_id=LEAVES_STREAM,
                    originator_version=len(self._leaves) + i + 1,
                    timestamp=LeafAppended.create_timestamp(),
                    kind=kind,
                    subject=subject,
                    final_hash=final_hash,
                    position=position,
                    version=version,
                )
                for i, (kind, subject, final_hash, position, version) in enumerate(endings)
            ]
            size = len(self._leaves) + len(leaves)
            if not leaves and self._heads and self._heads[-1].tree_size == size:
                self._scanned = scanned
                return
            self._may_sign()
            head = self._signed_head(size, leaves)
            try:
                self._store.save(*leaves, head)
            except RecordConflictError:
                self._tree.cache_clear()  # another process appended: read theirs
                continue
            self._scanned = scanned
            log.info("transparency_appended", leaves=len(leaves), tree_size=size)
        log.warning("transparency_contended")  # others kept appending: theirs will do
        self._refresh()

    def _may_sign(self) -> None:
        """Refuse (503, said in the log) unless this process holds the log's lock and the
        stored log still ends as the tree it holds."""
        if self._signs_on_own:
            return
        if self.lost is None and self.lock is not None and not self.lock.held():
            self.lost = "this process lost the log's lock: another process may sign now"
            log.error("transparency_refuses_to_sign", reason=self.lost)
        if self.lost is not None:
            raise LogRefused("log_signer_lost", self.lost)
        self._still_ends_as_cached()

    def _still_ends_as_cached(self) -> None:
        """The stored last leaf and last head are still the ones this process read (a
        rewrite that re-signs heads changes the last one); the rest is re-read by
        `recheck`."""
        held: list[tuple[str, UUID, list[Any]]] = [
            ("leaf", LEAVES_STREAM, self._leaves),
            ("head", HEADS_STREAM, self._heads),
        ]
        for name, stream, known in held:
            if not known:
                continue
            stored = self._store.events.get(stream, gt=len(known) - 1, lte=len(known))
            if list(stored) != known[-1:]:
                self._refuse(
                    f"the stored {name} {len(known)} is no longer the one this process holds"
                )
        if self.refusal is not None:
            raise LogRefused("log_inconsistent", self.refusal)

    def recheck(self) -> None:
        """Read the whole stored log again: every leaf and head must be the one held."""
        with self._lock:
            leaves = list(self._store.events.get(LEAVES_STREAM, lte=len(self._leaves)))
            heads = list(self._store.events.get(HEADS_STREAM, lte=len(self._heads)))
            held: list[tuple[str, list[Any], list[Any]]] = [
                ("leaf", leaves, self._leaves),
                ("head", heads, self._heads),
            ]
            for name, stored, known in held:
                changed = next(
                    (i for i, (a, b) in enumerate(zip(stored, known, strict=False)) if a != b),
                    None if len(stored) == len(known) else min(len(stored), len(known)),
                )
                if changed is not None:
                    self._refuse(
                        f"the stored {name} {changed + 1} is no longer the one this process "
                        "holds: the log was rewritten"
                    )

    def _refuse(self, reason: str) -> None:
        if self.refusal is None:
            self.refusal = reason
            log.error("transparency_refuses_to_sign", reason=reason)

    def _first_endings(
        self, endings: list[tuple[LeafKind, str, str, int, int]]
    ) -> list[tuple[LeafKind, str, str, int, int]]:
        """Each subject's first ending only. A game or tournament ends once: another ending
        of one the log holds (or twice in one batch) is a record deleted and stored again,
        perhaps changed. It gets no leaf: the first leaf stays what the game is held to,
        and the audit and the sentinel find the stored record against it."""
        first, seen = [], set(self._index)
        for ending in endings:
            subject = ending[1]
            if subject in seen:
                log.error("transparency_ending_again", subject=subject, position=ending[3])
                continue
            seen.add(subject)
            first.append(ending)
        return first

    def _endings_after(self, start: int) -> tuple[list[tuple[LeafKind, str, str, int, int]], int]:
        """(kind, id, final hash, position, version) of each ending after `start`, in log
        order, and the last position read."""
        endings = []
        while True:
            page = self._store.recorder.select_notifications(
                start, PAGE, topics=[_RECORDED], inclusive_of_start=False
            )
            for notification in page:
                try:
                    kind = _kind(_type_of(notification.state))
                    if kind is not None:
                        event = self._store.mapper.to_domain_event(notification)
                        subject, final_hash = str(event.originator_id), getattr(event, "hash", "")
                        version = event.originator_version
                        endings.append((kind, subject, final_hash, notification.id, version))
                except (*UNREADABLE, msgspec.DecodeError) as error:
                    log.error("record_unreadable", position=notification.id, error=repr(error))
            if page:
                start = page[-1].id
            if len(page) < PAGE:
                return endings, start

    def _signed_head(self, size: int, leaves: list[LeafAppended]) -> HeadSigned:
        hashes = [_leaf_hash(leaf) for leaf in leaves]
        known = len(self._tree.hashes)
        self._tree.hashes.extend(hashes)
        try:
            root = self._tree.subtree(0, size).hex()
        finally:
            del self._tree.hashes[known:]
        head = {"tree_size": size, "root_hash": root, "timestamp": now_text()}
        signed = self.signer.sign(lambda key_id: head_statement({**head, "key_id": key_id}))
        return HeadSigned(
            originator_id=HEADS_STREAM,
            originator_version=len(self._heads) + 1,
            timestamp=HeadSigned.create_timestamp(),
            tree_size=size,
            root_hash=root,
            signed_at=str(head["timestamp"]),
            key_id=signed["key_id"],
            signature=signed["signature"],
        )

    def _refresh(self) -> None:
        self._read_leaves()
        heads = [
            e
            for e in self._store.events.get(HEADS_STREAM, gt=len(self._heads) or None)
            if isinstance(e, HeadSigned)
        ]
        if heads and heads[-1].tree_size > len(self._leaves):  # appended since: read them too
            self._read_leaves()
        for event in heads:
            self._heads.append(event)
            self._by_size.setdefault(event.tree_size, event)
            self._check(event)

    def _read_leaves(self) -> None:
        for event in self._store.events.get(LEAVES_STREAM, gt=len(self._leaves) or None):
            assert isinstance(event, LeafAppended), "the leaves stream holds leaves"
            self._index.setdefault(event.subject, len(self._leaves))
            self._leaves.append(event)
            self._tree.hashes.append(_leaf_hash(event))

    def _check(self, head: HeadSigned) -> None:
        """A stored head must be the root of the stored leaves it counts: one that is not
        was signed over another tree (a process holding a tree since rewritten, or a
        rewrite of the leaves under the heads)."""
        size = head.tree_size
        if size > len(self._leaves) or self._tree.subtree(0, size).hex() != head.root_hash:
            self._refuse(
                f"the stored head {head.originator_version} (over {size} leaves) is not the "
                "root of the stored leaves: heads of two trees, the log was rewritten"
            )

    # ---- reading -----------------------------------------------------------------------------

    def head(self, tree_size: int | None = None) -> HeadSigned:
        """The latest signed head, or the one signed over `tree_size` leaves."""
        with self._lock:
            self._sync()
            return self._head(tree_size)

    def _head(self, tree_size: int | None) -> HeadSigned:
        if tree_size is None:
            if not self._heads:
                raise LogRefused(
                    "log_not_signed", "no tree head is signed yet: the log's signer has not run"
                )
            return self._heads[-1]
        head = self._by_size.get(tree_size)
        if head is None:
            raise NotFound("head_not_found", f"no head was signed over {tree_size} leaves")
        return head

    def leaves(
        self, start: int, limit: int, tree_size: int | None = None
    ) -> tuple[HeadSigned, list[LeafAppended]]:
        """The head (the latest, or the one over `tree_size` leaves) and its leaves from
        leaf `start` on, `limit` at most, in the log's order: the order ratings are applied
        in (projections/ratings.py)."""
        with self._lock:
            self._sync()
            head = self._head(tree_size)
            return head, self._leaves[start : min(start + limit, head.tree_size)]

    def heads(self, after: int, limit: int) -> list[HeadSigned]:
        """Signed heads over more than `after` leaves, oldest first."""
        with self._lock:
            self._sync()
            return [h for h in self._heads if h.tree_size > after][:limit]

    def inclusion(self, subject: str, tree_size: int | None = None) -> dict[str, Any]:
        """A game's or tournament's leaf and its audit path to a signed head."""
        with self._lock:
            self._sync()
            return self._inclusion(subject, tree_size)

    def _inclusion(self, subject: str, tree_size: int | None) -> dict[str, Any]:
        head = self._head(tree_size)
        index = self._index.get(subject)
        if index is None:
            raise NotFound("not_in_log", f"{subject} has not ended: it is not in the log")
        if index >= head.tree_size:
            raise Unprocessable(
                "invalid_tree_size", f"leaf {index} came after the head of {head.tree_size}"
            )
        path = merkle.inclusion_path(self._tree.subtree, index, head.tree_size)
        return {
            "leaf_index": index,
            "leaf": leaf_out(self._leaves[index]),
            "head": head_out(head),
            "inclusion": [p.hex() for p in path],
        }

    def leaf(self, subject: str) -> LeafAppended | None:
        """A game's or tournament's leaf, as this process holds it: a log that refuses to
        sign still holds the leaves it vouched for, which is what an audit compares with."""
        with self._lock:
            self._sync_held()
            index = self._index.get(subject)
            return None if index is None else self._leaves[index]

    def held(self, start: int, limit: int) -> list[LeafAppended]:
        """The stored leaves from leaf `start` on, as this process holds them (read, never
        appended: the sentinel's reads sign nothing)."""
        with self._lock:
            self._refresh()
            return self._leaves[start : start + limit]

    def size(self) -> int:
        """How many leaves this process holds."""
        return len(self._leaves)

    def _sync_held(self) -> None:
        with contextlib.suppress(LogRefused):  # (said in the log where it was found)
            self._sync()

    def consistency(self, first: int, second: int) -> list[str]:
        """The proof that the tree of `second` leaves extends the tree of `first`."""
        with self._lock:
            self._sync()
            size = self._head(None).tree_size
            if not 0 <= first <= second <= size:
                raise Unprocessable(
                    "invalid_tree_size", f"sizes must be 0 <= first <= second <= {size}"
                )
            proof = merkle.consistency_proof(self._tree.subtree, first, second)
        return [p.hex() for p in proof]

    def seal(self, export: list[dict[str, Any]], tree_size: int | None = None) -> None:
        """Sign an ended export's header and final hash, and add the inclusion proof of its
        leaf to its footer (docs/export-format.md); an export without a footer is left."""
        header, footer = export[0], export[-1]
        if len(export) < 3 or "version" in footer:
            return
        final_hash = str(export[-2].get("hash"))
        footer["signature"] = self.signer.sign(
            lambda key_id: export_statement(header, final_hash, key_id)
        )
        subject = str(header.get("id"))
        with self._lock:
            self._sync()
            logged = subject in self._index
            footer["transparency"] = self._inclusion(subject, tree_size) if logged else None


class _Type(msgspec.Struct, array_like=True):
    """A packed game event's first two items (service/store.py): its format, its type."""

    format: int
    type: str


class _JsonType(msgspec.Struct):
    type: str


_packed_type = msgspec.msgpack.Decoder(_Type)
_json_type = msgspec.json.Decoder(_JsonType)


def _type_of(state: bytes) -> str:
    """A stored game event's type, read without decoding the rest of it (the scan reads
    every event; only endings are decoded whole)."""
    return (_json_type if state[:1] == b"{" else _packed_type).decode(state).type


def _kind(event_type: str) -> LeafKind | None:
    if event_type in ENDINGS:
        return "game"
    return "tournament" if event_type == TOURNAMENT_FINISHED else None


def _leaf_hash(leaf: LeafAppended) -> bytes:
    return merkle.leaf_hash(leaf_data(leaf.kind, leaf.subject, leaf.final_hash))


_logs: weakref.WeakKeyDictionary[EventStoreApp, TransparencyLog] = weakref.WeakKeyDictionary()
_logs_lock = threading.Lock()


def log_of(store: EventStoreApp) -> TransparencyLog:
    """The log (and its signer) of an open store: one per store in a process, so that its
    leaves are read once."""
    with _logs_lock:
        found = _logs.get(store)
        if found is None:
            found = _logs[store] = TransparencyLog(store, Signer(store))
        return found

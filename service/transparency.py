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
"""

from __future__ import annotations

import threading
import uuid
import weakref
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import structlog
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import RecordConflictError
from eventsourcing.utils import get_topic
from pymerkle import BaseMerkleTree

from service import merkle
from service.chain import export_statement, head_statement, leaf_data, now_text
from service.errors import NotFound, Unprocessable
from service.fold import ENDINGS, UNREADABLE
from service.signing import Signer
from service.store import EventStoreApp, Recorded

log = structlog.get_logger("tabletop.transparency")

_NAMESPACE = uuid.UUID("9b2f4d1a-0c6e-4a57-8d3b-2e5f6a7c8d90")
LEAVES_STREAM = uuid.uuid5(_NAMESPACE, "transparency-leaves")
HEADS_STREAM = uuid.uuid5(_NAMESPACE, "transparency-heads")
TOURNAMENT_FINISHED = "tournament_finished"
PAGE = 1000  # notifications read at a time
_RECORDED = get_topic(Recorded)


@dataclass(frozen=True)
class LeafAppended(DomainEvent):
    """Leaf `originator_version - 1` of the log."""

    kind: LeafKind
    subject: str  # the game's or tournament's id
    final_hash: str  # the hash of its last event
    position: int  # that event's notification id: the log's order


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

    # ---- appending ---------------------------------------------------------------------------

    def sync(self) -> None:
        """Append every ending not in the log yet, and sign a head over the new size."""
        with self._lock:
            self._sync()

    def follow(self, stop: threading.Event, every: float = 1.0) -> None:
        """Keep the log caught up until `stop` (a thread of `tabletop serve`): a game is
        logged within about `every` seconds of its end even when nobody reads the log,
        which narrows the time in which it could be rewritten before it is logged."""
        while not stop.wait(every):
            try:
                self.sync()
            except Exception:  # the store away for a moment: the next round catches up
                log.exception("transparency_sync_failed")

    def _sync(self) -> None:
        """(`sync` under the lock: the reads below hold it too, so that none sees the tree
        while a head is being computed.)"""
        for _ in range(10):
            self._refresh()
            start = max(self._scanned, self._leaves[-1].position if self._leaves else 0)
            endings, scanned = self._endings_after(start)
            leaves = [
                LeafAppended(
                    originator_id=LEAVES_STREAM,
                    originator_version=len(self._leaves) + i + 1,
                    timestamp=LeafAppended.create_timestamp(),
                    kind=kind,
                    subject=subject,
                    final_hash=final_hash,
                    position=position,
                )
                for i, (kind, subject, final_hash, position) in enumerate(endings)
            ]
            size = len(self._leaves) + len(leaves)
            if not leaves and self._heads and self._heads[-1].tree_size == size:
                self._scanned = scanned
                return
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

    def _endings_after(self, start: int) -> tuple[list[tuple[LeafKind, str, str, int]], int]:
        """(kind, id, final hash, position) of each ending after `start`, in log order, and
        the last position read."""
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
                        endings.append((kind, subject, final_hash, notification.id))
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
        for event in self._store.events.get(LEAVES_STREAM, gt=len(self._leaves) or None):
            assert isinstance(event, LeafAppended), "the leaves stream holds leaves"
            self._index.setdefault(event.subject, len(self._leaves))
            self._leaves.append(event)
            self._tree.hashes.append(_leaf_hash(event))
        for event in self._store.events.get(HEADS_STREAM, gt=len(self._heads) or None):
            assert isinstance(event, HeadSigned), "the heads stream holds heads"
            self._heads.append(event)
            self._by_size.setdefault(event.tree_size, event)

    # ---- reading -----------------------------------------------------------------------------

    def head(self, tree_size: int | None = None) -> HeadSigned:
        """The latest signed head, or the one signed over `tree_size` leaves."""
        with self._lock:
            self._sync()
            return self._head(tree_size)

    def _head(self, tree_size: int | None) -> HeadSigned:
        if tree_size is None:
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

    def consistency(self, first: int, second: int) -> list[str]:
        """The proof that the tree of `second` leaves extends the tree of `first`."""
        with self._lock:
            self._sync()
            size = self._heads[-1].tree_size
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

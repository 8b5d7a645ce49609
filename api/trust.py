"""What lets a client check the operator (docs/trust.md): the signing keys, and the
transparency log's signed tree heads, inclusion proofs and consistency proofs."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Request, Response, get
from litestar.params import FromPath, QueryParameter

from api.bootstrap import Shared
from api.errors import documented
from api.paging import LINK, next_link
from service.signing import public_out
from service.transparency import head_out, log_of

Size = Annotated[int, QueryParameter(ge=0, le=2**62)]
SomeSize = Annotated[int | None, QueryParameter(ge=0, le=2**62)]


class KeyOut(msgspec.Struct, kw_only=True):
    """One of the service's Ed25519 public keys."""

    key_id: str  # the first 16 hex digits of the SHA-256 of the raw public key
    algorithm: str  # ed25519
    public_key: str  # the raw 32-byte public key, hex
    created_at: str  # when the key was made (RFC 3339, UTC)
    current: bool  # signs from now on; the others verify what they signed before


class KeysOut(msgspec.Struct):
    """The service's public keys: save them for `tabletop verify --key`."""

    keys: list[KeyOut]  # oldest first: the last is the current one


class HeadOut(msgspec.Struct, kw_only=True):
    """A signed tree head of the transparency log."""

    tree_size: int  # how many leaves (ended games and finished tournaments) the tree holds
    root_hash: str  # RFC 9162 Merkle tree hash of the first tree_size leaves, hex
    timestamp: str  # when the head was signed (RFC 3339, UTC)
    key_id: str  # the key that signed it (GET /v1/keys)
    signature: str  # Ed25519 over the head's canonical JSON without `signature`, hex


class HeadsOut(msgspec.Struct):
    """Signed tree heads of the transparency log."""

    heads: list[HeadOut]  # those over more than `after` leaves, oldest first, at most `limit`


class LeafOut(msgspec.Struct, kw_only=True):
    """A leaf of the transparency log: the end of a game or a tournament."""

    kind: str  # game | tournament
    id: str  # the game's or the tournament's id
    # The `hash` (hex) of its ending event in its export (game_finished, game_aborted or
    # tournament_finished), which covers every event before it.
    final_hash: str


class InclusionOut(msgspec.Struct, kw_only=True):
    """A leaf, and the proof that a signed tree head includes it."""

    leaf_index: int  # the leaf's place in the log, from 0
    leaf: LeafOut  # what the leaf holds
    head: HeadOut  # the head the proof leads to: the latest, or the one over `tree_size`
    inclusion: list[str]  # RFC 9162 audit path, from the leaf up, hex


class LogLeaf(msgspec.Struct, kw_only=True):
    """A leaf of the transparency log, with its place in it."""

    leaf_index: int  # the leaf's place in the log, from 0
    kind: str  # game | tournament
    id: str  # the game's or the tournament's id
    # The `hash` (hex) of its ending event in its export (game_finished, game_aborted or
    # tournament_finished).
    final_hash: str
    # That event's version: how many events the record held when it ended (outside the
    # leaf's hash, which covers kind, id and final_hash); null in leaves logged before it
    # was kept.
    version: int | None = None


class LogLeaves(msgspec.Struct, kw_only=True):
    """Leaves of the transparency log, in its order."""

    tree_size: int  # the size of the signed head read: the latest, or `tree_size` as asked
    leaves: list[LogLeaf]  # from leaf `start` on, at most `limit`, all below `tree_size`
    next_start: int | None  # pass as `start` for the next page; null on the last page


class ConsistencyOut(msgspec.Struct, kw_only=True):
    """The proof that a larger tree of the log extends a smaller one."""

    first: int  # the smaller tree's size (leaves), as asked
    second: int  # the larger tree's size (leaves), as asked
    proof: list[str]  # RFC 9162 consistency proof, hex


@get(
    "/v1/keys",
    operation_id="listKeys",
    tags=["trust"],
    sync_to_thread=True,
    responses=documented(),
)
def list_keys(tabletop: Shared) -> KeysOut:
    """The service's Ed25519 public keys: the current one signs exports and tree heads; an
    older (rotated) one still verifies what it signed. Save this for `tabletop verify --key`.

    Example: GET /v1/keys"""
    keys = log_of(tabletop.store).signer.published()
    out = [public_out(k, i == len(keys) - 1) for i, k in enumerate(keys)]
    return KeysOut([msgspec.convert(k, KeyOut) for k in out])


@get(
    "/v1/transparency/head",
    operation_id="getTreeHead",
    tags=["trust"],
    sync_to_thread=True,
    responses=documented(400, 404),
)
def tree_head(tabletop: Shared, tree_size: SomeSize = None) -> HeadOut:
    """The latest signed tree head of the transparency log (every ended game and finished
    tournament, by final hash), or the one signed over `tree_size` leaves (404
    `head_not_found` if none was). `tabletop monitor` checks each against the last it saved.
    503 `log_inconsistent` when the stored log no longer extends the tree this server holds
    (rewritten under it), `log_signer_lost` when it lost the log's lock with games to log:
    it answers no head of a tree the store does not hold.

    Example: GET /v1/transparency/head"""
    head = log_of(tabletop.store).head(tree_size)
    return msgspec.convert(head_out(head), HeadOut)


@get(
    "/v1/transparency/heads",
    operation_id="listTreeHeads",
    tags=["trust"],
    sync_to_thread=True,
    responses=documented(400),
)
def tree_heads(
    tabletop: Shared,
    after: Size = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
) -> HeadsOut:
    """The signed heads over more than `after` leaves, oldest first.

    Example: GET /v1/transparency/heads?after=0"""
    heads = log_of(tabletop.store).heads(after, limit)
    return HeadsOut([msgspec.convert(head_out(h), HeadOut) for h in heads])


@get(
    "/v1/transparency/inclusion/{subject_id:uuid}",
    operation_id="getInclusionProof",
    tags=["trust"],
    sync_to_thread=True,
    responses=documented(400, 404, 422),
)
def inclusion(
    tabletop: Shared, subject_id: FromPath[UUID], tree_size: SomeSize = None
) -> InclusionOut:
    """The leaf of an ended game or finished tournament and its audit path to the latest
    signed head (or the head over `tree_size` leaves). 404 `not_in_log` before it ends.

    Example: GET /v1/transparency/inclusion/{subject_id}"""
    proof = log_of(tabletop.store).inclusion(str(subject_id), tree_size)
    return msgspec.convert(proof, InclusionOut)


@get(
    "/v1/transparency/consistency",
    operation_id="getConsistencyProof",
    tags=["trust"],
    sync_to_thread=True,
    responses=documented(400, 422),
)
def consistency(tabletop: Shared, first: Size, second: Size) -> ConsistencyOut:
    """The proof that the tree of `second` leaves extends the tree of `first` leaves by
    appending only (422 `invalid_tree_size` unless 0 <= first <= second <= the log's size).

    Example: GET /v1/transparency/consistency?first=1&second=2"""
    proof = log_of(tabletop.store).consistency(first, second)
    return ConsistencyOut(first=first, second=second, proof=proof)


@get(
    "/v1/transparency/leaves",
    operation_id="listLogLeaves",
    tags=["trust"],
    sync_to_thread=True,
    response_headers=[LINK],
    responses=documented(400, 404),
)
def log_leaves(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    start: Annotated[int, QueryParameter(ge=0, le=2**62)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 1000,
    tree_size: SomeSize = None,
) -> Response[LogLeaves]:
    """The transparency log's leaves from leaf `start` on, in its order, below the latest
    signed head (or the head over `tree_size` leaves: 404 `head_not_found` if none was).
    With the head and the keys, they make the file `tabletop ratings recompute --log` reads
    (docs/ratings.md); the next page is `next_start`, and `Link: <...>; rel="next"`.

    Example: GET /v1/transparency/leaves?start=0&limit=1000"""
    head, found = log_of(tabletop.store).leaves(start, limit, tree_size)
    leaves = [
        LogLeaf(
            leaf_index=start + i,
            kind=e.kind,
            id=e.subject,
            final_hash=e.final_hash,
            version=e.version or None,
        )
        for i, e in enumerate(found)
    ]
    end = start + len(leaves)
    next_start = end if end < head.tree_size else None
    body = LogLeaves(tree_size=head.tree_size, leaves=leaves, next_start=next_start)
    return Response(body, headers=next_link(request, start=next_start))


ROUTES = [list_keys, tree_head, tree_heads, inclusion, consistency, log_leaves]

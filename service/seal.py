"""Checking what the service signs, from exports and heads alone (`tabletop verify --key`,
`tabletop monitor`): an export footer's signature over its header and final hash, its
inclusion proof against a signed tree head, and one head's consistency with a later one.

Each check says what it found; "unchecked" says why it could not be done, which is never a
pass: with keys given, only "valid" everywhere verifies.
"""

from __future__ import annotations

from typing import Any

import msgspec

from service import merkle
from service.chain import export_statement, head_statement, leaf_data
from service.fold import ENDINGS
from service.signing import signature_valid
from service.transparency import TOURNAMENT_FINISHED

Keys = dict[str, str]  # key id -> public key (hex)
LOGGED_ENDINGS = {*ENDINGS, TOURNAMENT_FINISHED}  # what the transparency log records


class Seal(msgspec.Struct, kw_only=True):
    signature: str  # valid | invalid | absent | unchecked
    key_id: str | None = None
    inclusion: str  # valid | invalid | absent
    leaf_index: int | None = None
    tree_size: int | None = None
    head_signature: str  # valid | invalid | absent | unchecked
    saved_head: str | None = None  # same | differs | None (no saved head given)
    ok: bool = False
    detail: list[str] = []


def check_export(
    lines: list[dict[str, Any]], kind: str, keys: Keys | None, saved: dict[str, Any] | None
) -> Seal:
    """The seal of an export (`kind`: "game" or "tournament"). With `keys`, it passes only
    when the signature, the inclusion proof and its head's signature are all valid; with a
    `saved` head, only when the proof is against that very head."""
    header = lines[0] if lines else {}
    footer = lines[-1] if len(lines) > 2 and "version" not in lines[-1] else {}
    final_hash = str(lines[-2].get("hash")) if footer else ""
    # the log holds the hash of the ending: a rematch offered later chains after it
    ending: dict[str, Any] = next(
        (x for x in reversed(lines) if x.get("type") in LOGGED_ENDINGS), {}
    )
    ended_hash = str(ending.get("hash", final_hash))
    seal = Seal(signature="absent", inclusion="absent", head_signature="absent")
    signed = footer.get("signature")
    if isinstance(signed, dict):
        seal.key_id = signed.get("key_id")
        statement = export_statement(header, final_hash, str(seal.key_id))
        seal.signature = _signed(keys, seal.key_id, statement, signed.get("signature"), seal)
    else:
        seal.detail.append("the export carries no signature (an older or unfinished export)")
    proof = footer.get("transparency")
    head: dict[str, Any] = {}
    if isinstance(proof, dict):
        given = proof.get("head")
        head = given if isinstance(given, dict) else {}
        seal.leaf_index, seal.tree_size = proof.get("leaf_index"), head.get("tree_size")
        seal.inclusion = _included(proof, head, kind, str(header.get("id")), ended_hash, seal)
        seal.head_signature = check_head(head, keys, seal)
    else:
        seal.detail.append("the export carries no inclusion proof")
    if saved is not None:
        same = _fields(saved) == _fields(head)
        seal.saved_head = "same" if same else "differs"
        if not same:
            seal.detail.append(
                f"the proof is against the head of {head.get('tree_size')} leaves, not the "
                f"saved one of {saved.get('tree_size')}: export again with "
                f"?tree_size={saved.get('tree_size')}"
            )
    checks = [seal.signature, seal.inclusion, seal.head_signature]
    seal.ok = "invalid" not in checks and seal.saved_head != "differs"
    if keys is not None:
        seal.ok = seal.ok and all(c == "valid" for c in checks)
    return seal


def check_head(head: dict[str, Any], keys: Keys | None, seal: Seal | None = None) -> str:
    """valid | invalid | unchecked | absent: a signed tree head's signature."""
    signature = head.get("signature")
    if not isinstance(signature, str):
        return "absent"
    return _signed(keys, head.get("key_id"), head_statement(head), signature, seal)


def consistent(old: dict[str, Any], new: dict[str, Any], proof: list[str]) -> bool:
    """Whether the head `new` extends the head `old` (RFC 9162 consistency proof)."""
    try:
        return merkle.verify_consistency(
            int(old["tree_size"]),
            int(new["tree_size"]),
            [bytes.fromhex(p) for p in proof],
            bytes.fromhex(old["root_hash"]),
            bytes.fromhex(new["root_hash"]),
        )
    except (KeyError, TypeError, ValueError):
        return False


def _signed(
    keys: Keys | None, key_id: Any, statement: bytes, signature: Any, seal: Seal | None
) -> str:
    if keys is None:
        _say(seal, "no key given (--key): signatures are not checked")
        return "unchecked"
    public = keys.get(str(key_id))
    if public is None:
        _say(seal, f"signed by key {key_id}, which is not among the keys given")
        return "unchecked"
    return "valid" if signature_valid(public, statement, str(signature)) else "invalid"


def _included(
    proof: dict[str, Any],
    head: dict[str, Any],
    kind: str,
    subject: str,
    final_hash: str,
    seal: Seal,
) -> str:
    leaf = {"kind": kind, "id": subject, "final_hash": final_hash}
    if proof.get("leaf") != leaf:
        seal.detail.append(
            "the log holds another final hash for it: the log does not vouch for these events"
        )
        return "invalid"
    try:
        included = merkle.verify_inclusion(
            merkle.leaf_hash(leaf_data(kind, subject, final_hash)),
            int(proof["leaf_index"]),
            int(head["tree_size"]),
            [bytes.fromhex(p) for p in proof["inclusion"]],
            bytes.fromhex(head["root_hash"]),
        )
    except (KeyError, TypeError, ValueError):
        included = False
    if not included:
        seal.detail.append("the inclusion proof does not lead to the head's root")
    return "valid" if included else "invalid"


def _fields(head: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(head.get(k) for k in ("tree_size", "root_hash", "key_id", "signature"))


def _say(seal: Seal | None, detail: str) -> None:
    if seal is not None and detail not in seal.detail:
        seal.detail.append(detail)

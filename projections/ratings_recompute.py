"""Every rating from public data alone (`tabletop ratings recompute`, docs/ratings.md): the
transparency log (a signed head and its leaves) and the games' signed exports.

The head's signature is checked with the service's public keys, and the leaves against its
root, so the order and the set of ended games are the log's. Each game leaf's export must
chain, event by event, up to its ending, whose hash must be the leaf's: so the export is the
game the log committed. The rated ones (`game_created` says `rated`, the ending is
`game_finished`) are then folded and rated in leaf order by the projection's own code
(projections/ratings.py), which gives the API's ratings bit for bit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from projections.ratings import Ratings, ordinal, provisional
from service import merkle
from service.audit import fold_lines, verify
from service.chain import GENESIS, leaf_data, line_hash
from service.fold import ENDINGS, GAME_CREATED, GAME_FINISHED, UNREADABLE
from service.seal import Keys, check_head

KINDS = ("game", "tournament")  # what a leaf logs the end of


class Refused(Exception):
    """The public data does not check: what is wrong, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def read_log(text: str) -> tuple[dict[str, Any], Any, list[dict[str, Any]]]:
    """(head, keys as GET /v1/keys answers them or None, leaves) of a log file:
    `{"head": ..., "keys": ..., "leaves": [...]}` (docs/ratings.md)."""
    try:
        found = json.loads(text)
    except json.JSONDecodeError as error:
        raise Refused([f"the log file is not JSON: {error}"]) from None
    if not isinstance(found, dict):
        raise Refused(["the log file is not a JSON object"])
    head, leaves = found.get("head"), found.get("leaves")
    if not isinstance(head, dict) or not isinstance(leaves, list):
        raise Refused(["the log file needs `head` (an object) and `leaves` (a list)"])
    return head, found.get("keys"), leaves


def mth(hashes: list[bytes]) -> bytes:
    """RFC 9162's Merkle tree hash of the leaf hashes."""
    if not hashes:
        return hashlib.sha256(b"").digest()
    if len(hashes) == 1:
        return hashes[0]
    k = 1
    while k * 2 < len(hashes):
        k *= 2
    return merkle.node_hash(mth(hashes[:k]), mth(hashes[k:]))


def check_log(head: dict[str, Any], keys: Keys, leaves: list[Any]) -> list[str]:
    """What is wrong with the head's signature and the leaves (none: they are the log)."""
    problems = []
    if check_head(head, keys) != "valid":
        problems.append("the head's signature does not verify with the keys given")
    size = head.get("tree_size")
    if not isinstance(size, int) or len(leaves) != size:
        problems.append(f"the head is over {size} leaves; the file has {len(leaves)}")
    hashes = []
    for index, leaf in enumerate(leaves):
        if not _is_leaf(leaf) or leaf.get("leaf_index", index) != index:
            problems.append(f"leaf {index} is not a leaf of the log (kind, id, final_hash)")
            continue
        hashes.append(merkle.leaf_hash(leaf_data(leaf["kind"], leaf["id"], leaf["final_hash"])))
    if not problems and mth(hashes).hex() != head.get("root_hash"):
        problems.append("the leaves do not hash to the head's root: they are not its log")
    return problems


def _is_leaf(leaf: Any) -> bool:
    return (
        isinstance(leaf, dict)
        and leaf.get("kind") in KINDS
        and all(isinstance(leaf.get(k), str) for k in ("id", "final_hash"))
    )


def chained_to(lines: list[dict[str, Any]], leaf: dict[str, Any]) -> tuple[str | None, int]:
    """(what is wrong or None, the ending's version): the export's events must chain from
    the first to its ending, whose hash must be the leaf's final hash."""
    if not all(isinstance(line, dict) for line in lines):
        return "a line of it is not a JSON object", 0
    if not lines or lines[0].get("id") != leaf["id"]:
        return "its header names another game", 0
    previous = GENESIS
    for number, line in enumerate(lines[1:], start=1):
        if line.get("version") != number or line.get("prev_hash") != previous:
            return f"its chain breaks at version {number}", 0
        if line_hash(line) != line.get("hash"):
            return f"version {number} does not hash to its `hash`", 0
        if line.get("type") in ENDINGS:
            if line["hash"] != leaf["final_hash"]:
                return "its ending is not the one the log recorded (final hash)", 0
            return None, number
        previous = line["hash"]
    return "it has no ending", 0


def recompute(
    leaves: list[dict[str, Any]],
    export_of: Callable[[str], list[dict[str, Any]] | None],
    audit: bool = False,
) -> list[dict[str, Any]]:
    """Every rating after the log's rated games, applied in leaf order: one line per game
    type and participant. `export_of(id)` reads a game's export (None: there is none);
    `audit` also re-executes each rated game (service/audit.py). Refused when a game leaf
    has no export, or an export that is not the logged game."""
    ratings = Ratings(lambda game, who: None)  # from nothing: every rating starts new
    problems = []
    for index, leaf in enumerate(leaves):
        if leaf["kind"] != "game":
            continue  # a tournament's games are leaves of their own
        lines = export_of(leaf["id"])
        if lines is None:  # unseen, it may be rated: nothing after it could be trusted
            problems.append(f"leaf {index}: no export of game {leaf['id']}")
            continue
        wrong, version = chained_to(lines, leaf)
        if wrong is not None:
            problems.append(f"leaf {index}: the export of {leaf['id']}: {wrong}")
            continue
        created, ending = lines[1], lines[version]
        rated = created.get("type") == GAME_CREATED and (created.get("data") or {}).get("rated")
        if not rated or ending.get("type") != GAME_FINISHED:
            continue
        if audit and not verify(lines).verified:
            problems.append(f"leaf {index}: {leaf['id']} does not verify (tabletop verify)")
            continue
        if problems:
            continue  # rating on would apply games out of the log's order: only report
        try:
            ratings.rate(fold_lines(lines, version))
        except UNREADABLE as error:
            problems.append(f"leaf {index}: {leaf['id']} does not fold: {error!r}")
    if problems:
        raise Refused(problems)
    return [
        {"game": game, "participant": who, "name": ratings.names[(game, who)], "mu": mu,
         "sigma": sigma, "ordinal": ordinal(mu, sigma), "games": games,
         "provisional": provisional(sigma)}
        for (game, who), (mu, sigma, games) in sorted(ratings.known().items())
    ]  # fmt: skip


def exports_in(directory: Path) -> Callable[[str], list[dict[str, Any]] | None]:
    """A reader of `<game id>.ndjson` files in `directory` (GET /v1/games/{id}/export)."""

    def export_of(game_id: str) -> list[dict[str, Any]] | None:
        path = directory / f"{game_id}.ndjson"
        if path.parent != directory or not path.is_file():  # (an id is a UUID, never a path)
            return None
        try:
            text = path.read_text("utf-8")
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise Refused([f"{path}: not an NDJSON export ({error})"]) from None

    return export_of

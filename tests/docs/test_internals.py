"""docs/internals.md names files and functions (`path.py::Class.method`): each must exist,
so the maintainer's map stays true as the code changes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`([\w/]+\.py)::([\w.]+)`")


def _defines(source: str, dotted: str) -> bool:
    """Whether the module defines `dotted` (a function, class, or a class's method)."""
    scope: list[ast.stmt] = ast.parse(source).body
    for part in dotted.split("."):
        found = next(
            (
                node
                for node in scope
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == part
            ),
            None,
        )
        if found is None:
            return False
        scope = found.body
    return True


def test_every_named_file_and_function_exists() -> None:
    text = (ROOT / "docs" / "internals.md").read_text()
    named = NAMED.findall(text)
    assert len(named) >= 40, "the map names the code it walks through"
    missing = [
        f"{path}::{name}"
        for path, name in named
        if not (ROOT / path).is_file() or not _defines((ROOT / path).read_text(), name)
    ]
    assert not missing, f"docs/internals.md names what does not exist: {missing}"


def test_the_check_finds_what_is_missing() -> None:
    source = "class A:\n    def b(self): ...\n\nasync def c(): ...\n"
    assert _defines(source, "A.b") and _defines(source, "c")
    assert not _defines(source, "A.c") and not _defines(source, "d")

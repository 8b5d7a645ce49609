"""Every problem `code` the API can answer, read from the code itself (its syntax tree), for
the table in docs/api.md: each refusal raised with a constant code, by its HTTP status, and
the rules' `illegal_move.*` reasons. `python -m api.openapi` writes the table."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import api.errors

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("api", "service", "projections", "domain")
# Refusals whose class sets no status of its own: the rules' (422, as the API answers them).
RULES = {"RuleError": 422, "BotSpecError": 422, "illegal": 422}
ILLEGAL = "illegal_move."


def _problem_classes() -> dict[str, int]:
    """Name -> status of every class with a `status = N` (service/errors.py and the API's)."""
    statuses: dict[str, int] = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if (
                    isinstance(item, ast.Assign)
                    and [getattr(t, "id", None) for t in item.targets] == ["status"]
                    and isinstance(item.value, ast.Constant)
                    and isinstance(item.value.value, int)
                ):
                    statuses[node.name] = item.value.value
    return statuses


def _sources() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def codes() -> dict[str, tuple[int, list[str]]]:
    """code -> (status, the modules that raise it)."""
    raisers = {**_problem_classes(), **RULES}
    found: dict[str, tuple[int, set[str]]] = {}

    def add(code: str, status: int, module: str) -> None:
        _, modules = found.setdefault(code, (status, set()))
        modules.add(module)

    code: str | None
    for status, code in api.errors._CODES.items():
        add(code, status, "api/errors.py")
    for path in _sources():
        module = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            first = node.args[0]
            if name == "problem" and len(node.args) > 1:  # problem(status, code, detail)
                status_node, first = node.args[0], node.args[1]
                if isinstance(status_node, ast.Constant) and _text(first):
                    # the status is an int literal in every call
                    add(str(_text(first)), int(cast(int, status_node.value)), module)
                continue
            code = _text(first)
            if name not in raisers or code is None:
                continue
            add(ILLEGAL + code if name == "illegal" else code, raisers[name], module)
    return {c: (s, sorted(m)) for c, (s, m) in sorted(found.items())}


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value and " " not in node.value else None
    return None


def table() -> str:
    """The Markdown of docs/api.md's code list: the service's codes, then the rules'."""
    found = codes()
    service = [(c, s, m) for c, (s, m) in found.items() if not c.startswith(ILLEGAL)]
    rules = [(c, m) for c, (_, m) in found.items() if c.startswith(ILLEGAL)]
    lines = ["| code | status | raised in |", "|---|---|---|"]
    lines += [f"| `{c}` | {s} | {', '.join(f'`{x}`' for x in m)} |" for c, s, m in service]
    lines += [
        "",
        "A move the rules refuse answers 422 with `illegal_move.<reason>`; the games use "
        "these reasons:",
        "",
        ", ".join(f"`{c.removeprefix(ILLEGAL)}`" for c, _ in rules) + ".",
    ]
    return "\n".join(lines)

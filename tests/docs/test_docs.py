"""docs/ stays true: nothing in the repository points outside it (nor does a comment cite a
rules text it does not hold), every relative link resolves, the design's worked example of
the hash chain checks by its own recipe, and what `make openapi` generates (the OpenAPI
document, the per-game pages, the code table) is what is committed."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import openapi
from service.chain import line_hash

ROOT = Path(__file__).resolve().parents[2]
# What pointed outside the repository: the working material's folder and files, the rules
# texts' sections, machine paths.
OUTSIDE = re.compile(
    r"\.\./shared|\bshared/|DESIGN\.md|API\.md|\brules/[a-z-]+\.md|§|/work/|/home/"
)
# What a comment, docstring or message said of a rules text the repository does not hold ("the
# spec", "the spec's examples", "rulebook section"); the rules are the games' pages and
# rulings.py. A bot's or a clock's "spec" is not one of them.
RULES_TEXT = re.compile(
    r"\bthe spec\b|\bspec's|\bspecs? (?:worked|invariants?|examples?|rulings?|sections?)\b"
    r"|\brules? specs?\b|\bspecification\b|\brulebook's worked|(?-i:\b[A-Z][a-z]+ spec\b)"
    r"|\b(?:rulebook|rules|spec)(?:'s)? (?:section|chapter)s?\b",
    re.I,
)
CODE = ("domain", "service", "api", "projections", "tabletop", "tests")


def _tracked() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / n for n in names if n != "uv.lock" and (ROOT / n).is_file()]


def test_nothing_points_outside_the_repository() -> None:
    found = []
    for path in _tracked():
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line) and path != Path(__file__):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_pointer_check_sees_each_kind_of_pointer() -> None:
    for line in ["see ../shared/API.md", "(spec §4.2)", "rules/caylus.md", "/work/main/x.py"]:
        assert OUTSIDE.search(line), line


def _comments_and_strings(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of the file's comments and string literals."""
    source = io.StringIO(path.read_text("utf-8"))
    for token in tokenize.generate_tokens(source.readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for offset, text in enumerate(token.string.splitlines()):
                yield token.start[0] + offset, text


def test_no_comment_or_docstring_points_to_a_rules_text_outside() -> None:
    found = []
    for path in _tracked():
        top = path.relative_to(ROOT).parts[0]
        if path.suffix != ".py" or top not in CODE or path == Path(__file__):
            continue
        for number, text in _comments_and_strings(path):
            if RULES_TEXT.search(text):
                found.append(f"{path.relative_to(ROOT)}:{number}: {text.strip()}")
    assert not found, "\n".join(found)


def test_the_rules_text_check_sees_each_kind_of_pointer() -> None:
    pointers = ["The spec's worked examples", "Spec invariants, checked", "the rules spec"]
    pointers += ["as the spec says", "see rulebook section 4", "the specification"]
    pointers += ["The rulebook's worked examples", "the Santa Maria spec has"]
    for line in pointers:
        assert RULES_TEXT.search(line), line
    for line in ["A spec is a bot name", "the bot a spec names", "a clock spec", "msgspec"]:
        assert not RULES_TEXT.search(line), line


def test_every_relative_link_in_the_docs_resolves() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} -> {target}"


def test_the_design_worked_example_checks_by_its_recipe() -> None:
    design = (ROOT / "docs" / "design.md").read_text("utf-8")
    example = design[design.index("A worked example") :]
    fences = re.findall(r"^```(\w*)\n(.*?)\n```$", example, re.S | re.M)
    (_, shown), (_, canonical), (_, stated) = fences[:3]
    line = json.loads(shown)
    assert json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == canonical
    digest = hashlib.sha256(line["prev_hash"].encode() + canonical.encode()).hexdigest()
    assert digest == stated == line_hash(line)
    assert hashlib.sha256(bytes(32)).hexdigest() == line["data"]["seed_commitment"]


def test_what_make_openapi_generates_is_committed() -> None:
    """`make openapi-check` in a process of its own (this one hosts the tests' games too)."""
    check = subprocess.run(
        [sys.executable, "-m", "api.openapi", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stderr


def test_openapi_check_fails_on_a_drifted_page_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hosted = {
        tmp_path / p.name: text_of
        for p, text_of in openapi.generated().items()
        if p.parent == openapi.PAGES and p.exists()
    }
    for path in hosted:
        path.write_text((openapi.PAGES / path.name).read_text("utf-8"))
    monkeypatch.setattr(openapi, "generated", lambda: hosted)
    monkeypatch.setattr(openapi, "PAGES", tmp_path)
    monkeypatch.setattr(openapi, "ROOT", tmp_path)
    monkeypatch.setattr("sys.argv", ["api.openapi", "--check"])
    assert len(hosted) == 4 and openapi.main() == 0
    drifted = tmp_path / "caylus.md"
    drifted.write_text(drifted.read_text("utf-8").replace("Caylus", "Caylous", 1))
    assert openapi.main() == 1
    assert "Caylous" in drifted.read_text("utf-8")

"""Write or check what is generated from the code and committed: the OpenAPI document, a
page per game (docs/games/<game>.md) and the problem codes of docs/api.md.
`python -m api.openapi [--check]`: `--check` changes nothing and fails on any difference."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from api.app import create_app
from api.bootstrap import Tabletop
from api.game_pages import PAGES, page
from api.problem_codes import table
from api.typed_document import typed
from domain.contract import Game
from domain.registry import GAMES
from service.settings import Settings
from service.store import open_store

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi" / "openapi.json"
GUIDE = ROOT / "docs" / "api.md"
CLIENT_MODELS = ROOT / "clients" / "python" / "tabletop_client" / "models.py"
MODEL_OPTIONS = [
    *("--input-file-type", "openapi", "--output-model-type", "msgspec.Struct"),
    *("--target-python-version", "3.11", "--use-annotated", "--field-constraints"),
    *("--use-schema-description", "--use-field-description", "--use-union-operator"),
    *("--enum-field-as-literal", "all", "--disable-timestamp", "--use-standard-collections"),
]
CODES = re.compile(r"(<!-- codes: .*? -->\n)(?:.*?\n)?(<!-- /codes -->)", re.S)


def generate() -> str:
    app = create_app(Tabletop(open_store(Settings(sqlite_path=":memory:"))))
    schema = typed(app.openapi_schema.to_schema())
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def client_models() -> str:
    """clients/python's types: datamodel-code-generator's msgspec structs of the document
    (each game's answers a union tagged by `game`, its commands and events by `type`)."""
    with tempfile.TemporaryDirectory() as scratch:
        source, out = Path(scratch) / "openapi.json", Path(scratch) / "models.py"
        source.write_text(generate(), "utf-8")
        subprocess.run(
            [str(Path(sys.executable).parent / "datamodel-codegen"), *MODEL_OPTIONS,
             "--input", str(source), "--output", str(out)],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        text = out.read_text("utf-8")
    return f"# Generated from openapi/openapi.json by `make openapi`: do not edit.\n{text}"


def guide() -> str:
    """docs/api.md with its code table as the code has it now."""
    text = GUIDE.read_text("utf-8")
    if not CODES.search(text):
        raise SystemExit(f"{GUIDE} has lost its <!-- codes: ... --> block")
    return CODES.sub(lambda m: m[1] + table() + "\n" + m[2], text)


def generated() -> dict[Path, Callable[[], str]]:
    """Every generated file and what writes it."""
    files: dict[Path, Callable[[], str]] = {
        DOCUMENT: generate,
        GUIDE: guide,
        CLIENT_MODELS: client_models,
    }
    for name in sorted(GAMES):

        def write_page(game: Game[Any, Any] = GAMES[name]) -> str:
            return page(game)

        files[PAGES / f"{name}.md"] = write_page
    return files


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for path, text_of in generated().items():
        text = text_of()
        if path.exists() and path.read_text("utf-8") == text:
            continue
        if check:
            stale.append(path.relative_to(ROOT))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    extra = sorted(set(PAGES.glob("*.md")) - set(generated()))
    if check and (stale or extra):
        for path in [*stale, *(p.relative_to(ROOT) for p in extra)]:
            print(f"{path} differs from the code: run `make openapi`, commit it", file=sys.stderr)
        return 1
    for path in extra:  # a page of a game no longer hosted
        path.unlink()
        print(f"removed {path.relative_to(ROOT)}")
    if check:
        print("openapi/openapi.json, docs/api.md's codes and docs/games/ match the code")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Write or check the committed OpenAPI document: `python -m api.openapi [--check]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from api.app import Tabletop, create_app
from api.game_types import typed
from service.settings import Settings
from service.store import open_store

DOCUMENT = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def generate() -> str:
    app = create_app(Tabletop(open_store(Settings(sqlite_path=":memory:"))))
    schema = typed(app.openapi_schema.to_schema())
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    text = generate()
    if "--check" in sys.argv[1:]:
        if not DOCUMENT.exists() or DOCUMENT.read_text("utf-8") != text:
            print(
                f"{DOCUMENT} differs from the code: run `make openapi` and commit it",
                file=sys.stderr,
            )
            return 1
        print("openapi/openapi.json matches the code")
        return 0
    DOCUMENT.write_text(text, "utf-8")
    print(f"wrote {DOCUMENT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

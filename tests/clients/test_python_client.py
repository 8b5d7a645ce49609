"""clients/python stands alone: installed into a fresh virtual environment that holds only it
(and httpx and msgspec, its two dependencies), a bot run there in isolated mode, away from the
repository, plays each of the four games to the end against a live server, and every answer
it reads is of its game's own generated types. The server's code cannot even be imported
there. The generated types match the committed document (make openapi-check: test_docs)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.settings import Settings
from tests.conftest import LiveServer
from tests.support.document import DOCUMENTED, PREFIXES

ROOT = Path(__file__).resolve().parents[2]
HOSTED = [
    "caylus",
    "plus-ultra",
    "puerto-rico",
    "santa-maria",
]  # (the tests add games of their own)
UV = ROOT / ".uv" / "bin" / "uv"  # the Makefile's pinned uv
ALLOWED = {"tabletop-client", "httpx", "msgspec", "anyio", "certifi", "h11", "httpcore", "idna"}
ALLOWED |= {"sniffio", "typing-extensions", "exceptiongroup"}  # httpx's own dependencies

BOT = """
import json, random, sys
from tabletop_client import ApiError, Client, game_of, models

url, name = sys.argv[1], sys.argv[2]
prefix = "".join(w.capitalize() for w in name.split("-"))
rng = random.Random(7)
with Client(url) as api:
    api.register(f"py-bot-{name}")
    kind = next(t for t in api.game_types() if t.name == name)
    bots = {seat: "random" for seat in range(1, kind.min_players)}
    game = api.create_game(name, kind.min_players, seat=0, bots=bots)
    classes, moves = set(), set()
    while game.status == "active":
        classes |= {type(game).__name__, type(game.view).__name__}
        if 0 not in game.awaiting:  # the bots decide after the request: the long poll
            game = api.wait(game.id, game.version)
            continue
        legal = api.legal_moves(game.id)
        classes.add(type(legal).__name__)
        move = rng.choice(legal.moves)
        classes |= {type(m).__name__ for m in legal.moves}
        try:
            answer = api.move(game.id, legal.version, move)
            moves.add(type(move).__name__)
            classes |= {type(e.data).__name__ for e in answer.events}
        except ApiError as refused:  # a bot of a simultaneous decision moved first
            if refused.code != "version_conflict":
                raise
        game = api.game(game.id)
    page = api.events(game.id)
    classes |= {type(page).__name__, *(type(e.data).__name__ for e in page.events)}
    try:
        import api as server  # noqa: F401
        importable = True
    except ImportError:
        importable = False
    print(json.dumps({
        "game": game_of(game), "status": game.status, "moves": sorted(moves),
        "classes": sorted(classes), "server_importable": importable,
        "view_is_own": isinstance(game.view, getattr(models, type(game.view).__name__)),
    }))
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new virtual environment with clients/python installed, and nothing of the server."""
    place = tmp_path_factory.mktemp("client-venv")
    python = place / "venv" / "bin" / "python"
    for args in (
        [str(UV), "venv", "--quiet", "--python", sys.executable, str(place / "venv")],
        [str(UV), "pip", "install", "-q", "--python", str(python), str(ROOT / "clients/python")],
    ):  # fmt: skip
        done = subprocess.run(args, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    listed = subprocess.run(
        [str(UV), "pip", "list", "--python", str(python), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "tabletop-client" in installed and installed <= ALLOWED, installed
    (place / "bot.py").write_text(BOT)
    yield place


@pytest.mark.parametrize("game", DOCUMENTED)
def test_a_bot_in_a_fresh_environment_plays_each_game(
    venv: Path, pg_settings: Settings, game: str
) -> None:
    python = venv / "venv" / "bin" / "python"
    with LiveServer(pg_settings) as live:
        done = subprocess.run(  # -I: neither the repository nor PYTHONPATH on the path
            [str(python), "-I", str(venv / "bot.py"), live.url, game],
            cwd=venv,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    p = PREFIXES[game]
    assert out["game"] == game and out["status"] == "finished" and out["moves"]
    assert not out["server_importable"] and out["view_is_own"]
    others = [
        c for c in out["classes"] for g, q in PREFIXES.items() if g != game and c.startswith(q)
    ]
    assert not others, others
    assert {f"{p}GameOut", f"{p}LegalMoves", f"{p}EventPage"} <= set(out["classes"])
    assert all(m.startswith(p) for m in out["moves"]), out["moves"]

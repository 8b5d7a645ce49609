"""The web viewer, served by the API itself: the lobby (/games), a game's replay and live
view (/games/{id}) and a player's profile (/players/{id}). The pages are small HTML shells;
one generic script (static/viewer.js) fills them from API v1 with the browser's key (kept in
sessionStorage, sent as an Authorization header, never in a URL). The board is each game's
own `render` of exactly the view GET .../replay answers for the same caller and `seat`, so
the page never shows more than the API gives that viewer. Nothing here knows any game.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

from litestar import Request, Response, get
from litestar.enums import MediaType
from litestar.params import FromPath, QueryParameter
from litestar.static_files import create_static_files_router

from api.bootstrap import Shared
from api.perspective import replay_out

STATIC = Path(__file__).resolve().parent / "static"
# No inline script: everything the pages run comes from /static (a strict CSP holds).
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def _page(title: str, kind: str, **data: str) -> Response[str]:
    attrs = " ".join(f'data-{k.replace("_", "-")}="{escape(v)}"' for k, v in data.items())
    body = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} - Tabletop</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/viewer.css">
<script src="/static/viewer.js" defer></script>
</head>
<body data-page="{kind}" {attrs}>
<header class="top">
  <nav aria-label="Site"><a href="/games">Tabletop</a></nav>
  <form id="signin" class="signin" autocomplete="off">
    <label for="key">API key</label>
    <input id="key" type="password" placeholder="sign in with your key" autocomplete="off">
    <button type="submit">Sign in</button>
    <button type="button" id="signout" hidden>Sign out</button>
    <span id="who" role="status"></span>
  </form>
</header>
<main id="main" tabindex="-1"><h1>{escape(title)}</h1><p class="loading">Loading&hellip;</p></main>
<noscript><p>This page needs JavaScript; the same data is at /v1 of the API.</p></noscript>
</body>
</html>
"""
    return Response(body, media_type=MediaType.HTML, headers={"Content-Security-Policy": POLICY})


@get("/games", include_in_schema=False, sync_to_thread=False)
def lobby_page() -> Response[str]:
    return _page("Games", "lobby")


@get("/games/{game_id:uuid}", include_in_schema=False, sync_to_thread=False)
def game_page(game_id: FromPath[UUID]) -> Response[str]:
    return _page("Game", "game", game=str(game_id))


@get("/players/{player_id:str}", include_in_schema=False, sync_to_thread=False)
def player_page(player_id: FromPath[str]) -> Response[str]:
    return _page("Player", "player", player=player_id)


@get("/games/{game_id:uuid}/board", include_in_schema=False, sync_to_thread=True)
def board(
    request: Request[Any, Any, Any],
    tabletop: Shared,
    game_id: FromPath[UUID],
    version: Annotated[int, QueryParameter(ge=-(2**31), le=2**31)],
    seat: Annotated[int | None, QueryParameter(ge=0, le=15)] = None,
) -> dict[str, Any]:
    """The board at `version` as the caller (or, once finished, `seat`) sees it: the game's
    `render` of the very view GET /v1/games/{id}/replay answers with the same arguments."""
    t = tabletop
    fold = t.game(game_id)
    caller = t.game_reads.seat_for(fold, t.caller(request, required=False))
    out = replay_out(t.game_reads, fold, caller, version, seat)
    html = (
        fold.game.render(out.view)
        if out.view is not None
        else '<p class="empty">The game has not started yet: seats are still open.</p>'
    )
    return {
        "version": out.version,
        "status": out.status,
        "awaiting": out.awaiting,
        "board": html,
    }


static = create_static_files_router(
    path="/static", directories=[STATIC], include_in_schema=False, name="viewer-static"
)

VIEWER = [lobby_page, game_page, player_page, board, static]

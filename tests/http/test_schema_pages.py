"""`/schema` works with no network: every page it serves loads its scripts, styles and icon
from this server (api/schema_assets.py), never from another host, and each of them answers
200 in its type, cached for good. In a real browser (Debian's chromium) with every request
to another host refused, Swagger UI and Redoc still list the operations, and ask for
nothing outside this server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from litestar.testing import TestClient

from api.main import build
from api.typed_document import renderers
from service.settings import Settings
from tests.browser.conftest import browser  # noqa: F401  (the fixture: a real chromium)
from tests.conftest import LiveServer

SCHEMA = "/schema"
# Every page the OpenAPI router serves: each render plugin's paths, and its root.
PAGES = sorted({SCHEMA, *(f"{SCHEMA}{path}" for r in renderers() for path in r.paths)})
HTML = [page for page in PAGES if not page.endswith((".json", ".yaml", ".yml"))]
CSP = re.compile(r"^Loading the \w+ '([^']+)' violates the following Content Security Policy")
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
TYPES = {"script": ("text/javascript", "application/javascript"), "stylesheet": ("text/css",),
         "icon": ("image/",)}  # fmt: skip


class Assets(HTMLParser):
    """What a page loads: (kind, URL) of each `<script src>` and `<link href>`."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.found.append(("script", a["src"] or ""))
        elif tag == "link" and a.get("href"):
            self.found.append((a.get("rel") or "link", a["href"] or ""))
        elif tag in ("img", "iframe", "source") and a.get("src"):
            self.found.append((tag, a["src"] or ""))


def assets(html: str) -> list[tuple[str, str]]:
    parser = Assets()
    parser.feed(html)
    return parser.found


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    path = tmp_path_factory.mktemp("schema") / "tabletop.sqlite"
    with TestClient(build(Settings(sqlite_path=str(path)))) as client:
        yield client


def test_the_pages_are_the_ones_expected() -> None:
    assert HTML == ["/schema", "/schema/redoc", "/schema/swagger"]
    assert {"/schema/openapi.json", "/schema/openapi.yaml"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_loads_only_what_this_server_serves(client: TestClient[Any], page: str) -> None:
    answer = client.get(page)
    assert answer.status_code == 200, answer.text
    found = assets(answer.text)
    if page in HTML:
        assert answer.headers["content-type"].startswith("text/html")
        assert '<meta http-equiv="Content-Security-Policy"' in answer.text  # own files only
        assert {kind for kind, _ in found} >= {"script", "icon"}, found
    for kind, url in found:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc, f"{page} loads {url} from another host"
        assert url.startswith(f"{SCHEMA}/"), url
        loaded = client.get(url)
        assert loaded.status_code == 200, (page, url)
        content_type = loaded.headers["content-type"]
        assert content_type.startswith(TYPES.get(kind, ("text/javascript", "text/css"))), url
        cache = loaded.headers["cache-control"]
        assert "immutable" in cache and "max-age=31536000" in cache, url


def test_only_the_pages_files_are_served(client: TestClient[Any]) -> None:
    _, url = assets(client.get(SCHEMA).text)[-1]
    folder = url.rsplit("/", 1)[0]
    assert client.get(f"{folder}/index.html").status_code == 404  # the bundle's demo page
    assert client.get(f"{folder}/swagger-ui.js").status_code == 404  # in no page
    assert client.get(f"{folder}/..%2F..%2F..%2Fpyproject.toml").status_code == 404


# ---- in a browser with no network -------------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    path = tmp_path_factory.mktemp("schema-live") / "tabletop.sqlite"
    with LiveServer(Settings(sqlite_path=str(path))) as server:
        yield server


def _offline(chromium: Any) -> tuple[Any, list[str], list[str]]:
    """A page whose requests to any host but this machine are refused (and noted)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    refused: list[str] = []
    errors: list[str] = []

    def only_here(route: Any) -> None:
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", only_here)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page, refused, errors


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
@pytest.mark.parametrize("page_path", HTML)
def test_each_page_lists_the_operations_offline(
    browser: Any,  # noqa: F811
    live: LiveServer,
    page_path: str,
) -> None:
    spec = httpx.get(f"{live.url}{SCHEMA}/openapi.json").json()
    summary = spec["paths"]["/v1/games/{game_id}/moves"]["post"]["summary"]
    page, refused, errors = _offline(browser)
    try:
        answer = page.goto(f"{live.url}{page_path}")
        assert answer is not None and answer.status == 200
        for text in (summary, "Create a game"):  # submitMove's and createGame's
            page.get_by_text(text).filter(visible=True).first.wait_for(timeout=20_000)
    finally:
        page.context.close()
    assert refused == [], f"{page_path} asked another host for {refused}"
    # The pages' policy refuses what they would load from another host, before any request:
    # only Redoc's menu logo, which it leaves out when refused.
    blocked = {m[1] for e in errors if (m := CSP.search(e))}
    assert blocked <= {REDOC_LOGO}, blocked
    assert [e for e in errors if not CSP.search(e)] == []

"""A real browser for the viewer's tests: Debian's chromium driven by Playwright for Python,
launched from the system's path (nothing is downloaded at run time). `make test` installs
chromium when it is missing (the Makefile's `browser` step); where it still cannot start,
these tests are skipped with the reason."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.conftest import LiveServer

CHROMIUM = os.environ.get("TABLETOP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: Playwright's sync API runs an event loop in this thread while it is
    started, which the other tests of this worker (asyncio.run) must not meet."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:  # pragma: no cover - a dev dependency
        pytest.skip(f"Playwright for Python is not installed ({error})")
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"no chromium at {CHROMIUM}: the browser tests need Debian's chromium "
            "(`make browser` runs apt-get install -y chromium)"
        )
    manager = sync_playwright().start()
    try:
        launched = manager.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    except Exception as error:
        manager.stop()
        pytest.skip(f"chromium at {CHROMIUM} cannot be launched: {error}")
    try:
        yield launched
    finally:
        launched.close()
        manager.stop()


@pytest.fixture
def server(pg_settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(pg_settings) as live:
        yield live


class Page:
    """A browser page that records its console errors and every URL it asked for."""

    def __init__(self, browser: Any) -> None:
        # bypass_csp: Playwright's waits evaluate strings, which the pages' policy forbids
        self.context = browser.new_context(
            viewport={"width": 1400, "height": 1000}, bypass_csp=True
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.urls: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.urls.append(r.url))

    def open_game(self, url: str) -> None:
        self.page.goto(url)
        self.ready()

    def ready(self) -> None:
        self.page.wait_for_function("document.body.dataset.ready === 'yes'", timeout=15_000)
        self.wait_board()

    def wait_board(self) -> None:
        self.page.wait_for_function(
            "document.getElementById('board').dataset.version === "
            "document.getElementById('version').textContent",
            timeout=10_000,
        )

    def version(self) -> int:
        return int(self.page.text_content("#version") or 0)

    def last(self) -> int:
        return int(self.page.text_content("#lastv") or 0)

    def board(self) -> str:
        return self.page.inner_html("#board")

    def sign_in(self, key: str) -> None:
        loads = int(self.page.evaluate("document.body.dataset.loads || '0'"))
        self.page.fill("#key", key)
        self.page.click("#signin button[type=submit]")
        self.page.wait_for_function(
            f"Number(document.body.dataset.loads || 0) > {loads}", timeout=15_000
        )
        self.wait_board()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    pages: list[Page] = []

    def make() -> Page:
        page = Page(browser)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.close()

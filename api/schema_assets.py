"""The pages of `/schema` with nothing from another host: Swagger UI (`/schema`,
`/schema/swagger`) and Redoc (`/schema/redoc`) load their scripts, styles and icon from this
server, which serves them from the `openapi-ui-bundles` package (Swagger UI 5, Redoc 2), so
the pages work with no network (no CDN, no web fonts). Their Content-Security-Policy lets
them load nothing from another host.

The files are at `/schema/assets/<package version>/<bundle>/<file>`, cached for good
(`Cache-Control: immutable`): another version of the package has other URLs. Scalar is not
offered: the packages that bundle its files are plugins of other web frameworks, which they
would bring along.
"""

from __future__ import annotations

import importlib.metadata
from functools import cache
from pathlib import Path
from typing import Any

import openapi_ui_bundles
from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import RedocRenderPlugin, SwaggerRenderPlugin
from litestar.params import FromPath
from litestar.router import Router

from api.conditional import IMMUTABLE

SCHEMA = "/schema"  # the OpenAPI config's path (Litestar's default)
VERSION = importlib.metadata.version("openapi-ui-bundles")
ASSETS = f"/assets/{VERSION}"  # under SCHEMA
ROUTE = f"{ASSETS}/{{bundle:str}}/{{name:str}}"
BUNDLES: dict[str, Path] = {
    "swagger-ui": Path(openapi_ui_bundles.swagger_ui.static_path),
    "redoc": Path(openapi_ui_bundles.redoc.static_path),
}
# What the pages load, by name (the bundles hold demo pages too, which are not served).
FILES = {
    "swagger-ui": ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css",
                   "favicon-32x32.png"),
    "redoc": ("redoc.standalone.js",),
}  # fmt: skip
TYPES = {
    ".js": "text/javascript",  # Litestar adds the charset to text types
    ".css": "text/css",
    ".png": "image/png",
}


def url(bundle: str, name: str) -> str:
    """Where a page finds one of the files."""
    return f"{SCHEMA}{ASSETS}/{bundle}/{name}"


FAVICON = f"<link rel='icon' type='image/png' href='{url('swagger-ui', 'favicon-32x32.png')}'>"
# The pages may load nothing from another host (Redoc's menu asks cdn.redoc.ly for its logo:
# refused, it shows none); inline scripts and styles, data: and blob: URLs are theirs.
POLICY = "default-src 'self' 'unsafe-inline' data: blob:"
_HEAD = f'<head><meta http-equiv="Content-Security-Policy" content="{POLICY}">'.encode()


def _own_only(html: bytes) -> bytes:
    """A page with the policy above at the top of its head."""
    return html.replace(b"<head>", _HEAD, 1)


@cache
def _read(bundle: str, name: str) -> bytes:
    return (BUNDLES[bundle] / name).read_bytes()


@get(ROUTE, include_in_schema=False, sync_to_thread=False)
def asset(bundle: FromPath[str], name: FromPath[str]) -> Response[bytes]:
    """One of the files the pages load."""
    if name not in FILES.get(bundle, ()):
        raise NotFoundException()
    media_type = TYPES[Path(name).suffix]
    return Response(_read(bundle, name), media_type=media_type, headers=IMMUTABLE)


def _serve_assets(router: Router) -> None:
    """Adds the route of the files to the OpenAPI router, once."""
    if not any(route.path == f"{router.path}{ROUTE}" for route in router.routes):
        router.register(asset)


class SwaggerUI(SwaggerRenderPlugin):
    """Swagger UI (interactive: "Try it out" sends the request) from this server's files."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            js_url=url("swagger-ui", "swagger-ui-bundle.js"),
            css_url=url("swagger-ui", "swagger-ui.css"),
            standalone_preset_js_url=url("swagger-ui", "swagger-ui-standalone-preset.js"),
            favicon=FAVICON,
            **kwargs,
        )

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return _own_only(super().render(request, openapi_schema))

    def receive_router(self, router: Router) -> None:
        _serve_assets(router)  # and no OAuth2 redirect page: the API's auth is a bearer key


class Redoc(RedocRenderPlugin):
    """Redoc from this server's files, without web fonts."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            js_url=url("redoc", "redoc.standalone.js"), google_fonts=False, favicon=FAVICON,
            **kwargs,
        )  # fmt: skip

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return _own_only(super().render(request, openapi_schema))

    def receive_router(self, router: Router) -> None:
        _serve_assets(router)

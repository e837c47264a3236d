"""``pear serve``: the FastAPI application, a thin front over the app services.

Bound to loopback by default.  Any other host needs a token: it is printed at start, and every
request must carry it (``Authorization: Bearer <token>``, the ``pear_token`` cookie, or ``?token=``
once, which sets the cookie).  Pages are server-rendered (Jinja2) with small JavaScript modules of
our own; the JSON API under ``/api`` is described by ``/openapi.json`` (no Swagger page: it would load
its scripts from a CDN, and the app works offline).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from peargarden import __version__
from peargarden.errors import PearError
from peargarden.workspace.home import Home

HERE = Path(__file__).parent
TOKEN_COOKIE = "pear_token"


@dataclass
class WebConfig:
    home: Home
    host: str = "127.0.0.1"
    token: str | None = None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _hostname(host_header: str) -> str:
    """The name part of a Host header (``127.0.0.1:8420`` → ``127.0.0.1``, ``[::1]:8420`` → ``::1``)."""
    return urlsplit(f"//{host_header}").hostname or ""


def new_token() -> str:
    return secrets.token_urlsafe(24)


def templates() -> Jinja2Templates:
    return Jinja2Templates(directory=str(HERE / "templates"))


def create_app(config: WebConfig) -> FastAPI:
    if not is_loopback(config.host) and not config.token:
        raise ValueError("a token is required when serving on a non-loopback host")
    app = FastAPI(title="梨园 Pear Garden", version=__version__, docs_url=None, redoc_url=None)
    app.state.config = config
    app.state.templates = templates()
    from peargarden.app.request_ledger import ledger

    from .chat_hub import ChatHub

    app.state.hub = ChatHub(config.home, ledger)
    from . import safety

    safety.install(app)

    @app.middleware("http")
    async def same_origin_only(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        """Other web sites must not drive the app through the user's browser: a request whose Host is
        not this server's own name (DNS rebinding) or a write whose Origin is another site is refused."""
        host = request.headers.get("host", "")
        if is_loopback(config.host) and not is_loopback(_hostname(host)):
            return JSONResponse({"error": "只接受本机地址的请求（loopback only）"}, status_code=403)
        origin = request.headers.get("origin")
        if request.method not in ("GET", "HEAD", "OPTIONS") and origin and urlsplit(origin).netloc != host:
            return JSONResponse({"error": "拒绝来自其他网站的请求（cross-site request refused）"}, status_code=403)
        return await call_next(request)

    @app.middleware("http")
    async def require_token(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        token = config.token
        if token is None:
            return await call_next(request)
        offered = (
            request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            or request.cookies.get(TOKEN_COOKIE, "")
            or request.query_params.get("token", "")
        )
        if not hmac.compare_digest(offered.encode(), token.encode()):
            return JSONResponse({"error": "需要访问令牌（token required）"}, status_code=401)
        response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.exception_handler(PearError)
    async def pear_error(_request: Request, error: PearError) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.http_status)

    @app.get("/api/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    from . import (
        api_card_files,
        api_cards,
        api_chat,
        api_chat_files,
        api_entries,
        api_inspect,
        api_lore,
        api_personas,
        api_preset_edit,
        api_presets,
        api_regex,
        api_regex_allow,
        api_settings,
        api_studio,
        api_tavern,
        api_vault,
        pages,
    )

    routers = (api_card_files, api_cards, api_chat, api_chat_files, api_entries, api_inspect, api_vault, api_studio,
               api_presets, api_preset_edit, api_personas, api_tavern, api_settings, api_lore, api_regex,
               api_regex_allow, pages)  # fmt: skip
    for module in routers:
        app.include_router(module.router)
    return app

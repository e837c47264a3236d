"""Who may drive the app: requests from other sites through the user's browser, and the access token.

Both guards are plain ASGI middleware.  Starlette's ``@app.middleware("http")`` wraps every request in
a task group and passes the response body through a memory stream; for these two header checks that
was about 1.5 ms of CPU per request, some 40% of what serving a static file costs (measured in
docs/benchmarks.md), and every chunk of a streamed beat went through it twice.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "pear_token"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hostname(host_header: str) -> str:
    """The name part of a Host header (``127.0.0.1:8420`` → ``127.0.0.1``, ``[::1]:8420`` → ``::1``)."""
    return urlsplit(f"//{host_header}").hostname or ""


def same_origin_refusal(served_host: str, method: str, host: str, origin: str | None) -> str | None:
    """Why a request must be refused, or None: a Host that is not this server's own name when it
    serves loopback (DNS rebinding), or a write whose Origin is another site."""
    if is_loopback(served_host) and not is_loopback(hostname(host)):
        return "只接受本机地址的请求（loopback only）"
    if method not in SAFE_METHODS and origin and urlsplit(origin).netloc != host:
        return "拒绝来自其他网站的请求（cross-site request refused）"
    return None


class SameOriginOnly:
    """Other web sites must not drive the app through the user's browser (403)."""

    def __init__(self, app: ASGIApp, served_host: str) -> None:
        self.app = app
        self.served_host = served_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = HTTPConnection(scope).headers
        refusal = same_origin_refusal(self.served_host, scope["method"], headers.get("host", ""), headers.get("origin"))
        if refusal is not None:
            await JSONResponse({"error": refusal}, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _token_cookie(token: str) -> tuple[bytes, bytes]:
    response = Response()
    response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
    return next((name, value) for name, value in response.raw_headers if name == b"set-cookie")


class RequireToken:
    """Every request carries the token (``Authorization: Bearer``, the cookie, or ``?token=`` once, which
    sets the cookie), or gets 401.  Without a token (loopback) everything passes."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = self.token
        if token is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        in_query = connection.query_params.get("token", "")
        offered = (
            connection.headers.get("authorization", "").removeprefix("Bearer ").strip()
            or connection.cookies.get(TOKEN_COOKIE, "")
            or in_query
        )
        if not hmac.compare_digest(offered.encode(), token.encode()):
            await JSONResponse({"error": "需要访问令牌（token required）"}, status_code=401)(scope, receive, send)
            return
        if not in_query:
            await self.app(scope, receive, send)
            return
        cookie = _token_cookie(token)

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), cookie]}
            await send(message)

        await self.app(scope, receive, with_cookie)

"""Who may drive the app: requests from other sites through the user's browser, and the access token.

Both guards are plain ASGI middleware.  Starlette's ``@app.middleware("http")`` wraps every request in
a task group and passes the response body through a memory stream; for these two header checks that
was about 1.5 ms of CPU per request, some 40% of what serving a static file costs (measured in the
old benchmark notebook, ``git show fd224ce:docs/benchmarks.md``, *Test suite time*, fifth round), and
every chunk of a streamed beat went through it twice.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
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


# What a browser gets for a page without the token: a form that asks for it (then ?token= sets the
# cookie).  Plain HTML, no script, nothing loaded from anywhere.
TOKEN_PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>梨园 · 需要访问令牌</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#2f3b35}
input,button{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.3rem 0}</style></head><body>
<h1>需要访问令牌</h1><p>这个梨园服务不在本机上，打开它需要 <code>pear serve</code> 启动时打印的访问令牌（token）。</p>
<form method="get"><label>访问令牌 <input name="token" autocomplete="off" autofocus required></label>
<button type="submit">进入</button></form>
<p lang="en">This Pear Garden server needs the access token <code>pear serve</code> printed when it started.</p>
</body></html>"""


def _wants_page(scope: Scope) -> bool:
    """A browser asking for a page (not the API, not a static file)."""
    path = str(scope.get("path", ""))
    return scope["method"] in ("GET", "HEAD") and not path.startswith(("/api/", "/static/", "/openapi.json"))


def _without_token(scope: Scope) -> str:
    """The request's own path and query, the token taken out (where the redirect sends the browser)."""
    query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
             if k != "token"]  # fmt: skip
    path = quote(str(scope.get("path", "/")), safe="/")
    return path + (f"?{urlencode(query)}" if query else "")


class RequireToken:
    """Every request carries the token (``Authorization: Bearer``, the cookie, or ``?token=`` once, which
    sets the cookie), or gets 401.  Without a token (loopback) everything passes.

    A page asked for with ``?token=`` is answered with a redirect to the same page without it (the
    cookie set): the token leaves the address bar, the history and anything the URL is shared to.  A
    page asked for without the token gets a page that asks for it; the API answers 401 in JSON."""

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
            if _wants_page(scope):
                answer: Response = HTMLResponse(TOKEN_PAGE, status_code=401, headers={"Cache-Control": "no-store"})
            else:
                answer = JSONResponse({"error": "需要访问令牌（token required）"}, status_code=401)
            await answer(scope, receive, send)
            return
        if not in_query:
            await self.app(scope, receive, send)
            return
        cookie = _token_cookie(token)
        if _wants_page(scope):
            redirect = RedirectResponse(_without_token(scope), status_code=303, headers={"Cache-Control": "no-store"})
            redirect.raw_headers.append(cookie)
            await redirect(scope, receive, send)
            return

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), cookie]}
            await send(message)

        await self.app(scope, receive, with_cookie)

"""Defaults that keep the web app safe and its errors readable, whatever route a request reaches.

* Every answer carries ``Content-Security-Policy: frame-ancestors 'none'; frame-src 'none'`` and
  ``X-Frame-Options: DENY``: no other site can frame the app and trick a click on it (clickjacking),
  and no frame of a page loads a URL — the app's frames are ``srcdoc`` documents (cards' HTML, status
  bars), which ``frame-src`` does not stop, and a status bar that tries to take its frame elsewhere
  (``location.href = …``) is refused by the browser before any request leaves.
* Bodies are capped while they stream in (:class:`BodyLimit`): uploads to ``/api/import`` at
  :data:`UPLOAD_LIMIT`, every other body at :data:`JSON_LIMIT`; a bigger body is refused with 413
  before it has been read in full.  A body that stops coming (a client gone quiet mid-upload) is
  given up after :data:`BODY_TIMEOUT` seconds without a byte: 408, and the route is told the client
  went away (it never waits for the rest, nor holds a worker for it).
* FastAPI's own errors (422 validation, 404 of an unknown route, 405) and file names the system
  cannot hold (``ENAMETOOLONG``) answer in the documented shape ``{"error": "<one line>"}``.
"""

from __future__ import annotations

import asyncio
import errno
import json

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from peargarden.formats import MAX_INPUT_BYTES

# An import may carry a few files of the size any single import accepts (100 MiB), no more.
UPLOAD_LIMIT = MAX_INPUT_BYTES + 1024 * 1024
# A setting, a persona, an edited message, a lorebook entry: 2 MiB is far beyond any of them.
JSON_LIMIT = 2 * 1024 * 1024
UPLOAD_PATHS = ("/api/import",)

FRAME_HEADERS = (
    (b"content-security-policy", b"frame-ancestors 'none'; frame-src 'none'"),
    (b"x-frame-options", b"DENY"),
)
# Seconds a request body may go without a byte before it is given up (read when a body is awaited).
BODY_TIMEOUT = 30.0


def body_limit(path: str) -> int:
    # A card's new picture (POST /api/cards/{card}/avatar) and its sprites (…/sprites) are uploads too.
    return UPLOAD_LIMIT if path in UPLOAD_PATHS or path.endswith(("/avatar", "/sprites")) else JSON_LIMIT


def _timed_out() -> JSONResponse:
    return JSONResponse({"error": f"上传中断（no data for {BODY_TIMEOUT:.0f} s）"}, status_code=408)


def _too_large(limit: int) -> JSONResponse:
    mib = limit / (1024 * 1024)
    return JSONResponse({"error": f"请求太大（request body over {mib:.0f} MiB）"}, status_code=413)


class BodyLimit:
    """Refuse bodies over the limit: at once when ``Content-Length`` says so, else while they stream."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(str(scope.get("path", "")))
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        seen = 0
        started = refused = ended = False

        async def counted() -> Message:
            # Past the cap the 413 goes out at once and the app is told the client went away, so
            # no route reads (or spools to disk) the rest of the body.
            nonlocal seen, refused, ended
            if refused:
                return {"type": "http.disconnect"}
            if ended:  # the body is in: what comes now is the disconnect a stream listens for
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), BODY_TIMEOUT)
            except TimeoutError:
                refused = True
                if not started:
                    await _timed_out()(scope, receive, send)
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                ended = True
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = True
                    if not started:
                        await _too_large(limit)(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 was the answer
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracking_send)
        except Exception:
            if not refused:
                raise


class FrameHeaders:
    """Add the frame-blocking headers to every response (pages, API, static files, errors)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() not in dict(FRAME_HEADERS)]
                message = {**message, "headers": [*headers, *FRAME_HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _field(loc: object) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")] if isinstance(loc, (list, tuple)) else []
    return ".".join(parts) or "body"


def validation_message(errors: list[dict[str, object]]) -> str:
    """FastAPI's list of validation errors as one readable line."""
    if not errors:
        return "请求格式不对（invalid request）"
    first = errors[0]
    more = f"（另有 {len(errors) - 1} 处）" if len(errors) > 1 else ""
    return f"请求格式不对：{_field(first.get('loc'))}: {first.get('msg')}{more}"


def install(app: FastAPI) -> None:
    """The handlers and middleware above, on *app* (middleware added last runs first)."""

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": validation_message(list(error.errors()))}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
        detail = error.detail if isinstance(error.detail, str) else json.dumps(error.detail, ensure_ascii=False)
        return JSONResponse({"error": detail}, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(OSError)
    async def os_error(_request: Request, error: OSError) -> JSONResponse:
        if error.errno == errno.ENAMETOOLONG:
            return JSONResponse({"error": "名字太长（name too long）"}, status_code=400)
        return JSONResponse({"error": f"读写文件失败：{error.strerror or error}"}, status_code=500)

    app.add_middleware(BodyLimit)
    app.add_middleware(FrameHeaders)

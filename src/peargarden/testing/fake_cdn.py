"""A local fake CDN for tests and benchmarks of remote modules (issue 45 item 4): files served by path
over real HTTP on 127.0.0.1, each request counted, redirects as jsdelivr gives them, and ``stop()`` to
play offline.  No test reaches the network."""

from __future__ import annotations

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, unquote


class FakeCdn:
    """``files``: path (``/npm/x@1/+esm``) → (text or bytes, content type); ``redirects``: path → path."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        self.redirects: dict[str, str] = {}
        self.requests: Counter[str] = Counter()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add(self, path: str, body: str | bytes, kind: str = "application/javascript; charset=utf-8") -> str:
        """Serve *body* at *path*; its full address."""
        self.files[path] = (body.encode("utf-8") if isinstance(body, str) else body, kind)
        return self.url(path)

    @property
    def host(self) -> str:
        assert self._httpd is not None, "start the fake CDN first"
        return f"127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def start(self) -> FakeCdn:
        cdn = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = unquote(self.path.split("?")[0])
                cdn.requests[path] += 1
                if path in cdn.redirects:
                    self.send_response(302)
                    self.send_header("Location", quote(cdn.redirects[path], safe="/:@+?=&"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                found = cdn.files.get(path)
                if found is None:
                    self.send_error(404)
                    return
                body, kind = found
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-cdn", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (the port refuses from now on: offline)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeCdn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["FakeCdn"]

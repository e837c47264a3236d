"""HTTP/1.1 to the model endpoints on the standard library (``http.client``, ``socket``, ``ssl``).

A chat endpoint needs a POST whose answer streams, a GET of ``/models``, and a way to wake a read
blocked on a silent server.  httpx2 did that with httpcore2, h11 and anyio beneath it, and importing
them was about 190 M instructions on every ``pear chat`` start, a sixth of all a beat imports
(docs/benchmarks/cli.md).  What it did that a caller can see is kept:

- a connection per host kept alive and reused: an idle one the server has closed is not used again
  (looked at before each reuse), one that breaks while the request is written is replaced once (the
  request never reached the server); a request that went out is never sent twice;
- redirects followed, up to 20: a 303, and a 301 or 302 answering a POST, becomes a GET without a
  body, a 307 or 308 keeps both; the ``Authorization`` header goes to its own origin only;
- ``gzip`` and ``deflate`` bodies decoded;
- proxies from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, lower-case first;
  ``NO_PROXY``): an HTTP proxy, through a ``CONNECT`` tunnel for an ``https://`` endpoint; a SOCKS
  proxy is refused in one line (httpx2 needed a package we do not install for it, too);
- TLS verified against the system's certificates (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` honoured;
  on Windows and macOS the system store through ``truststore``), one context per process, built
  at the first ``https://`` connection: a local ``http://`` endpoint never loads the CA bundle;
- a connect limit (the TLS handshake included) and a read limit for every read; a failure raises a
  :class:`TransportError` whose cause is the OS's error.

Stopping a read is the caller's (:mod:`._cancel`): :meth:`Client.close` shuts down every socket of
the client, which wakes a thread blocked in ``recv``; a request started after it raises
``RuntimeError``.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import select
import socket
import ssl
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple
from urllib.parse import quote, unquote, urljoin, urlsplit

MAX_REDIRECTS = 20
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
_READ_SIZE = 65_536
_DEFAULT_PORTS = {"http": 80, "https": 443}
# What stays as it is in a path and a query (RFC 3986's sub-delims, ":" "@", "%" of an escape).
_PATH_SAFE = "/%:@!$&'()*+,;=~"
_QUERY_SAFE = _PATH_SAFE + "?"
# A reused connection failing this way while the request is written: the server had closed it.
_STALE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class HTTPError(Exception):
    """Talking to the endpoint failed (no answer to read)."""


class TransportError(HTTPError):
    """The connection failed or broke: its cause is the OS's (or ``http.client``'s) error."""


class ConnectError(TransportError):
    pass


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class ReadTimeout(TimeoutException):
    pass


class ReadError(TransportError):
    """The connection broke while the request went out or the answer came in."""


class ProtocolError(TransportError):
    """What came back is not HTTP, or ended before the answer it announced."""


class TooManyRedirects(HTTPError):
    pass


class ProxyError(HTTPError):
    """The environment names a proxy this client cannot use (said once, not retried)."""


class Timeout(NamedTuple):
    """Seconds: *read* for each read (and write) on the socket, *connect* for the connection and
    its TLS handshake."""

    read: float
    connect: float


# -- TLS -------------------------------------------------------------------------------------------

_tls: ssl.SSLContext | None = None
_tls_lock = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """The verifying TLS context every client of this process shares.  Building one loads the whole
    CA bundle (about 50 ms of CPU); one context serves any number of connections."""
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = _system_context()
        return _tls


def _system_context() -> ssl.SSLContext:
    """Where the certificates come from, as httpx2 took them: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR``
    when set; the operating system's store on Windows and macOS (``truststore``: Python's own build
    there often has no bundle of its own); else OpenSSL's compiled-in file and folder, and certifi's
    bundle where a system has neither."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if cafile:
        return ssl.create_default_context(cafile=cafile)
    capath = os.environ.get("SSL_CERT_DIR")
    if capath:
        return ssl.create_default_context(capath=capath)
    if sys.platform in ("win32", "darwin"):
        import truststore  # the system store, only on these systems

        return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies the certificate and the host name
    paths = ssl.get_default_verify_paths()
    found_file = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    found_dir = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if found_file is None and found_dir is None:
        try:
            import certifi  # a system without a CA bundle of its own
        except ImportError:
            return context
        found_file = certifi.where()
    context.load_verify_locations(found_file, found_dir)
    return context


# -- proxies ---------------------------------------------------------------------------------------


class Proxy(NamedTuple):
    host: str
    port: int
    authorization: str | None  # the Proxy-Authorization header's value, from the proxy URL's user


def proxy_for(scheme: str, host: str, port: int, environ: Mapping[str, str] | None = None) -> Proxy | None:
    """The proxy a request to *scheme*://*host*:*port* goes through, as the environment says
    (pure: *environ* defaults to ``os.environ``).  ``NO_PROXY`` lists hosts (``example.com`` also
    covers its subdomains, ``.example.com`` only them), ``host:port`` pairs, IP addresses, or ``*``."""
    env = os.environ if environ is None else environ

    def value(name: str) -> str:
        return env.get(name.lower()) or env.get(name.upper()) or ""

    chosen = value(f"{scheme}_proxy") or value("all_proxy")
    if not chosen or _bypassed(host, port, value("no_proxy")):
        return None
    if "://" not in chosen:
        chosen = "http://" + chosen
    parts = urlsplit(chosen)
    if parts.scheme != "http":
        raise ProxyError(
            f"不支持的代理 {parts.scheme}://{parts.hostname}（unsupported proxy scheme）："
            "请把 HTTPS_PROXY / HTTP_PROXY / ALL_PROXY 设为 http:// 代理"
        )
    if not parts.hostname:
        raise ProxyError(f"代理地址不完整（bad proxy URL）：{chosen!r}")
    authorization = None
    if parts.username is not None:
        user = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(user.encode("utf-8")).decode("ascii")
    return Proxy(parts.hostname, parts.port or 80, authorization)


def _bypassed(host: str, port: int, no_proxy: str) -> bool:
    host = host.lower().strip("[]")
    for item in (part.strip().lower() for part in no_proxy.split(",")):
        if not item:
            continue
        if item == "*":
            return True
        name, _, want_port = item.rpartition(":") if item.count(":") == 1 else (item, "", "")
        if want_port and want_port != str(port):
            continue
        name = name.strip("[]")
        if name.startswith("."):
            if host.endswith(name):
                return True
        elif host == name or host.endswith("." + name):
            return True
    return False


# -- connections -----------------------------------------------------------------------------------


class _Origin(NamedTuple):
    scheme: str
    host: str
    port: int


def _origin(url: str) -> tuple[_Origin, str]:
    """The origin of *url* and the path (with query) to ask it for."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ConnectError(f"不是 http(s) 地址（unsupported URL）：{url!r}")
    try:
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        raise ConnectError(f"端口不对（bad port）：{url!r}") from None
    try:  # a host in Chinese (or any non-ASCII) goes out in its IDNA form, as a browser sends it
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise ConnectError(f"主机名无法编码（bad host name）：{parts.hostname!r}") from None
    # A path or query in Chinese goes out percent-encoded; what is encoded already stays as it is.
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        path += "?" + quote(parts.query, safe=_QUERY_SAFE)
    return _Origin(scheme, host, port), path


def _authority(origin: _Origin) -> str:
    """``host`` or ``host:port`` (the port when it is not the scheme's own), as a Host header says it."""
    host = f"[{origin.host}]" if ":" in origin.host else origin.host
    return host if origin.port == _DEFAULT_PORTS[origin.scheme] else f"{host}:{origin.port}"


class _Connection:
    """One HTTP/1.1 connection: ``http.client`` writes the requests and reads the answers over a
    socket this class opened (never one it opens by itself: ``auto_open`` is off)."""

    def __init__(self, origin: _Origin, proxy: Proxy | None, sock: socket.socket) -> None:
        self.origin = origin
        self.proxy = proxy
        self.sock = sock
        self.http = http.client.HTTPConnection(origin.host, origin.port)
        self.http.sock = sock
        self.http.auto_open = 0
        self.used = False  # an answer was read whole on it: it may have gone stale since

    def forward(self) -> bool:
        """Plain http:// through a proxy: the request line carries the whole URL."""
        return self.proxy is not None and self.origin.scheme == "http"

    def shutdown(self) -> None:
        _shut(self.sock)

    def close(self) -> None:
        self.shutdown()
        self.http.close()


def _open(
    origin: _Origin, proxy: Proxy | None, timeout: Timeout, register: Callable[[socket.socket], None]
) -> socket.socket:
    """A socket to *origin* (through *proxy*), TLS when it is https, its handshake within the connect
    limit; each socket made is *register*ed at once, so that a close can wake it."""
    target = (proxy.host, proxy.port) if proxy is not None else (origin.host, origin.port)
    try:
        sock = socket.create_connection(target, timeout=timeout.connect)
    except TimeoutError as error:
        raise ConnectTimeout(str(error) or "timed out") from error
    except OSError as error:
        raise ConnectError(str(error)) from error
    register(sock)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if proxy is not None and origin.scheme == "https":
            _tunnel(sock, origin, proxy)
        if origin.scheme == "https":
            sock = tls_context().wrap_socket(sock, server_hostname=origin.host)
            register(sock)
        sock.settimeout(timeout.read)
    except TimeoutError as error:
        sock.close()
        raise ConnectTimeout(str(error) or "timed out") from error
    except (OSError, http.client.HTTPException) as error:  # ssl.SSLError is an OSError
        sock.close()
        raise ConnectError(str(error)) from error
    return sock


def _tunnel(sock: socket.socket, origin: _Origin, proxy: Proxy) -> None:
    """Ask an HTTP proxy for a tunnel to *origin* (``CONNECT``); raises ``OSError`` when refused."""
    where = f"{origin.host}:{origin.port}"
    lines = [f"CONNECT {where} HTTP/1.1", f"Host: {where}"]
    if proxy.authorization:
        lines.append(f"Proxy-Authorization: {proxy.authorization}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    answer = http.client.HTTPResponse(sock, method="CONNECT")
    answer.begin()
    if answer.status != 200:
        raise OSError(f"代理 {proxy.host}:{proxy.port} 拒绝建立隧道（proxy answered {answer.status} {answer.reason}）")


# -- answers ---------------------------------------------------------------------------------------


class Response:
    """An answer whose body is read when asked for (:meth:`iter_bytes`, :meth:`read`).  Close it
    when done: a body read whole gives its connection back for the next request."""

    def __init__(self, raw: http.client.HTTPResponse, connection: _Connection, client: Client) -> None:
        self._raw = raw
        self._connection: _Connection | None = connection
        self._client = client
        self.status_code = raw.status
        self.headers = raw.headers  # case-insensitive ``get``
        self._content: bytes | None = None
        encoding = (raw.headers.get("content-encoding") or "").strip().lower()
        self._decoder = (
            zlib.decompressobj(16 + zlib.MAX_WBITS)
            if encoding in ("gzip", "x-gzip")
            else zlib.decompressobj()
            if encoding == "deflate"
            else None
        )

    @property
    def socket(self) -> socket.socket | None:
        """The socket the body comes over (a cancel shuts it down to wake a blocked read)."""
        return self._connection.sock if self._connection is not None else None

    def iter_bytes(self) -> Iterator[bytes]:
        """The body as it arrives, decoded from its content encoding."""
        if self._content is not None:
            yield self._content
            return
        raw, decoder = self._raw, self._decoder
        while True:
            try:
                data = raw.read1(_READ_SIZE)
            except TimeoutError as error:
                self.close()
                raise ReadTimeout(str(error) or "timed out") from error
            except http.client.IncompleteRead as error:
                self.close()
                raise ProtocolError("peer closed connection without sending complete message body") from error
            except (OSError, http.client.HTTPException, ValueError) as error:  # ValueError: a bad chunk size
                self.close()
                raise ReadError(str(error) or type(error).__name__) from error
            if not data:
                break
            if decoder is not None:
                try:
                    data = decoder.decompress(data)
                except zlib.error as error:
                    self.close()
                    raise ProtocolError(f"body does not decode ({error})") from error
            if data:
                yield data
        if raw.length:  # the connection ended before the Content-Length it announced
            self.close()
            raise ProtocolError("peer closed connection without sending complete message body")
        if decoder is not None and (rest := decoder.flush()):
            yield rest
        self._release()

    def read(self) -> bytes:
        if self._content is None:
            self._content = b"".join(self.iter_bytes())
        return self._content

    @property
    def content(self) -> bytes:
        return self.read()

    @property
    def text(self) -> str:
        charset = self.headers.get_content_charset() or "utf-8"
        try:
            return self.read().decode(charset, "replace")
        except LookupError:  # a charset Python does not know
            return self.read().decode("utf-8", "replace")

    def _release(self) -> None:
        """The body was read whole: the connection serves the next request unless it must close."""
        connection, self._connection = self._connection, None
        self._raw.close()  # http.client sends the next request only once this answer is closed
        if connection is not None:
            self._client._release(connection, reusable=not self._raw.will_close)

    def close(self) -> None:
        """Done with the answer: a body not read whole closes its connection."""
        connection, self._connection = self._connection, None
        self._raw.close()
        if connection is not None:
            self._client._release(connection, reusable=False)


# -- the client ------------------------------------------------------------------------------------


class Client:
    """Connections to the hosts one endpoint talks to, reused while they stay alive."""

    def __init__(self, timeout: Timeout, *, follow_redirects: bool = True) -> None:
        self.timeout = timeout
        self.follow_redirects = follow_redirects
        self._lock = threading.Lock()
        self._idle: dict[tuple[_Origin, Proxy | None], list[_Connection]] = {}
        self._busy: list[_Connection] = []
        self._sockets: list[socket.socket] = []  # every socket made, until it is closed
        self._closed = False

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        content: bytes | None = None,
        timeout: Timeout | None = None,
    ) -> Response:
        """Send the request and read the answer's head; the body is the caller's to read (and the
        answer's to close).  Redirects are followed when the client says so."""
        sent = dict(headers)
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(method, url, sent, content, timeout or self.timeout)
            location = response.headers.get("location")
            if not (self.follow_redirects and response.status_code in REDIRECT_STATUSES and location):
                return response
            response.close()
            target = urljoin(url, location.strip())
            if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
                method, content = "GET", None
                sent = {k: v for k, v in sent.items() if k.lower() not in ("content-type", "content-length")}
            if _origin(target)[0] != _origin(url)[0] and not _upgrade(url, target):
                sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
            url = target
        raise TooManyRedirects(f"重定向超过 {MAX_REDIRECTS} 次（too many redirects）")

    def _send(
        self, method: str, url: str, headers: dict[str, str], content: bytes | None, timeout: Timeout
    ) -> Response:
        origin, path = _origin(url)
        proxy = proxy_for(origin.scheme, origin.host, origin.port)
        while True:
            connection = self._connection(origin, proxy, timeout)
            target = f"{origin.scheme}://{_authority(origin)}{path}" if connection.forward() else path
            try:
                self._request(connection, method, target, headers, content)
            except _STALE as error:
                self._release(connection, reusable=False)
                if connection.used:
                    continue  # closed by the server while idle, as it was written to: never received
                raise ReadError(str(error) or type(error).__name__) from error
            except BaseException as error:
                self._release(connection, reusable=False)
                _raise_transport_error(error)
                raise
            try:
                return Response(connection.http.getresponse(), connection, self)
            except BaseException as error:  # the request went out: what failed now is never sent again here
                self._release(connection, reusable=False)
                _raise_transport_error(error)
                raise

    def _request(
        self, connection: _Connection, method: str, target: str, headers: dict[str, str], content: bytes | None
    ) -> None:
        # http.client would name port 80 the default for an https host too ("example.com:443")
        sent = {"Host": _authority(connection.origin), **headers}
        if connection.forward() and connection.proxy is not None and connection.proxy.authorization:
            sent["Proxy-Authorization"] = connection.proxy.authorization
        sent.setdefault("Accept-Encoding", "gzip, deflate")
        if content is not None:
            sent["Content-Length"] = str(len(content))
        connection.http.request(method, target, body=content, headers=sent)

    def _connection(self, origin: _Origin, proxy: Proxy | None, timeout: Timeout) -> _Connection:
        with self._lock:
            if self._closed:
                raise RuntimeError("the client has been closed")
            idle = self._idle.get((origin, proxy), [])
            while idle:
                connection = idle.pop()
                if _closed_by_peer(connection.sock):  # the server hung up while it sat idle
                    self._sockets = [s for s in self._sockets if s is not connection.sock]
                    connection.close()
                    continue
                connection.sock.settimeout(timeout.read)
                self._busy.append(connection)
                return connection
        sock = _open(origin, proxy, timeout, self._register)
        with self._lock:
            # the plain socket a TLS one wraps is closed (detached) by the wrap
            self._sockets = [s for s in self._sockets if s.fileno() != -1]
            if self.closed:  # closed while this connection was being made: nothing may use it
                sock.close()
                raise RuntimeError("the client has been closed")
            connection = _Connection(origin, proxy, sock)
            self._busy.append(connection)
            return connection

    def _release(self, connection: _Connection, *, reusable: bool) -> None:
        with self._lock:
            if connection in self._busy:
                self._busy.remove(connection)
            if reusable and not self._closed:
                connection.used = True
                self._idle.setdefault((connection.origin, connection.proxy), []).append(connection)
                return
            self._sockets = [s for s in self._sockets if s is not connection.sock]
        connection.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def _register(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self._closed:  # a close while it connects: wake it now
                _shut(sock)

    def close(self) -> None:
        """Close every connection; a request blocked on one wakes with a :class:`TransportError`, and
        a request made after this raises ``RuntimeError``."""
        with self._lock:
            self._closed = True
            connections = [*self._busy, *(c for idle in self._idle.values() for c in idle)]
            sockets, self._sockets = self._sockets, []
            self._busy, self._idle = [], {}
        for sock in sockets:
            _shut(sock)
        for connection in connections:
            connection.close()
        for sock in sockets:
            sock.close()


def _closed_by_peer(sock: socket.socket) -> bool:
    """An idle connection with something to read has been closed by the server (or sent what no
    request asked for): it is not used again."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):  # closed here already
        return True
    return bool(readable)


def _raise_transport_error(error: BaseException) -> None:
    """Raise a failure while talking to the server as this module's error (others are the caller's
    to raise as they are)."""
    if isinstance(error, TimeoutError):
        raise ReadTimeout(str(error) or "timed out") from error
    if isinstance(error, http.client.RemoteDisconnected):
        raise ProtocolError(str(error) or "server disconnected without sending a response") from error
    if isinstance(error, OSError):
        raise ReadError(str(error) or type(error).__name__) from error
    if isinstance(error, http.client.HTTPException):
        raise ProtocolError(str(error) or type(error).__name__) from error


def _shut(sock: socket.socket) -> None:
    """Shut *sock* down both ways: a thread blocked reading it wakes (closing it would not)."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _upgrade(url: str, target: str) -> bool:
    """http → https on the same host and default ports: the credentials may follow (as httpx2 did)."""
    old, new = urlsplit(url), urlsplit(target)
    return (
        old.scheme == "http"
        and new.scheme == "https"
        and old.hostname == new.hostname
        and old.port in (None, 80)
        and new.port in (None, 443)
    )

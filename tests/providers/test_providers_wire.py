"""The endpoints' HTTP (providers/wire.py) against real local servers: connections kept and replaced
when the server dropped them, redirects, compressed and cut bodies, proxies from the environment
(forwarding and CONNECT tunnels, NO_PROXY, SOCKS refused), TLS verified against the certificate the
environment names, and a beat over https end to end."""

from __future__ import annotations

import gzip
import json
import select
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from peargarden.errors import ProviderError
from peargarden.providers import wire
from peargarden.providers.base import ChatRequest, TextDelta
from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy
from peargarden.providers.wire import Client, ConnectError, ProtocolError, Timeout, proxy_for
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

TIMEOUT = Timeout(read=10.0, connect=5.0)
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


class Seen:
    """What a site was asked: (method, path, headers, body, client port) per request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes, int]] = []


Answer = Callable[[BaseHTTPRequestHandler, Seen], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def serve(answer: Answer, tls: ssl.SSLContext | None = None) -> tuple[_Server, Seen, str]:
    """A site answering every request with *answer*; returns (server, what it saw, its base URL)."""
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen.requests.append((self.command, self.path, headers, body, self.client_address[1]))
            answer(self, seen)

        do_GET = do_POST = _any

    server = _Server(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    scheme = "https" if tls is not None else "http"
    return server, seen, f"{scheme}://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def sites() -> Iterator[Callable[..., tuple[_Server, Seen, str]]]:
    made: list[_Server] = []

    def make(answer: Answer, tls: ssl.SSLContext | None = None) -> tuple[_Server, Seen, str]:
        server, seen, url = serve(answer, tls)
        made.append(server)
        return server, seen, url

    yield make
    for server in made:
        server.shutdown()
        server.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    for name, value in {"Content-Length": str(len(body)), **headers}.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


def text(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
    said = f"第{len(seen.requests)}次：{handler.command} {handler.path}"
    send(handler, 200, said.encode(), Content_Type="text/plain")


def get(client: Client, url: str, **headers: str) -> tuple[int, str]:
    response = client.request("GET", url, headers=headers)
    try:
        return response.status_code, response.read().decode()
    finally:
        response.close()


# -- connections -----------------------------------------------------------------------------------


def test_one_connection_serves_request_after_request(sites: Callable[..., Any]) -> None:
    _, seen, url = sites(text)
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/茶单") == (200, "第1次：GET /%E8%8C%B6%E5%8D%95")
        assert get(client, url + "/茶单") == (200, "第2次：GET /%E8%8C%B6%E5%8D%95")
    finally:
        client.close()
    assert len({port for *_, port in seen.requests}) == 1


def test_a_connection_the_server_dropped_while_idle_is_replaced_once(sites: Callable[..., Any]) -> None:
    def then_hang_up(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        text(handler, seen)  # announced as kept alive, then closed
        handler.close_connection = True

    _, seen, url = sites(then_hang_up)
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/one")[0] == 200
        time.sleep(0.2)  # the server has closed its side by now
        assert get(client, url + "/two") == (200, "第2次：GET /two")
    finally:
        client.close()
    assert len({port for *_, port in seen.requests}) == 2


def test_a_request_the_server_took_and_never_answered_is_not_sent_again(sites: Callable[..., Any]) -> None:
    # A POST makes a reply the model is paid for: once it went out on a connection, a server that
    # hangs up without answering is an error to report (the provider decides about a retry), never a
    # second copy of the request sent by the transport.
    def answer_once(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        if len(seen.requests) == 1:
            text(handler, seen)
        else:
            handler.close_connection = True  # read, then hang up without a word

    _, seen, url = sites(answer_once)
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/one")[0] == 200
        with pytest.raises(ProtocolError):
            client.request("POST", url + "/two", headers={}, content="一壶".encode())
    finally:
        client.close()
    assert [path for _, path, *_ in seen.requests] == ["/one", "/two"]


def test_a_body_cut_short_of_its_length_is_a_protocol_error(sites: Callable[..., Any]) -> None:
    def cut(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "100")
        handler.end_headers()
        handler.wfile.write("只有半壶".encode())
        handler.close_connection = True

    _, _, url = sites(cut)
    client = Client(TIMEOUT)
    try:
        response = client.request("GET", url, headers={})
        with pytest.raises(ProtocolError, match="complete message body"):
            response.read()
    finally:
        client.close()


def test_a_gzip_body_is_read_decoded(sites: Callable[..., Any]) -> None:
    def zipped(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        send(handler, 200, gzip.compress("春眠不觉晓".encode() * 50), Content_Encoding="gzip")

    _, seen, url = sites(zipped)
    client = Client(TIMEOUT)
    try:
        assert get(client, url) == (200, "春眠不觉晓" * 50)
    finally:
        client.close()
    assert "gzip" in seen.requests[0][2]["accept-encoding"]


# -- redirects -------------------------------------------------------------------------------------


def test_redirects_keep_or_drop_the_body_as_their_status_says(sites: Callable[..., Any]) -> None:
    def moved(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        if handler.path == "/307":
            send(handler, 307, b"", Location="/here")
        elif handler.path == "/302":
            send(handler, 302, b"", Location="/here")
        else:
            text(handler, seen)

    _, seen, url = sites(moved)
    client = Client(TIMEOUT)
    try:
        for path in ("/307", "/302"):
            plain = {"Content-Type": "text/plain"}
            response = client.request("POST", url + path, headers=plain, content="一壶".encode())
            response.read()
            response.close()
    finally:
        client.close()
    asked = [(method, path, body) for method, path, _, body, _ in seen.requests]
    assert asked == [
        ("POST", "/307", "一壶".encode()),
        ("POST", "/here", "一壶".encode()),
        ("POST", "/302", "一壶".encode()),
        ("GET", "/here", b""),
    ]


def test_the_key_goes_only_to_the_origin_it_was_given_for(sites: Callable[..., Any]) -> None:
    _, elsewhere_seen, elsewhere = sites(text)

    def moved(handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        if handler.path == "/away":
            send(handler, 307, b"", Location=elsewhere + "/there")
        elif handler.path == "/near":
            send(handler, 307, b"", Location="/here")
        else:
            text(handler, seen)

    _, seen, url = sites(moved)
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/near", Authorization="Bearer sk-梨园".encode().decode("latin-1"))[0] == 200
        assert get(client, url + "/away", Authorization="Bearer sk-1")[0] == 200
    finally:
        client.close()
    assert seen.requests[1][1] == "/here" and "authorization" in seen.requests[1][2]
    assert elsewhere_seen.requests[0][1] == "/there" and "authorization" not in elsewhere_seen.requests[0][2]


# -- proxies ---------------------------------------------------------------------------------------


class ForwardProxy:
    """An HTTP proxy: absolute-form requests relayed, CONNECT tunnels; it records each request line
    and its Proxy-Authorization header."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.lines.append((self.requestline, self.headers.get("Proxy-Authorization")))
                target = self.path.split("/", 3)  # http://host:port/path
                host, _, port = target[2].partition(":")
                upstream = socket.create_connection((host, int(port)))
                kept = [(k, v) for k, v in self.headers.items() if k.lower() != "proxy-authorization"]
                headers = "".join(f"{k}: {v}\r\n" for k, v in kept)
                upstream.sendall(f"GET /{target[3]} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n".encode("latin-1"))
                data = b""
                while chunk := upstream.recv(65536):
                    data += chunk
                upstream.close()
                self.wfile.write(data)
                self.close_connection = True

            def do_CONNECT(self) -> None:
                outer.lines.append((self.requestline, self.headers.get("Proxy-Authorization")))
                host, _, port = self.path.partition(":")
                upstream = socket.create_connection((host, int(port)))
                self.send_response(200, "Connection established")
                self.end_headers()
                relay(self.connection, upstream)
                self.close_connection = True

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def relay(one: socket.socket, two: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    pair = {one: two, two: one}
    try:
        while True:
            ready, _, _ = select.select(list(pair), [], [], 10)
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                pair[sock].sendall(data)
    finally:
        two.close()


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    made = ForwardProxy()
    yield made
    made.close()


def test_plain_http_goes_through_the_environments_proxy_with_its_credentials(
    sites: Callable[..., Any], proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, seen, url = sites(text)
    monkeypatch.setenv("HTTP_PROXY", proxy.url.replace("http://", "http://%E6%A2%A8:pass@"))
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/茶") == (200, "第1次：GET /%E8%8C%B6")
    finally:
        client.close()
    line, authorization = proxy.lines[0]
    assert line == f"GET {url}/%E8%8C%B6 HTTP/1.1"
    assert authorization == "Basic " + __import__("base64").b64encode("梨:pass".encode()).decode()
    assert "proxy-authorization" not in seen.requests[0][2]


def test_no_proxy_sends_a_host_around_the_proxy(
    sites: Callable[..., Any], proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, seen, url = sites(text)
    monkeypatch.setenv("all_proxy", proxy.url)
    monkeypatch.setenv("NO_PROXY", "example.com, 127.0.0.1")
    client = Client(TIMEOUT)
    try:
        assert get(client, url)[0] == 200
    finally:
        client.close()
    assert proxy.lines == [] and len(seen.requests) == 1


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "bypassed"),
    [
        ("example.com", "example.com", 443, True),
        ("example.com", "api.example.com", 443, True),
        ("example.com", "notexample.com", 443, False),
        (".example.com", "example.com", 443, False),
        (".example.com", "api.example.com", 443, True),
        ("example.com:8080", "example.com", 443, False),
        ("example.com:8080", "example.com", 8080, True),
        ("*", "api.deepseek.com", 443, True),
        ("127.0.0.1,::1", "::1", 8080, True),
        ("", "api.deepseek.com", 443, False),
    ],
)
def test_no_proxy_names_hosts_their_subdomains_ports_and_everything(
    no_proxy: str, host: str, port: int, bypassed: bool
) -> None:
    chosen = proxy_for("https", host, port, {"HTTPS_PROXY": "127.0.0.1:7890", "NO_PROXY": no_proxy})
    assert (chosen is None) == bypassed
    if chosen is not None:
        assert (chosen.host, chosen.port) == ("127.0.0.1", 7890)


def test_lower_case_proxy_variables_win_and_all_proxy_is_the_fallback() -> None:
    env = {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "ALL_PROXY": "http://all:3"}
    assert proxy_for("https", "api.deepseek.com", 443, env) == ("lower", 1, None)
    assert proxy_for("http", "api.deepseek.com", 80, env) == ("all", 3, None)


def test_a_socks_proxy_is_refused_in_one_line_without_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    sleeps: list[float] = []
    provider = OpenAICompatProvider("http://127.0.0.1:9/v1", "m", sleep=sleeps.append, retry=RetryPolicy(attempts=3))
    try:
        with pytest.raises(ProviderError, match=r"socks5://127\.0\.0\.1") as caught:
            list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "在吗"}])))
    finally:
        provider.close()
    assert "\n" not in str(caught.value) and sleeps == []


# -- TLS -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and its key), made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    folder = tmp_path_factory.mktemp("证书")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


def test_a_beat_over_https_verifies_the_certificate_the_environment_names(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    monkeypatch.setattr(wire, "_tls", None)  # a new process: the context is built from the environment
    with FakeOpenAIServer(tls=server_context(certificate)) as server:
        server.script([text_reply("客官，", "楼上请。")])
        assert server.base_url.startswith("https://")
        provider = OpenAICompatProvider(server.base_url, "fake-model")
        try:
            events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "有空房吗？"}])))
        finally:
            provider.close()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "客官，楼上请。"


def test_a_certificate_nobody_vouches_for_is_refused(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, sites: Callable[..., Any]
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setattr(wire, "_tls", None)
    _, seen, url = sites(text, tls=server_context(certificate))
    client = Client(TIMEOUT)
    try:
        with pytest.raises(ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            get(client, url)
    finally:
        client.close()
    assert seen.requests == []


def test_https_through_a_proxy_is_a_tunnel_the_proxy_cannot_read(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, sites: Callable[..., Any], proxy: ForwardProxy
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    monkeypatch.setattr(wire, "_tls", None)
    monkeypatch.setenv("https_proxy", proxy.url)
    _, seen, url = sites(text, tls=server_context(certificate))
    client = Client(TIMEOUT)
    try:
        assert get(client, url + "/密室", Authorization="Bearer sk-1") == (200, "第1次：GET /%E5%AF%86%E5%AE%A4")
    finally:
        client.close()
    port = url.rsplit(":", 1)[1]
    assert proxy.lines == [(f"CONNECT 127.0.0.1:{port} HTTP/1.1", None)]
    assert seen.requests[0][2]["authorization"] == "Bearer sk-1"
    assert json.dumps(proxy.lines).count("sk-1") == 0

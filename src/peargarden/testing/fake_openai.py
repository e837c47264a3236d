"""A fake OpenAI-compatible server on 127.0.0.1 for tests and benchmarks.

Real HTTP (stdlib ``http.server`` on an ephemeral port, one thread per connection), so the whole
client stack — the connection, SSE parsing, retries — runs exactly as it does against a
real endpoint (over https too: ``FakeOpenAIServer(tls=context)``).  Replies are scripted per request::

    with FakeOpenAIServer() as server:
        server.script([
            sse(chunk(content="你"), chunk(content="好"), chunk(finish_reason="stop"), usage_chunk(5, 2)),
            status(429, headers={"Retry-After": "1"}),
        ])
        ...  # point a client at server.base_url
        server.requests[0].body["messages"]

A :class:`StreamReply` is a list of *items*: a dict is sent as one ``data:`` event, a ``str`` or
``bytes`` is written raw (for framing tests), :class:`Pause` sleeps, :class:`Disconnect` drops the
connection without finishing the chunked body, :class:`Gate` waits for a ``threading.Event``.
``split_bytes`` cuts every write into pieces of that many bytes, each flushed as its own HTTP
chunk — so a UTF-8 character can be split across network reads.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Pause:
    """Sleep this long before the next item (or before the headers, as ``StreamReply.delay``)."""

    seconds: float


@dataclass(frozen=True)
class Gate:
    """Wait until the test sets *event* (at most *timeout* seconds) before the next item: a reply held
    open for exactly as long as the test needs, however slow the machine is."""

    event: threading.Event
    timeout: float = 60.0


@dataclass(frozen=True)
class Disconnect:
    """Close the connection abruptly, leaving the chunked body unfinished."""


StreamItem = JsonDict | str | bytes | Pause | Gate | Disconnect


@dataclass
class StreamReply:
    items: list[StreamItem]
    done: bool = True  # send ``data: [DONE]`` after the items
    delay: float = 0.0  # seconds to wait before sending the status line
    split_bytes: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class JsonReply:
    """A plain (non-streamed) response: an error status, or a JSON body."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class RawReply:
    """Any bytes with any status and content type (an HTML error page served with 200, a proxy's
    plain-text banner): what a misconfigured endpoint sends instead of a reply."""

    body: bytes
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    delay: float = 0.0


Reply = StreamReply | JsonReply | RawReply


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body (None for GET), or the raw text when it was not JSON


# ---------------------------------------------------------------------------------------------
# Builders


def chunk(
    content: str | None = None,
    *,
    reasoning_content: str | None = None,
    reasoning: str | None = None,
    reasoning_details: list[JsonDict] | None = None,
    tool_calls: list[JsonDict] | None = None,
    finish_reason: str | None = None,
    role: str | None = None,
    model: str = "fake-model",
) -> JsonDict:
    """One ``chat.completion.chunk`` with a single choice."""
    delta: JsonDict = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    if reasoning_content is not None:
        delta["reasoning_content"] = reasoning_content
    if reasoning is not None:
        delta["reasoning"] = reasoning
    if reasoning_details is not None:
        delta["reasoning_details"] = reasoning_details
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def tool_call_delta(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> JsonDict:
    """One fragment of a streamed tool call (the id and name usually come first, alone)."""
    function: JsonDict = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    out: JsonDict = {"index": index, "function": function}
    if id is not None:
        out["id"] = id
        out["type"] = "function"
    return out


def usage_chunk(
    prompt_tokens: int, completion_tokens: int, *, cached_tokens: int | None = None, model: str = "fake-model"
) -> JsonDict:
    """The final chunk ``stream_options.include_usage`` asks for: no choices, only usage."""
    usage: JsonDict = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [],
        "usage": usage,
    }


def sse(*items: StreamItem, done: bool = True, split_bytes: int | None = None, delay: float = 0.0) -> StreamReply:
    return StreamReply(items=list(items), done=done, split_bytes=split_bytes, delay=delay)


def text_reply(*pieces: str, usage: tuple[int, int] | None = (10, 5), finish_reason: str = "stop") -> StreamReply:
    """A streamed plain-text answer, one chunk per piece, then finish reason and usage."""
    items: list[StreamItem] = [chunk(role="assistant", content="")]
    items += [chunk(content=piece) for piece in pieces]
    items.append(chunk(finish_reason=finish_reason))
    if usage is not None:
        items.append(usage_chunk(*usage))
    return StreamReply(items=items)


def status(code: int, message: str = "", *, headers: dict[str, str] | None = None) -> JsonReply:
    """An error response in the OpenAI error shape."""
    text = message or {401: "Incorrect API key provided", 404: "The model does not exist"}.get(code, "error")
    return JsonReply(
        status=code,
        body={"error": {"message": text, "type": "fake_error", "code": code}},
        headers=dict(headers or {}),
    )


# ---------------------------------------------------------------------------------------------
# The server


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as server`` (or :meth:`start` / :meth:`stop`)."""

    def __init__(self, models: Iterable[str] = ("fake-model",), *, tls: ssl.SSLContext | None = None) -> None:
        """*tls*: a server context (its certificate for 127.0.0.1): the server speaks https."""
        self.models: list[str] = list(models)
        self.tls = tls
        self.requests: list[RecordedRequest] = []
        # Used when the script is empty; None answers 500 "nothing scripted".
        self.default_reply: Reply | None = None
        # Replaces the /models answer when set (e.g. ``status(401)``).
        self.models_reply: JsonReply | None = None
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FakeOpenAIServer:
        handler = _make_handler(self)
        httpd = _QuietServer(("127.0.0.1", 0), handler)
        if self.tls is not None:
            httpd.socket = self.tls.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        # A short poll interval keeps stop() (and so every test's teardown) quick.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"{'https' if self.tls is not None else 'http'}://127.0.0.1:{self.port}/v1"

    # -- scripting

    def script(self, replies: Iterable[Reply]) -> FakeOpenAIServer:
        """Queue replies for the next chat-completion requests, in order."""
        with self._lock:
            self._script.extend(replies)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        if self.default_reply is not None:
            return self.default_reply
        return status(500, "fake server: nothing scripted for this request")

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _gate(self, gate: Gate) -> None:
        deadline = time.monotonic() + gate.timeout
        while not gate.event.wait(0.05):
            if self._stopping.is_set() or time.monotonic() > deadline:
                return

    def _sleep(self, seconds: float) -> None:
        # Wakes early when the server stops, so a slow reply never outlives its test.
        self._stopping.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-reply is the point of several tests; no tracebacks on stderr.
        return


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_GET(self) -> None:
            server._record(RecordedRequest("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
            if self.path.rstrip("/").endswith("/models"):
                reply = server.models_reply or JsonReply(
                    body={
                        "object": "list",
                        "data": [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in server.models],
                    }
                )
                self._send_json(reply)
            else:
                self._send_json(status(404, f"no route {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8") if length else ""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw
            server._record(RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(status(404, f"no route {self.path}"))
                return
            reply = server._next_reply()
            if isinstance(reply, StreamReply) and isinstance(body, dict) and body.get("stream") is False:
                reply = as_completion(reply)  # asked for the whole reply at once, as a real server answers
            try:
                if isinstance(reply, JsonReply):
                    self._send_json(reply)
                elif isinstance(reply, RawReply):
                    self._send_raw(reply)
                else:
                    self._send_stream(reply)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _send_json(self, reply: JsonReply) -> None:
            if reply.delay:
                server._sleep(reply.delay)
            data = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_raw(self, reply: RawReply) -> None:
            if reply.delay:
                server._sleep(reply.delay)
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def _send_stream(self, reply: StreamReply) -> None:
            if reply.delay:
                server._sleep(reply.delay)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            for payload in _payloads(reply):
                if isinstance(payload, Pause):
                    server._sleep(payload.seconds)
                elif isinstance(payload, Gate):
                    server._gate(payload)
                elif isinstance(payload, Disconnect):
                    self._drop()
                    return
                else:
                    self._write_chunked(payload, reply.split_bytes)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _write_chunked(self, data: bytes, split: int | None) -> None:
            step = split or len(data) or 1
            for start in range(0, len(data), step):
                piece = data[start : start + step]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
                if split:
                    # Give the client a chance to read each piece separately.
                    time.sleep(0.001)

        def _drop(self) -> None:
            self.wfile.flush()
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


def as_completion(reply: StreamReply) -> JsonReply:
    """A scripted stream as the one ``chat.completion`` a server sends for ``"stream": false``: the
    deltas joined (text, reasoning, tool calls by index), the last finish reason and the usage."""
    content, reasoning = "", ""
    calls: dict[int, JsonDict] = {}
    finish: str | None = None
    usage: JsonDict | None = None
    for item in reply.items:
        if not isinstance(item, dict):
            continue  # pauses, gates, raw bytes: a stream's own business
        usage = item.get("usage") or usage
        for choice in item.get("choices") or []:
            delta = choice.get("delta") or {}
            content += delta.get("content") or ""
            reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(part["index"], {"id": "", "type": "function",
                                                        "function": {"name": "", "arguments": ""}})  # fmt: skip
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: JsonDict = {"role": "assistant", "content": content}
    if reasoning:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    body: JsonDict = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake-model",
                      "choices": [{"index": 0, "message": message, "finish_reason": finish or "stop"}]}  # fmt: skip
    if usage is not None:
        body["usage"] = usage
    return JsonReply(body=body, delay=reply.delay)


def _payloads(reply: StreamReply) -> Iterator[bytes | Pause | Gate | Disconnect]:
    for item in reply.items:
        if isinstance(item, (Pause | Gate | Disconnect, bytes)):
            yield item
        elif isinstance(item, str):
            yield item.encode("utf-8")
        else:
            yield f"data: {json.dumps(item, ensure_ascii=False)}\n\n".encode()
    if reply.done:
        yield b"data: [DONE]\n\n"


__all__ = [
    "Disconnect",
    "FakeOpenAIServer",
    "Gate",
    "JsonReply",
    "Pause",
    "RawReply",
    "RecordedRequest",
    "StreamReply",
    "as_completion",
    "chunk",
    "sse",
    "status",
    "text_reply",
    "tool_call_delta",
    "usage_chunk",
]

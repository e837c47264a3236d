"""Any OpenAI-compatible Chat Completions endpoint, over :mod:`._http` (no ``openai`` SDK, no httpx2).

OpenAI, DeepSeek, OpenRouter, Ollama ``/v1``, vLLM and llama.cpp's server all speak this; what
differs between them lives in :mod:`.profiles`.  This module
retries 429 / 5xx / timeouts / connection failures itself (a few attempts, exponential backoff,
``Retry-After`` honoured) so that the wait is cancellable and tests can inject the sleep.

A retry happens only while nothing has been yielded yet; once text has streamed out, a failure
raises :class:`ProviderError` and the caller keeps what it already received.
Cancellation is checked between chunks and during backoff waits; a read blocked on a silent server
is woken by :class:`._cancel.CancelWatch`, which also enforces the :class:`Timeouts` (connect,
first byte, idle stream, total).  An answer that is not a reply — an HTML page, a stream of nothing
but ``[DONE]``, chunks without ``choices``, undecodable events, an empty reply — gets its own
one-line error naming the endpoint and quoting the first bytes it sent (an undecodable event: that
event's own bytes).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.errors import ProviderError

from ._cancel import ByteTap, CancelWatch
from ._chunks import ChunkReader, completion_as_chunk
from ._failures import Endpoint, Failure, classify, failure_error
from ._http import ChatClient, EndpointError, MalformedEvent, StatusError, stream_chunks
from ._request_body import build_create_kwargs
from .base import ChatRequest, Done, StreamEvent, Timeouts
from .profiles import ProviderProfile, detect_profile
from .wire import HTTPError, Response, Timeout

# Sent when an endpoint needs no key (local servers), as the openai SDK did: some servers want a value.
NO_KEY = "not-needed"

#: The most characters of one reply (text, reasoning and tool-call arguments together) read from a
#: stream; past it the stream is closed and the reply so far kept, with one line saying why.  A
#: runaway model at full speed would otherwise fill memory and the chat file until the total timeout.
#: Sixteen million characters is 16 – 48 MB of text, far past any reply a story needs.
MAX_REPLY_CHARS = 16_000_000


class RetryPolicy(msgspec.Struct, frozen=True):
    attempts: int = 4  # total tries, the first included
    base_delay: float = 1.0  # seconds before the first retry; doubles each time
    max_delay: float = 20.0
    # A server asking for a longer wait than this is not waited for (pi's maxRetryDelayMs).
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        return float(min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


def preview(data: bytes, limit: int = 120) -> str:
    """The first bytes an endpoint sent, escaped onto one line (CJK kept readable)."""
    if not data:
        return "（没有收到任何数据）"
    text = data[:limit].decode("utf-8", "backslashreplace")
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    return f"「{escaped}{'…' if len(data) > limit else ''}」"


class _NotAReply(Exception):
    """The endpoint answered, but not with a reply (said once, never retried)."""


def _chunks_of(response: Response, where: str, tap: ByteTap) -> Iterator[Any]:
    """The stream's chunks, or the one chunk of a server that answered with plain JSON."""
    kind = response.headers.get("content-type", "")
    if not kind.startswith("application/json"):
        if kind and not kind.startswith("text/event-stream"):
            head = response.read()[: ByteTap.KEEP]
            raise _NotAReply(
                f"{where} 返回的不是 OpenAI 兼容的事件流（{kind.split(';')[0]}，not an event stream）：{preview(head)}"
            )
        try:
            yield from stream_chunks(tap.wrap(response.iter_bytes()))
        except MalformedEvent as error:  # quoted itself: it may come long after the stream's first bytes
            said = f"{where} 发来的事件无法解析（malformed stream: {error.kind}）：{preview(error.data)}"
            raise _NotAReply(said) from None
        return
    try:
        body = json.loads(response.read())
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("error"):
        # An error object in a 200 answer: said plainly, not retried.
        raise EndpointError("error", body)
    try:
        chunk = completion_as_chunk(body)
    except ValueError:
        raise _NotAReply(f"{where} 的回答不是对话回复（unexpected answer）：{preview(response.content)}") from None
    yield chunk


class _StreamCut(Exception):
    """The body ended before the server said the reply was finished."""


class OpenAICompatProvider:
    def __init__(
        self,
        base_url: str,
        model: str = "",
        api_key: str | None = None,
        *,
        api_key_env: str | None = None,
        profile: ProviderProfile | str | None = None,
        name: str | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        max_reply_chars: int = MAX_REPLY_CHARS,
        stream: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_reply_chars = max_reply_chars
        self.model = model
        # Keys pasted from a web page often carry a trailing newline or spaces.
        self.api_key = api_key.strip() if api_key else None
        self.api_key_env = api_key_env
        if isinstance(profile, ProviderProfile):
            self.profile = profile
        else:
            self.profile = detect_profile(self.base_url, model, profile)
        self.name = name or self.profile.name
        limits = timeouts or Timeouts()
        if timeout is not None:  # one number for both waits (tests, `pear models`)
            limits = replace(limits, first_byte=timeout, idle=timeout)
        if connect_timeout is not None:
            limits = replace(limits, connect=connect_timeout)
        # Streaming off (the connection's ``stream = false``): the reply comes as one JSON answer,
        # whose status line may only come when the reply is done: the first-byte and idle waits
        # are the whole call's.
        self.streaming = stream
        if not stream:
            whole = limits.total
            limits = replace(limits, first_byte=max(limits.first_byte, whole), idle=max(limits.idle, whole))
        self.timeouts = limits
        self.timeout = limits.first_byte
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._client: ChatClient | None = None
        self._client_lock = threading.Lock()

    # -- public

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        return self._stream(request, cancel)

    def list_models(self) -> list[str]:
        def fetch() -> list[str]:
            try:
                listed = self.client().get_json("/models").get("data")
                if not isinstance(listed, list):
                    raise AttributeError
                return sorted(str(model["id"]) for model in listed)
            except (ValueError, AttributeError, TypeError, KeyError):
                where = self._endpoint().base_url
                raise ProviderError(f"{where}/models 的回答不是模型列表（unexpected answer）") from None

        models: list[str] = self._call_with_retries(fetch, None)
        return models

    def client(self) -> ChatClient:
        with self._client_lock:
            if self._client is None:
                if not self.api_key and self.profile.needs_key:
                    where = f"环境变量 ${self.api_key_env}" if self.api_key_env else "api_key_env"
                    host = self._endpoint().host
                    raise ProviderError(f"{host} 需要 API 密钥（no API key）：请设置 {where}")
                if self.api_key and not self.api_key.isascii():
                    where = f"${self.api_key_env}" if self.api_key_env else "api_key"
                    raise ProviderError(f"API 密钥里有非 ASCII 字符（invalid API key），请检查 {where}")
                self._client = ChatClient(
                    self.base_url,
                    self.api_key or NO_KEY,
                    # Reads wait up to the longer limit; the shorter one is the watcher's (see _stream).
                    Timeout(max(self.timeouts.first_byte, self.timeouts.idle), connect=self.timeouts.connect),
                )
            return self._client

    def close(self) -> None:
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _drop(self, client: ChatClient) -> None:
        """Wake a request blocked in *client* (its sockets shut down, one still being made too) and
        retire it; the next request builds a new one."""
        with self._client_lock:
            if self._client is client:
                self._client = None
        client.close()

    # -- streaming

    def _stream(self, request: ChatRequest, cancel: threading.Event | None) -> Iterator[StreamEvent]:
        model = request.model or self.model
        if not model:
            raise ProviderError(
                f"没有为 {self._endpoint().host} 选定模型（no model）", hint="`pear models` 可列出可用模型", fix="model"
            )
        kwargs = build_create_kwargs(request, model, self.profile)
        if not self.streaming or request.stream is False:
            kwargs["stream"] = False
            kwargs.pop("stream_options", None)
        where = self._endpoint(model)
        limits = self.timeouts
        deadline = time.monotonic() + limits.total
        attempt = 0
        while True:
            attempt += 1
            if cancel is not None and cancel.is_set():
                yield Done(stop_reason="aborted", model=model)
                return
            reader = ChunkReader(model)
            tap = ByteTap()
            watch: CancelWatch | None = None
            try:
                # Waiting for the status line: the watcher closes the client on a cancel, after
                # first_byte seconds, or at the deadline (a blocked connect/read cannot be woken otherwise).
                first_byte = time.monotonic() + limits.first_byte
                client = self.client()
                opening = CancelWatch(
                    cancel,
                    interrupt=partial(self._drop, client),
                    deadline=min(deadline, first_byte),
                    deadline_reason="first_byte" if first_byte < deadline else "total",
                )
                watch = opening
                with opening:
                    try:
                        response = self._open_stream(client, kwargs)
                    except RuntimeError:  # the watcher closed the client just before the request went out
                        if opening.fired is None:
                            raise
                        raise _StreamCut() from None
                try:
                    tap.last = time.monotonic()
                    watch = CancelWatch(cancel, response, idle=limits.idle, deadline=deadline, tap=tap)
                    with watch:
                        for chunk in _chunks_of(response, where.base_url, tap):
                            yield from reader.feed(chunk)
                            if reader.received > self.max_reply_chars:
                                raise ProviderError(
                                    f"{where.host} 的回复超过 {self.max_reply_chars:,} 个字符，已停止接收"
                                    "（reply too long）：已收到的部分保留"
                                )
                            if cancel is not None and cancel.is_set():
                                yield Done(stop_reason="aborted", model=reader.model)
                                return
                finally:
                    response.close()
                if not reader.complete:
                    raise _StreamCut()
                if not reader.replied:  # only reasoning is no reply either (the loop says the same)
                    reason = reader.finish_reason or "none"
                    if reader.thought:
                        raise ProviderError(
                            f"{where.base_url} 的回复只有思考，没有正文（reasoning only, finish_reason={reason}）"
                        )
                    raise ProviderError(
                        f"{where.base_url} 的回复是空的（empty reply, finish_reason={reason}）：{preview(tap.head)}"
                    )
                yield from reader.finish()
                return
            except _NotAReply as error:
                raise ProviderError(str(error)) from None
            except (EndpointError, HTTPError, _StreamCut) as error:
                if cancel is not None and cancel.is_set():
                    # The cancel watcher shut the socket (or the failure raced a cancel): not an error.
                    yield Done(stop_reason="aborted", model=reader.model)
                    return
                if reader.complete and not isinstance(error, StatusError):
                    # The reply had finished; only the trailing usage / [DONE] was lost.
                    yield from reader.finish()
                    return
                failure = self._failure(error, where, reader, tap, watch.fired if watch else None)
                if reader.produced:
                    # Retrying would repeat what the caller already showed; it keeps the partial reply.
                    raise ProviderError(f"回复中途断开（reply cut off mid-stream）：{failure.message}") from None
                self._wait_before_retry(failure, attempt, cancel, deadline)
                if cancel is not None and cancel.is_set():
                    yield Done(stop_reason="aborted", model=model)
                    return

    def _failure(
        self, error: Exception, where: Endpoint, reader: ChunkReader, tap: ByteTap, fired: str | None
    ) -> Failure:
        """What went wrong, in one line: a timeout the watcher enforced, a stream that ended without
        a reply (and what it held instead), or whatever the HTTP layer reports."""
        limits = self.timeouts
        if fired == "total":
            return Failure(f"{where.host} {limits.total:g} 秒内没有完成回复（total timeout）", retryable=False)
        if fired == "idle":
            return Failure(f"{where.host} 的回复停了 {limits.idle:g} 秒没有新内容（idle timeout）", retryable=True)
        if fired == "first_byte":
            return Failure(f"{where.host} {limits.first_byte:g} 秒内没有回应（timed out）", retryable=True)
        if isinstance(error, _StreamCut):
            if tap.total and not reader.chunks:
                text = f"{where.base_url} 只发来 [DONE]，没有任何回复（empty stream）：{preview(tap.head)}"
                return Failure(text, retryable=False)
            if reader.chunks and not reader.choices:
                text = f"{where.base_url} 的回复里没有 choices（empty choices）：{preview(tap.head)}"
                return Failure(text, retryable=False)
            text = f"{where.host} 在回复结束前关闭了连接（connection closed early）：{preview(tap.head)}"
            return Failure(text, retryable=True)
        return classify(error, where, self.timeout, limits.connect)

    def _open_stream(self, client: ChatClient, kwargs: dict[str, Any]) -> Response:
        """The chat POST: the body we built, ``extra_body`` merged into it (the openai SDK's
        ``create(**kwargs)`` sent the same JSON: ``test_sdk_transform_is_identity_on_our_bodies``)."""
        body = {key: value for key, value in kwargs.items() if key != "extra_body"}
        body.update(kwargs.get("extra_body") or {})
        return client.open_chat_stream(body)

    # -- retries

    def _call_with_retries(self, fn: Callable[[], Any], cancel: threading.Event | None) -> Any:
        attempt = 0
        while True:
            attempt += 1
            try:
                return fn()
            except (EndpointError, HTTPError) as error:
                failure = classify(error, self._endpoint(), self.timeout, self.timeouts.connect)
                self._wait_before_retry(failure, attempt, cancel)

    def _wait_before_retry(
        self, failure: Failure, attempt: int, cancel: threading.Event | None, deadline: float | None = None
    ) -> None:
        """Sleep before the next attempt, or raise the one-line error when there is none."""
        if not failure.retryable or attempt >= self.retry.attempts:
            tries = f"（已尝试 {attempt} 次）" if attempt > 1 else ""
            raise failure_error(failure, failure.message + tries)
        if failure.retry_after is not None and failure.retry_after > self.retry.max_retry_after:
            wait = f"{failure.retry_after:.0f}"
            raise failure_error(failure, f"{failure.message}（服务器要求等待 {wait} 秒，不再重试）")
        delay = self.retry.delay(attempt, failure.retry_after)
        if deadline is not None and time.monotonic() + delay >= deadline:
            total = f"{self.timeouts.total:g}"
            raise failure_error(failure, f"{failure.message}（已尝试 {attempt} 次，{total} 秒的总时限内不再重试）")
        if self._sleep is not None:
            self._sleep(delay)
        elif cancel is not None:
            cancel.wait(delay)
        else:
            time.sleep(delay)

    def _endpoint(self, model: str | None = None) -> Endpoint:
        return Endpoint(self.base_url, model or self.model, self.api_key_env)

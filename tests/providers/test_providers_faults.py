"""Endpoints that misbehave (issue 18, points 5–6): each fault has its own one-line message naming the
endpoint and quoting what came back, and every wait has a limit (connect, first byte, idle, total)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from peargarden.errors import ProviderError
from peargarden.providers.base import ChatRequest, Done, StreamEvent, TextDelta, Timeouts
from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy
from peargarden.testing.fake_openai import FakeOpenAIServer, Gate, Pause, RawReply, chunk, sse, text_reply

Make = Callable[..., OpenAICompatProvider]


def ask() -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "掌柜在吗？"}])


def failure(provider: OpenAICompatProvider) -> str:
    with pytest.raises(ProviderError) as caught:
        list(provider.stream(ask()))
    message = str(caught.value)
    assert "\n" not in message and provider.base_url.split("//")[1].split("/")[0] in message
    return message


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (RawReply("<!DOCTYPE html><html><title>登录</title>".encode()), ["text/html", "<!DOCTYPE html>", "登录"]),
        (sse(chunk(content="x") | {"choices": []}, {"id": "1", "choices": []}), ["empty choices", '\\"choices\\": []']),
        (sse(), ["[DONE]", "empty stream", "data: [DONE]"]),
        (sse("data: {这不是 JSON\n\n"), ["malformed stream: JSONDecodeError", "{这不是 JSON"]),
        (sse(b"data: \xff\xfe\n\n"), ["malformed stream: UnicodeDecodeError", "\\\\xff\\\\xfe"]),
        (sse(chunk(role="assistant", content=""), chunk(finish_reason="stop")), ["empty reply", "finish_reason=stop"]),
    ],
    ids=["html-200", "empty-choices", "bare-done", "bad-json", "bad-utf8", "empty-reply"],
)
def test_each_fault_has_its_own_line_and_is_not_retried(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float], reply: object, words: list[str]
) -> None:
    fake_server.script([reply])  # type: ignore[list-item]
    message = failure(make_provider())
    for word in words:
        assert word in message
    assert "connection closed early" not in message and "Error:" not in message
    assert sleeps == [] and len(fake_server.chat_requests) == 1  # the same answer again would not help


@pytest.mark.parametrize(
    ("bad", "kind", "quoted"),
    [(b"data: {\xe5\x9d\x8f\xe7\x9a\x84 JSON\n\n", "JSONDecodeError", "{坏的 JSON"),
     (b"data: \xff\xfe\xe9\x9b\xa8\n\n", "UnicodeDecodeError", "\\\\xff\\\\xfe")],
    ids=["bad-json", "bad-utf8"],
)  # fmt: skip
def test_a_malformed_event_after_good_ones_is_quoted_itself(
    fake_server: FakeOpenAIServer, make_provider: Make, bad: bytes, kind: str, quoted: str
) -> None:
    """Issue 32, point 8: the line quotes the bad event, not the stream's first bytes (which were fine)."""
    good = [chunk(role="assistant", content="")] + [chunk(content="雨还在下，" * 20) for _ in range(5)]
    fake_server.script([sse(*good, bad)])
    message = failure(make_provider())
    assert f"malformed stream: {kind}" in message and quoted in message, message
    assert "chat.completion.chunk" not in message  # the good first events are not what is quoted


def test_a_cut_stream_still_says_closed_early_and_is_retried(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    fake_server.script([sse(chunk(role="assistant"), done=False), text_reply("在的。")])
    events = list(make_provider().stream(ask()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "在的。" and len(sleeps) == 1


def test_first_byte_timeout_then_total_timeout_bound_a_silent_endpoint(
    fake_server: FakeOpenAIServer, make_provider: Make
) -> None:
    late = text_reply("迟到了")
    late.delay = 30.0
    fake_server.default_reply = late
    # One try: the first-byte limit ends it (the read timeout alone would wait 5 s).
    # (idle 25: the HTTP read timeout is the longer limit, so only the 0.5 s watcher can end it early)
    single = make_provider(timeout=None, timeouts=Timeouts(connect=5, first_byte=0.5, idle=25, total=60))
    single.retry = RetryPolicy(attempts=1)
    started = time.monotonic()
    assert "0.5 秒内没有回应（timed out）" in failure(single)
    assert time.monotonic() - started < 15  # generous: a loaded machine, but far below the 25 s
    # Retried first-byte timeouts stop at the total limit, however many tries were allowed.
    limits = Timeouts(connect=5, first_byte=0.5, idle=25, total=1.8)
    retry = RetryPolicy(attempts=10, base_delay=0.1)
    provider = make_provider(timeout=None, timeouts=limits, retry=retry, sleep=None)
    started = time.monotonic()
    message = failure(provider)
    assert "1.8 秒" in message and ("total timeout" in message or "总时限" in message)
    assert time.monotonic() - started < 15 and len(fake_server.chat_requests) >= 2


def test_idle_timeout_mid_stream_keeps_the_words_already_sent(
    fake_server: FakeOpenAIServer, make_provider: Make
) -> None:
    fake_server.script([sse(chunk(content="话说"), Pause(20.0), chunk(content="到此"))])
    provider = make_provider(timeout=None, timeouts=Timeouts(first_byte=5, idle=0.5, total=30))
    received: list[StreamEvent] = []
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"reply cut off mid-stream.*0\.5 秒没有新内容（idle timeout）"):
        for event in provider.stream(ask()):
            received.append(event)
    assert time.monotonic() - started < 10
    assert [e.text for e in received if isinstance(e, TextDelta)] == ["话说"]


def test_cancel_ends_a_wait_for_the_status_line(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    """The server never sends its headers: a cancel (Ctrl-C) still ends the wait at once."""
    gate = threading.Event()
    fake_server.script([sse(Gate(gate), delay=30.0)])
    provider = make_provider(timeout=None, timeouts=Timeouts(first_byte=60, total=120))
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    events = list(provider.stream(ask(), cancel))
    assert time.monotonic() - started < 15  # the server would hold the status line for 30 s
    assert isinstance(events[-1], Done) and events[-1].stop_reason == "aborted"
    gate.set()


def test_connect_timeout_bounds_an_endpoint_that_never_accepts(make_provider: Make, sleeps: list[float]) -> None:
    """A listener whose accept queue is full drops the handshake: without a connect limit the wait
    is the system's (minutes).  The connect limit ends it and the line names the endpoint."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    queued = []
    for _ in range(5):  # fill the accept queue: later handshakes are dropped, not refused
        waiting = socket.socket()
        waiting.setblocking(False)
        waiting.connect_ex(("127.0.0.1", port))  # in progress, or queued: never accepted
        queued.append(waiting)
    try:
        provider = make_provider(
            base_url=f"http://127.0.0.1:{port}/v1", timeout=None,
            timeouts=Timeouts(connect=0.5, first_byte=60, idle=60, total=120), retry=RetryPolicy(attempts=1),
        )  # fmt: skip
        started = time.monotonic()
        message = failure(provider)
        elapsed = time.monotonic() - started
    finally:
        for waiting in queued:
            waiting.close()
        listener.close()
    assert f"127.0.0.1:{port}" in message and "connect" in message, message
    assert elapsed < 20  # generous on a loaded machine; the first-byte and total limits are 60 and 120 s


def test_cancel_while_connecting_still_ends_the_wait(
    fake_server: FakeOpenAIServer, make_provider: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel during the connect closes the client before the connection has a socket; the
    connection made after it must not send the request and wait for a status line the server
    holds for 30 s."""
    gate = threading.Event()
    fake_server.script([sse(Gate(gate), delay=30.0)])
    provider = make_provider(timeout=None, timeouts=Timeouts(first_byte=60, total=120))
    connect = socket.create_connection

    def slow_connect(*args: Any, **kwargs: Any) -> socket.socket:  # a slow TCP connect
        time.sleep(1.0)
        return connect(*args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", slow_connect)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()  # while the connect still sleeps
    started = time.monotonic()
    events = list(provider.stream(ask(), cancel))
    assert time.monotonic() - started < 15  # the server would hold the status line for 30 s
    assert isinstance(events[-1], Done) and events[-1].stop_reason == "aborted"
    gate.set()

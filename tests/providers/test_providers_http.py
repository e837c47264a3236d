"""The provider's HTTP side (providers/_http.py): server-sent events as it reads them (every line
ending, any cut between network reads, comments, events without data, ``[DONE]``, error events) and
the TLS context its clients share (the transport itself: test_providers_wire.py)."""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable

import pytest

from peargarden.providers import wire
from peargarden.providers._http import EndpointError, MalformedEvent, sse_data, stream_chunks
from peargarden.providers.base import ChatRequest, TextDelta
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.providers.wire import tls_context
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

STREAM = (
    ": keep-alive\r\n\r\n"
    'data: {"choices": [{"delta": {"content": "春眠"}}]}\r\n\r\n'
    'data: {"choices": [{"delta":\n'
    'data: {"content": "不觉晓"}}]}\n\n'
    'data:{"model": "梨园"}\r\r'
    "event: ping\n\n"
    "retry: 3000\r\n\r\n"
    "data: [DONE]\n\n"
)


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_events_are_the_same_however_the_bytes_are_cut(size: int) -> None:
    events = list(sse_data(iter(pieces(STREAM.encode("utf-8"), size))))
    assert events == [
        '{"choices": [{"delta": {"content": "春眠"}}]}',
        '{"choices": [{"delta":\n{"content": "不觉晓"}}]}',
        '{"model": "梨园"}',
        "",  # event: ping
        "",  # retry: 3000
        "[DONE]",
    ]


def test_a_cr_at_the_end_of_a_read_is_one_line_end_with_the_lf_that_follows() -> None:
    # "\r" | "\n" across two reads is one CRLF: one empty line, so one event, not an extra one.
    assert list(sse_data(iter([b"data: a\r", b"\n\r", b"\ndata: b\r", b"\r"]))) == ["a", "b"]


def test_an_event_the_body_ends_without_a_blank_line_is_not_sent() -> None:
    assert list(sse_data(iter([b"data: 1\n\n", b"data: 2\n"]))) == ["1"]


def test_chunks_stop_at_done_and_an_error_event_raises() -> None:
    body = b'data: {"a": 1}\n\ndata: [DONE]\n\ndata: {"b": 2}\n\n'
    assert list(stream_chunks(iter([body]))) == [{"a": 1}]
    error = {"error": {"message": "上游模型过载", "code": 502}}
    with pytest.raises(EndpointError) as caught:
        list(stream_chunks(iter([f"data: {json.dumps(error)}\n\n".encode()])))
    assert caught.value.message == "上游模型过载" and caught.value.body == error["error"]


def test_bytes_that_are_not_utf8_or_json_raise_value_errors_holding_them() -> None:
    with pytest.raises(MalformedEvent) as caught:
        list(sse_data(iter([b"data: \xff\xfe\n\n"])))
    assert isinstance(caught.value, ValueError) and caught.value.kind == "UnicodeDecodeError"
    assert caught.value.data == b"data: \xff\xfe"
    with pytest.raises(MalformedEvent) as caught:
        list(stream_chunks(iter(["data: {这不是 JSON\n\n".encode()])))
    assert caught.value.kind == "JSONDecodeError" and caught.value.data == "{这不是 JSON".encode()


def test_clients_share_one_tls_context_that_verifies() -> None:
    assert tls_context() is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED and tls_context().check_hostname


def test_a_plain_http_endpoint_never_loads_the_ca_bundle(
    monkeypatch: pytest.MonkeyPatch, fake_server: FakeOpenAIServer, make_provider: Callable[..., OpenAICompatProvider]
) -> None:
    monkeypatch.setattr(wire, "_tls", None)  # as in a new process
    fake_server.script([text_reply("客官，", "楼上请。")])
    provider = make_provider()
    request = ChatRequest(model="fake-model", messages=[{"role": "user", "content": "有空房吗？"}])
    events = list(provider.stream(request))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "客官，楼上请。"
    assert wire._tls is None

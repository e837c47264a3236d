"""A long reply (issue 32, point 1): read in one pass over the stream, and capped with one clear line.

How fast is for ``bench/bench_long_reply.py``; here: the line splitter means exactly what the
server-sent-events rules say however the bytes are cut, a reply past the cap stops the stream and
keeps what came, and the token estimate of a long text counts what it counted before."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from peargarden.errors import ProviderError
from peargarden.providers._http import _lines, stream_chunks
from peargarden.providers.base import ChatRequest, TextDelta, ThinkingDelta
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse
from peargarden.text.tokens import EstimateCounter

Make = Callable[..., OpenAICompatProvider]


def _reference_lines(stream: bytes) -> list[bytes]:
    """The lines of the whole stream at once: CRLF, LF and CR each end a line; a last line without
    an ending is a line too."""
    lines = re.split(rb"\r\n|\r|\n", stream)
    if lines and lines[-1] == b"" and stream[-1:] in (b"\r", b"\n"):
        lines.pop()
    return lines if stream else []


def test_lines_are_the_same_however_the_stream_is_cut() -> None:
    rng = random.Random(32)
    for _ in range(3000):
        stream = bytes(rng.choice(b"ab\r\n:") for _ in range(rng.randint(0, 40)))
        cuts = sorted(rng.sample(range(len(stream) + 1), min(len(stream) + 1, rng.randint(0, 8))))
        pieces = [stream[i:j] for i, j in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
        assert list(_lines(iter(pieces))) == _reference_lines(stream), pieces


def test_one_long_event_cut_into_many_reads_is_one_event() -> None:
    text = "雨" * 200_000
    body = ('data: {"choices":[{"index":0,"delta":{"content":"' + text + '"}}]}\n\ndata: [DONE]\n\n').encode()
    pieces = [body[i : i + 1000] for i in range(0, len(body), 1000)]  # CJK split mid-character too
    chunks = list(stream_chunks(iter(pieces)))
    assert [c["choices"][0]["delta"]["content"] for c in chunks] == [text]


def test_events_the_fast_decoder_refuses_mean_what_json_says() -> None:
    body = b'data: {"usage": {"prompt_tokens": NaN}, "x": "\\ud800"}\n\ndata: [DONE]\n\n'
    (event,) = stream_chunks(iter([body]))
    assert event["x"] == "\ud800" and event["usage"]["prompt_tokens"] != event["usage"]["prompt_tokens"]


def test_a_reply_past_the_cap_stops_with_one_line_and_keeps_what_came(
    fake_server: FakeOpenAIServer, make_provider: Make
) -> None:
    pieces = [chunk(reasoning_content="想" * 40)] + [chunk(content="雨声" * 20) for _ in range(50)]
    fake_server.script([sse(*pieces, chunk(finish_reason="stop"))])
    provider = make_provider(max_reply_chars=1000)
    got: list[object] = []
    with pytest.raises(ProviderError) as caught:
        for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "讲个故事"}])):
            got.append(event)
    message = str(caught.value)
    assert "\n" not in message and "1,000" in message and "reply too long" in message
    assert "127.0.0.1" in message
    text = "".join(e.text for e in got if isinstance(e, TextDelta))
    thinking = "".join(e.text for e in got if isinstance(e, ThinkingDelta))
    # Stopped at the first delta past the cap: 40 characters of reasoning, then 25 deltas of 40 (1,040 > 1,000).
    assert thinking == "想" * 40 and text == "雨声" * 20 * 25
    assert len(fake_server.chat_requests) == 1  # not retried


def test_the_estimate_counts_cjk_as_before() -> None:
    cjk = re.compile("[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
    count = EstimateCounter()
    rng = random.Random(7)
    alphabet = "雨声ab 。，한글カナ\n\uff01x"
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        cjk_chars = len(cjk.findall(text))
        raw = cjk_chars * 1.0 + (len(text) - cjk_chars) / 3.5
        expected = 0 if not text else max(1, int(raw * 1.1 + 0.999))
        assert count(text) == expected, text

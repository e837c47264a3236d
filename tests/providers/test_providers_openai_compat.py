"""The OpenAI-compatible provider over real HTTP against the fake server."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable

import pytest

from peargarden.errors import ProviderError
from peargarden.providers.base import (
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSpec,
    Usage,
)
from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy
from peargarden.testing.fake_openai import (
    Disconnect,
    FakeOpenAIServer,
    JsonReply,
    Pause,
    chunk,
    sse,
    status,
    text_reply,
    tool_call_delta,
    usage_chunk,
)

Make = Callable[..., OpenAICompatProvider]


def ask(text: str = "青梧是谁？", **fields: object) -> ChatRequest:
    return ChatRequest(
        messages=[{"role": "system", "content": "你是说书人。"}, {"role": "user", "content": text}], **fields
    )  # type: ignore[arg-type]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def thinking_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ThinkingDelta))


def collect(provider: OpenAICompatProvider, request: ChatRequest) -> list[StreamEvent]:
    return list(provider.stream(request))


# -- streaming


def test_streams_chinese_text_usage_and_done(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([text_reply("青梧", "是一位", "隐居的琴师。", usage=(42, 7))])
    events = collect(make_provider(), ask())

    assert text_of(events) == "青梧是一位隐居的琴师。"
    assert events[-2:] == [Usage(42, 7), Done("stop", "fake-model")]
    body = fake_server.chat_requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "fake-model"
    assert body["messages"][1] == {"role": "user", "content": "青梧是谁？"}


def test_streaming_off_asks_for_the_whole_reply(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    """``stream = false`` on a connection: ``"stream": false`` in the body, the one JSON answer read as
    the reply (text, reasoning, usage); the first-byte wait is the whole call's."""
    pieces = [chunk(role="assistant", content=""), chunk(reasoning_content="想一想。"), chunk(content="青梧是琴师。")]
    fake_server.script([sse(*pieces, chunk(finish_reason="stop"), usage_chunk(30, 6))])
    provider = make_provider(stream=False)
    events = collect(provider, ask())
    assert text_of(events) == "青梧是琴师。" and thinking_of(events) == "想一想。"
    assert events[-2:] == [Usage(30, 6), Done("stop", "fake-model")]
    body = fake_server.chat_requests[0].body
    assert body["stream"] is False and "stream_options" not in body
    assert provider.timeouts.first_byte == provider.timeouts.total


def test_sse_framing_comments_byte_splits_and_missing_done(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    # Keep-alive comments, events cut into 7-byte network pieces (through UTF-8 characters), no [DONE].
    fake_server.script(
        [
            sse(
                ": keep-alive\n\n",
                chunk(content="春眠不觉晓，"),
                ": ping\n\n",
                # CRLF framing and an event split over two data lines, as some proxies send.
                'data: {"choices": [{"index": 0,\r\ndata: "delta": {"content": "处处"}}]}\r\n\r\n',
                chunk(content="闻啼鸟。"),
                chunk(finish_reason="stop"),
                usage_chunk(9, 12, cached_tokens=4),
                done=False,
                split_bytes=7,
            )
        ]
    )
    events = collect(make_provider(), ask())
    assert text_of(events) == "春眠不觉晓，处处闻啼鸟。"
    assert Usage(9, 12, 4) in events
    assert events[-1] == Done("stop", "fake-model")


@pytest.mark.parametrize(
    "field",
    ["reasoning_content", "reasoning", "reasoning_details"],
)
def test_reasoning_from_each_field(fake_server: FakeOpenAIServer, make_provider: Make, field: str) -> None:
    def piece(text: str) -> dict[str, object]:
        if field == "reasoning_details":
            return chunk(reasoning_details=[{"type": "reasoning.text", "text": text, "format": "unknown"}])
        return chunk(**{field: text})  # type: ignore[arg-type]

    fake_server.script(
        [
            sse(
                piece("先想"),
                piece("一想。"),
                chunk(content="答："),
                chunk(content="好。"),
                chunk(finish_reason="stop"),
            )
        ]
    )
    events = collect(make_provider(), ask())
    assert thinking_of(events) == "先想一想。"
    assert text_of(events) == "答：好。"
    # Thinking comes before the text it precedes.
    kinds = [e.type for e in events]
    assert kinds.index("text") > kinds.index("thinking")


def test_openrouter_duplicate_reasoning_shown_once(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    both = chunk(reasoning="思考", reasoning_details=[{"type": "reasoning.text", "text": "思考"}])
    fake_server.script([sse(both, chunk(content="嗯"), chunk(finish_reason="stop"))])
    events = collect(make_provider(), ask())
    assert thinking_of(events) == "思考"


def test_think_tags_split_across_chunks(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    pieces = ["<th", "ink>月色", "很好</thi", "nk", ">", "今晚", "<", "去赏月。"]
    fake_server.script([sse(*[chunk(content=p) for p in pieces], chunk(finish_reason="stop"))])
    events = collect(make_provider(), ask())
    assert thinking_of(events) == "月色很好"
    assert text_of(events) == "今晚<去赏月。"


# -- tool calls


def test_tool_call_with_cjk_split_inside_escapes_and_bytes(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    wanted = {"query": "青梧的身世", "limit": 3}
    escaped = json.dumps(wanted)  # ASCII with \\uXXXX escapes
    cut = escaped.index("\\u") + 3  # split inside the escape of the first CJK character
    raw = json.dumps({"note": "桃花源"}, ensure_ascii=False)
    fake_server.script(
        [
            sse(
                chunk(role="assistant"),
                chunk(tool_calls=[tool_call_delta(0, id="call_甲", name="lorebook_search")]),
                chunk(tool_calls=[tool_call_delta(0, arguments=escaped[:cut])]),
                chunk(tool_calls=[tool_call_delta(0, arguments=escaped[cut:])]),
                chunk(tool_calls=[tool_call_delta(1, id="call_乙", name="note_write", arguments=raw[:9])]),
                chunk(tool_calls=[tool_call_delta(1, arguments=raw[9:])]),
                chunk(finish_reason="tool_calls"),
                usage_chunk(30, 20),
                split_bytes=5,
            )  # also cut the SSE bytes through UTF-8 characters
        ]
    )
    events = collect(make_provider(), ask(tools=[ToolSpec("lorebook_search", "搜索设定", {"type": "object"})]))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["lorebook_search", "note_write"]
    assert [c.id for c in calls] == ["call_甲", "call_乙"]
    assert json.loads(calls[0].arguments) == wanted
    assert json.loads(calls[1].arguments) == {"note": "桃花源"}
    assert events[-1] == Done("tool_calls", "fake-model")
    body = fake_server.chat_requests[0].body
    assert body["tools"][0]["function"]["name"] == "lorebook_search"


def test_interleaved_tool_calls_come_out_in_index_order(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script(
        [
            sse(
                chunk(tool_calls=[tool_call_delta(1, id="b", name="second", arguments='{"n":')]),
                chunk(tool_calls=[tool_call_delta(0, id="a", name="first", arguments='{"m":')]),
                chunk(tool_calls=[tool_call_delta(1, arguments="2}"), tool_call_delta(0, arguments="1}")]),
                chunk(finish_reason="stop"),
            )  # some servers say "stop" after tool calls
        ]
    )
    events = collect(make_provider(), ask())
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert calls == [ToolCall("a", "first", '{"m":1}'), ToolCall("b", "second", '{"n":2}')]
    assert events[-1].type == "done" and events[-1].stop_reason == "tool_calls"


def test_truncated_tool_json_is_passed_on_raw(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script(
        [
            sse(
                chunk(tool_calls=[tool_call_delta(0, id="t1", name="lorebook_write")]),
                chunk(tool_calls=[tool_call_delta(0, arguments='{"title": "长安城", "body": "朱雀大')]),
                chunk(finish_reason="length"),
            )
        ]
    )
    events = collect(make_provider(), ask())
    assert ToolCall("t1", "lorebook_write", '{"title": "长安城", "body": "朱雀大') in events
    assert events[-1] == Done("length", "fake-model")


def test_plain_json_answer_to_a_stream_request(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "proxy-model",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "<think>先查设定</think>稍等。",
                    "tool_calls": [
                        {
                            "id": "t",
                            "type": "function",
                            "function": {"name": "lorebook_search", "arguments": '{"query": "听雨楼"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
    fake_server.script([JsonReply(body=completion)])
    events = collect(make_provider(), ask())
    assert thinking_of(events) == "先查设定" and text_of(events) == "稍等。"
    assert ToolCall("t", "lorebook_search", '{"query": "听雨楼"}') in events
    assert events[-2:] == [Usage(11, 7), Done("tool_calls", "proxy-model")]


def test_error_object_in_a_200_answer(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([JsonReply(body={"error": {"message": "余额不足"}})])
    with pytest.raises(ProviderError, match="余额不足"):
        collect(make_provider(), ask())
    assert len(fake_server.chat_requests) == 1


# -- request body


def test_sampler_thinking_and_tool_choice_reach_the_body(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([text_reply("好")])
    forced = {"type": "function", "function": {"name": "lorebook_search"}}
    request = ask(
        sampler={"temperature": 0.7, "top_k": 40, "repetition_penalty": 1.1, "stream": False, "model": "x"},
        thinking="high",
        tools=[ToolSpec("lorebook_search", "搜索", {"type": "object", "properties": {}})],
        tool_choice=forced,
    )
    collect(make_provider(profile="openrouter", api_key="k"), request)
    body = fake_server.chat_requests[0].body
    assert (body["temperature"], body["top_k"], body["repetition_penalty"]) == (0.7, 40, 1.1)
    assert body["stream"] is True and body["model"] == "fake-model"  # reserved fields not overridden
    assert body["reasoning"] == {"effort": "high"}
    assert body["tool_choice"] == forced
    assert fake_server.chat_requests[0].headers["authorization"] == "Bearer k"


def test_openai_profile_renames_max_tokens_and_maps_effort(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([text_reply("好"), text_reply("好")])
    provider = make_provider(profile="openai", api_key="sk-test", model="gpt-5-mini")
    collect(provider, ask(sampler={"max_tokens": 300}, thinking="minimal"))
    collect(provider, ask(sampler={"max_tokens": 300}, thinking="off", model="gpt-4o"))
    first, second = (r.body for r in fake_server.chat_requests)
    assert first["max_completion_tokens"] == 300 and "max_tokens" not in first
    assert first["reasoning_effort"] == "minimal"
    assert second["model"] == "gpt-4o" and "reasoning_effort" not in second


def _history_with_reasoning() -> ChatRequest:
    return ChatRequest(
        messages=[
            {"role": "user", "content": "查一下青梧"},
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "该查设定。",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lorebook_search", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "青梧：琴师"},
            {"role": "assistant", "content": "她是琴师。"},
            {"role": "user", "content": "继续"},
        ],
        thinking="medium",
    )


def test_deepseek_thinking_sends_reasoning_back(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([text_reply("好")])
    collect(make_provider(profile="deepseek", api_key="k", model="deepseek-chat"), _history_with_reasoning())
    body = fake_server.chat_requests[0].body
    assistants = [m for m in body["messages"] if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in assistants] == ["该查设定。", ""]
    assert body["thinking"] == {"type": "enabled"}


@pytest.mark.parametrize("profile", ["generic", "openrouter", "vllm"])
def test_other_profiles_strip_reasoning(fake_server: FakeOpenAIServer, make_provider: Make, profile: str) -> None:
    fake_server.script([text_reply("好")])
    request = _history_with_reasoning()
    collect(make_provider(profile=profile, api_key="k"), request)
    sent = fake_server.chat_requests[0].body["messages"]
    assert all("reasoning_content" not in m for m in sent)
    assert sent[1]["tool_calls"][0]["id"] == "c1"
    assert request.messages[1]["reasoning_content"] == "该查设定。"  # the caller's history is untouched


def test_deepseek_thinking_off_strips_and_disables(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([text_reply("好")])
    request = _history_with_reasoning()
    request.thinking = "off"
    collect(make_provider(profile="deepseek", api_key="k", model="deepseek-chat"), request)
    body = fake_server.chat_requests[0].body
    assert all("reasoning_content" not in m for m in body["messages"])
    assert body["thinking"] == {"type": "disabled"}


# -- failures and retries


def test_401_is_not_retried_and_names_the_key(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    fake_server.script([status(401)])
    provider = make_provider(api_key="wrong", api_key_env="DEEPSEEK_API_KEY")
    with pytest.raises(ProviderError) as caught:
        collect(provider, ask())
    message = str(caught.value)
    assert "401" in message and "$DEEPSEEK_API_KEY" in message and "\n" not in message
    assert len(fake_server.chat_requests) == 1 and sleeps == []


def test_404_points_at_model_and_pear_models(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([status(404, "The model `nope` does not exist")])
    with pytest.raises(ProviderError, match=r"404.*'nope'.*pear models"):
        collect(make_provider(model="nope"), ask())


def test_429_then_success_honours_retry_after(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    fake_server.script([status(429, "slow down", headers={"Retry-After": "7"}), text_reply("终于", "好了")])
    events = collect(make_provider(), ask())
    assert text_of(events) == "终于好了"
    assert sleeps == [7.0]
    assert len(fake_server.chat_requests) == 2
    assert fake_server.chat_requests[0].body == fake_server.chat_requests[1].body


def test_retry_after_longer_than_allowed_gives_up(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    fake_server.script([status(429, headers={"Retry-After": "3600"})])
    with pytest.raises(ProviderError, match="等待 3600 秒"):
        collect(make_provider(), ask())
    assert sleeps == []


def test_5xx_exhausted_backs_off_exponentially(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    fake_server.script([status(500, "boom"), status(503, "busy"), status(502, "bad gateway")])
    with pytest.raises(ProviderError, match=r"服务器错误（502）.*bad gateway.*已尝试 3 次"):
        collect(make_provider(), ask())
    assert sleeps == [0.5, 1.0]


def test_400_shows_the_server_message(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([status(400, "The `reasoning_content` in the thinking mode must be passed back")])
    with pytest.raises(ProviderError, match=r"（400）.*reasoning_content"):
        collect(make_provider(), ask())


def test_timeout_before_headers_is_retried(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    # 2 s against 5 s: the prompt reply must beat the limit also on a loaded machine.
    slow = text_reply("迟到")
    slow.delay = 5.0
    fake_server.script([slow, text_reply("准时")])
    events = collect(make_provider(timeout=2.0), ask())
    assert text_of(events) == "准时"
    assert len(sleeps) == 1


def test_timeouts_exhausted(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([JsonReply(body={}, delay=3.0), JsonReply(body={}, delay=3.0)])
    provider = make_provider(timeout=1.0, retry=RetryPolicy(attempts=2, base_delay=0))
    with pytest.raises(ProviderError, match=r"timed out.*已尝试 2 次"):
        collect(provider, ask())


def test_stall_mid_stream_keeps_partial_text(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([sse(chunk(content="话说"), Pause(3.0), chunk(content="到此"))])
    received: list[StreamEvent] = []
    with pytest.raises(ProviderError, match="reply cut off mid-stream"):
        for event in make_provider(timeout=1.0).stream(ask()):
            received.append(event)
    assert text_of(received) == "话说"
    assert len(fake_server.chat_requests) == 1  # never retried after text went out


def test_disconnect_mid_stream_raises_after_partial_text(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([sse(chunk(content="从前有座山，"), Disconnect())])
    received: list[StreamEvent] = []
    with pytest.raises(ProviderError, match="reply cut off mid-stream"):
        for event in make_provider().stream(ask()):
            received.append(event)
    assert text_of(received) == "从前有座山，"


def test_disconnect_after_the_finish_reason_still_completes(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    call = tool_call_delta(0, id="c9", name="lorebook_search", arguments='{"query": "渡口"}')
    fake_server.script(
        [sse(chunk(content="稍等。"), chunk(tool_calls=[call]), chunk(finish_reason="tool_calls"), Disconnect())]
    )
    events = collect(make_provider(), ask())
    assert ToolCall("c9", "lorebook_search", '{"query": "渡口"}') in events
    assert events[-1] == Done("tool_calls", "fake-model")
    assert len(fake_server.chat_requests) == 1


def test_disconnect_before_any_output_is_retried(
    fake_server: FakeOpenAIServer, make_provider: Make, sleeps: list[float]
) -> None:
    # A reply with no content that ends without a finish reason is cut too: retried, nothing was shown.
    fake_server.script([sse(Disconnect()), sse(chunk(role="assistant"), done=False), text_reply("成了")])
    events = collect(make_provider(), ask())
    assert text_of(events) == "成了"
    assert len(sleeps) == 2 and len(fake_server.chat_requests) == 3


def test_error_event_inside_stream(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.script([sse({"error": {"message": "上游模型过载", "code": 502}})])
    with pytest.raises(ProviderError, match="上游模型过载"):
        collect(make_provider(), ask())


def test_connection_refused_is_one_clear_line(make_provider: Make, sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = make_provider(base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ProviderError, match=rf"无法连接 http://127.0.0.1:{port}/v1.*已尝试 3 次"):
        collect(provider, ask())
    assert len(sleeps) == 2


def test_missing_key_for_a_cloud_profile(make_provider: Make) -> None:
    provider = make_provider(profile="deepseek", api_key=None, api_key_env="DEEPSEEK_API_KEY")
    with pytest.raises(ProviderError, match=r"no API key.*\$DEEPSEEK_API_KEY"):
        collect(provider, ask())


# -- cancellation


def test_cancel_between_chunks(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    pieces = [chunk(content=f"第{i}句。") for i in range(50)]
    fake_server.script([sse(*[x for p in pieces for x in (p, Pause(0.02))], chunk(finish_reason="stop"))])
    cancel = threading.Event()
    received: list[StreamEvent] = []
    for event in make_provider().stream(ask(), cancel):
        received.append(event)
        if len(received) == 2:
            cancel.set()
    assert received[-1] == Done("aborted", "fake-model")
    assert text_of(received) == "第0句。第1句。"


def test_cancel_wakes_a_read_blocked_on_a_silent_server(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    # The server goes quiet for longer than the test would tolerate; the read timeout is longer still.
    fake_server.script([sse(chunk(content="山雨欲来"), Pause(30.0), chunk(content="风满楼"))])
    cancel = threading.Event()
    received: list[StreamEvent] = []
    # The cancel comes 0.3 s after the first words, while the read waits in the pause (counted from the
    # start, a loaded machine could cancel before the first chunk had arrived).
    timer = threading.Timer(0.3, cancel.set)
    try:
        for event in make_provider(timeout=60.0).stream(ask(), cancel):
            received.append(event)
            if not timer.is_alive() and not cancel.is_set() and text_of(received):
                timer.start()
    finally:
        timer.cancel()
    assert text_of(received) == "山雨欲来"
    assert received[-1] == Done("aborted", "fake-model")
    assert len(fake_server.chat_requests) == 1


def test_cancel_during_backoff_wait(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    cancel = threading.Event()
    fake_server.script([status(503)])
    provider = make_provider(sleep=lambda seconds: cancel.set())
    events = list(provider.stream(ask(), cancel))
    assert events == [Done("aborted", "fake-model")]
    assert len(fake_server.chat_requests) == 1


def test_already_cancelled_sends_nothing(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    cancel = threading.Event()
    cancel.set()
    assert list(make_provider().stream(ask(), cancel)) == [Done("aborted", "fake-model")]
    assert fake_server.chat_requests == []


# -- models


def test_list_models(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    assert make_provider().list_models() == ["fake-model", "梨园-大模型"]


def test_list_models_401(fake_server: FakeOpenAIServer, make_provider: Make) -> None:
    fake_server.models_reply = status(401)
    with pytest.raises(ProviderError, match="401"):
        make_provider(api_key_env="MY_KEY").list_models()

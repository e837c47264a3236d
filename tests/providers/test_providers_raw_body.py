"""The provider posts the request body it built itself, skipping the SDK's per-message transform.

These pin that nothing is lost by that: the SDK's transform would have returned the same JSON for
every shape we send, and the server receives exactly the body we built (with ``extra_body`` merged
in and the bearer key in the header).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from peargarden.providers._request_body import build_create_kwargs
from peargarden.providers.base import ChatRequest, ToolSpec
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.providers.profiles import PROFILES
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

LOOKUP = ToolSpec(
    "lorebook_search",
    "在世界书里查找设定。",
    {"type": "object", "properties": {"query": {"type": "string", "description": "关键词"}}, "required": ["query"]},
)


def story_request(**fields: Any) -> ChatRequest:
    """Every message shape a beat sends: system, user, assistant with reasoning and tool calls,
    tool results (ok and failed), CJK everywhere."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "你是说书人，讲青梧与怀瑾的故事。"},
        {"role": "user", "content": "掌柜可还记得镇北渡口的怀瑾公子？"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "先查一查怀瑾。",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lorebook_search", "arguments": '{"query": "怀瑾"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "【怀瑾】镇北渡口的书生。"},
        {"role": "assistant", "content": "青梧放下茶盏，望向窗外的河。"},
        {"role": "user", "content": "那他后来去了哪里？"},
    ]
    return ChatRequest(messages=messages, **fields)


def test_sdk_transform_is_identity_on_our_bodies() -> None:
    # Imported here, not at the top: the SDK takes about 1 s to import, and every pytest worker
    # imports every test module while collecting; only the worker that runs this test pays it.
    from openai._utils import maybe_transform
    from openai.types.chat import completion_create_params

    for profile in ("generic", "deepseek", "openrouter", "openai"):
        for thinking in ("off", "high"):
            request = story_request(
                tools=[LOOKUP], thinking=thinking, sampler={"temperature": 0.8, "top_p": 0.9, "max_tokens": 512}
            )
            kwargs = build_create_kwargs(request, "deepseek-reasoner", PROFILES[profile])
            body = {k: v for k, v in kwargs.items() if k != "extra_body"}
            transformed = maybe_transform(body, completion_create_params.CompletionCreateParamsStreaming)
            assert transformed == body, (profile, thinking)


def test_server_receives_the_built_body(
    fake_server: FakeOpenAIServer, make_provider: Callable[..., OpenAICompatProvider]
) -> None:
    fake_server.script([text_reply("怀瑾公子", "去了南边。")])
    provider = make_provider(api_key="sk-liyuan-test", profile="deepseek", model="deepseek-reasoner")
    request = story_request(tools=[LOOKUP], thinking="high", sampler={"temperature": 0.7, "seed": 7})
    list(provider.stream(request))
    kwargs = build_create_kwargs(request, "deepseek-reasoner", provider.profile)
    expected = {k: v for k, v in kwargs.items() if k != "extra_body"} | kwargs.get("extra_body", {})
    (sent,) = fake_server.chat_requests
    assert sent.body == expected
    assert sent.body["temperature"] == 0.7 and sent.body["stream"] is True
    assert sent.body["messages"][2]["reasoning_content"] == "先查一查怀瑾。"  # DeepSeek's pass-back survives
    assert sent.headers["authorization"] == f"Bearer {provider.api_key}"

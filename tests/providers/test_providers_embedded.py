"""The embedded llama.cpp provider: message fitting, errors, and (slow) a real SmolLM2 generation."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.gguf_files import gguf_bytes
from peargarden.errors import ProviderError
from peargarden.providers import embedded
from peargarden.providers._echo import echoes
from peargarden.providers.base import Cast, ChatRequest, Done, StreamEvent, TextDelta, ToolCall, ToolSpec, Usage
from peargarden.providers.embedded import EmbeddedProvider, plain_messages, trim_history
from peargarden.providers.gguf import BadGguf


class TinyLlama:
    """Stands in for ``llama_cpp.Llama`` (one token per character) where the real one is absent."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.calls: list[dict[str, Any]] = []
        self.n_tokens = 0
        self.reply = "好的，旅人。"
        self.replies: list[str] = []  # when set, one per call (then the last reply again)

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return [ord(c) for c in data.decode("utf-8")]

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        self.calls.append({"messages": messages, **options})
        if self.replies:
            self.reply = self.replies.pop(0)
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


def _gguf(folder: Path, name: str = "Tiny Test Qwen", *, small: bool = True, **metadata: Any) -> Path:
    """A header-only GGUF: a 0.5B-shaped header (24 layers × 896 wide, "small") or a 70B-shaped one."""
    path = folder / ("小模型.gguf" if small else "大模型.gguf")
    fields: dict[str, Any] = {
        "general.architecture": "qwen2",
        "general.name": name,
        "qwen2.context_length": 32768,
        "qwen2.block_count": 24 if small else 80,
        "qwen2.embedding_length": 896 if small else 8192,
        **metadata,
    }
    path.write_bytes(gguf_bytes(fields))
    return path


def _provider(folder: Path, *, small: bool = True, **options: Any) -> tuple[EmbeddedProvider, list[TinyLlama]]:
    made: list[TinyLlama] = []

    def factory(**kwargs: Any) -> TinyLlama:
        made.append(TinyLlama(**kwargs))
        return made[-1]

    return EmbeddedProvider(_gguf(folder, small=small), llama_factory=factory, **options), made


def _text(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_streams_text_with_usage_and_keeps_one_model(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
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
        Done("stop", "Tiny Test Qwen"),
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
    # The tools go to the GGUF's chat template; a forced choice and unknown fields do not.
    assert call["tools"] == [request.tools[0].to_openai()]
    assert "tool_choice" not in call and "logit_bias" not in call


def test_cancel_between_tokens(tmp_path: Path) -> None:
    provider, _ = _provider(tmp_path, small=False)  # no echo guard holding back the opening
    cancel = threading.Event()
    events: list[StreamEvent] = []
    for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "讲个故事"}]), cancel):
        events.append(event)
        if len(events) == 2:
            cancel.set()
    assert _text(events) == "好的"
    assert events[-1] == Done("aborted", "Tiny Test Qwen")


def test_history_is_trimmed_oldest_first_to_fit(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path, n_ctx=400, default_max_tokens=100)
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


def test_missing_model_names_the_chat_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(embedded, "MODEL_PACKAGE", "peargarden-no-such-model-package")
    with pytest.raises(ProviderError, match=r"scripts/chat\.sh"):
        list(
            EmbeddedProvider(llama_factory=TinyLlama, models_folder=tmp_path).stream(
                ChatRequest(messages=[{"role": "user", "content": "在吗"}])
            )
        )


def test_missing_llama_cpp_names_the_chat_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """In this process (the worker's own case is in test_providers_worker.py)."""
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    provider = EmbeddedProvider(_gguf(tmp_path), in_process=True)
    with pytest.raises(ProviderError, match=r"llama-cpp-python.*scripts/chat\.sh"):
        list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "在吗"}])))


def _refused(path: Path) -> str:
    """The error of a provider on *path*; the runtime must never have been asked to load."""
    loads: list[dict[str, Any]] = []
    provider = EmbeddedProvider(path, llama_factory=lambda **kw: loads.append(kw))
    with pytest.raises(BadGguf) as caught:
        list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "在吗"}])))
    assert loads == []
    message = str(caught.value)
    assert "\n" not in message and path.name in message
    return message


def test_a_non_gguf_file_is_refused_before_loading(tmp_path: Path) -> None:
    card = tmp_path / "青梧.png"
    card.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    assert "GGUF" in _refused(card)
    assert "no such file" in _refused(tmp_path / "不存在.gguf")
    truncated = tmp_path / "半截.gguf"
    truncated.write_bytes(_gguf(tmp_path).read_bytes()[:40])
    assert "truncated" in _refused(truncated)


def test_an_architecture_the_runtime_lacks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "未来.gguf"
    path.write_bytes(gguf_bytes({"general.architecture": "qwen9-experimental", "general.name": "Future"}))
    assert "qwen9-experimental" in _refused(path)


def test_local_model_traits_come_from_the_header(tmp_path: Path) -> None:
    small = EmbeddedProvider(_gguf(tmp_path, **{"tokenizer.chat_template": "{{ messages }}"}))
    traits = small.traits()
    assert traits.small and traits.has_chat_template and traits.architecture == "qwen2"
    assert small.n_ctx == 8192 and small.model_name == "Tiny Test Qwen"
    big = EmbeddedProvider(_gguf(tmp_path, "Big Qwen", small=False, **{"qwen2.context_length": 4096}))
    assert not big.traits().small and big.n_ctx == 4096


def test_small_models_get_penalties_that_give_way_to_the_preset(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "你好"}], sampler={"temperature": 1.0})))
    call = made[0].calls[0]
    assert call["temperature"] == 1.0 and call["repeat_penalty"] > 1.0 and call["presence_penalty"] > 0
    assert call["max_tokens"] == embedded.SMALL_MAX_TOKENS
    big, made_big = _provider(tmp_path, small=False)
    list(big.stream(ChatRequest(messages=[{"role": "user", "content": "你好"}])))
    assert "repeat_penalty" not in made_big[0].calls[0]


def test_echo_of_the_user_line_is_dropped_and_generated_once_more(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    user = "你好，掌柜。还有空房吗？"
    provider.llama()
    made[0].replies = [user + "当然有。", "有的，楼上还空着一间临河的房。"]
    events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": user}])))
    assert _text(events) == "有的，楼上还空着一间临河的房。"
    calls = made[0].calls
    assert len(calls) == 2 and calls[1]["seed"] != calls[0].get("seed")
    assert [type(e).__name__ for e in events].count("Done") == 1


def test_a_retry_that_opens_with_an_echo_is_tried_a_third_time_and_then_cut(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    user = "这雨什么时候能停？"
    provider.llama()
    made[0].replies = [user + "快了。", "这雨什么时候能停，要看天意。青梧望了望窗外。"]  # then that again
    events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": user}])))
    assert _text(events) == "要看天意。青梧望了望窗外。"
    calls = made[0].calls
    assert len(calls) == 3 and len({call.get("seed") for call in calls}) == 3
    assert [type(e).__name__ for e in events].count("Done") == 1


def test_an_echo_later_in_the_reply_is_cut_without_a_second_try(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    user = "镇上有什么好吃的？明天想出去走走。"
    provider.llama()
    made[0].replies = ["青梧想了想。“桥头的馄饨不错。”镇上有什么好吃的？明天想出去走走。"]
    events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": user}])))
    assert _text(events) == "青梧想了想。“桥头的馄饨不错。”"
    assert len(made[0].calls) == 1


def test_the_guard_reads_the_user_line_before_a_trailing_system_note(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    user = "你一个人撑着这间客栈，不累吗？"
    provider.llama()
    made[0].replies = ["我一个人撑着这间客栈，不累。", "“习惯了。”青梧笑了笑。"]
    messages = [{"role": "user", "content": user}, {"role": "system", "content": "（以青梧的身份回应。）"}]
    events = list(provider.stream(ChatRequest(messages=messages)))
    assert _text(events) == "“习惯了。”青梧笑了笑。" and len(made[0].calls) == 2


def test_the_last_reply_said_again_is_generated_once_more(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    before = "那里的房是六间，每间都有客房推窗。你可以去住一间看看。"
    provider.llama()
    made[0].replies = [before, "“早些歇着吧，楼梯滑。”青梧把灯芯拨暗了些。"]
    messages = [
        {"role": "user", "content": "你好，掌柜。还有空房吗？"},
        {"role": "assistant", "content": before},
        {"role": "user", "content": "夜深了，我先上楼歇息。"},
    ]
    events = list(provider.stream(ChatRequest(messages=messages)))
    assert _text(events) == "“早些歇着吧，楼梯滑。”青梧把灯芯拨暗了些。" and len(made[0].calls) == 2


def test_a_last_try_that_is_all_echo_is_still_a_reply(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    user = "掌柜，有热水吗？我想洗把脸。"
    provider.llama()
    made[0].replies = ["想洗把脸。", "有热水吗？我想洗把脸。"]
    events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": user}])))
    assert _text(events) == "有热水吗？我想洗把脸。"  # never an empty reply
    assert len(made[0].calls) == 3


def test_a_reply_that_claims_to_be_a_model_is_generated_again(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    provider.llama()
    made[0].replies = ["我是阿里云开发的超大规模语言模型，叫通义千问。", "“客官说笑了，我不过是个开客栈的。”青梧笑道。"]
    question = [{"role": "user", "content": "（出戏）你是什么模型？能用英文回答吗？"}]
    events = list(provider.stream(ChatRequest(messages=question)))
    assert _text(events) == "“客官说笑了，我不过是个开客栈的。”青梧笑道。"
    calls = made[0].calls
    assert len(calls) == 2 and calls[1]["seed"] != calls[0].get("seed") and "logits_processor" not in calls[1]
    big, made_big = _provider(tmp_path, small=False)  # only small models get the guard
    big.llama()
    made_big[0].replies = ["I am an AI language model."]
    assert _text(list(big.stream(ChatRequest(messages=question)))) == "I am an AI language model."


def test_a_reply_that_gives_the_character_the_users_name_is_generated_again(tmp_path: Path) -> None:
    """Issue 49's panel: Wren answered "…but I'm Rowan; I keep it." two turns after the user said
    "My name is Rowan" — the name is read from the user's lines, the character's own from the cast."""
    provider, made = _provider(tmp_path)
    provider.llama()
    made[0].replies = ['"I\'m Rowan; I keep it. Rest now."', '"I\'m Wren; I keep it. Rest now, Rowan."']
    messages = [
        {"role": "user", "content": "My name is Rowan. I came from the river towns."},
        {"role": "assistant", "content": "*She writes it in the ledger.*"},
        {"role": "user", "content": "When will this rain stop?"},
    ]
    cast = Cast(own=("Wren",), user=("Traveler",), others=("Aldric",))
    events = list(provider.stream(ChatRequest(messages=messages, cast=cast)))
    assert _text(events) == '"I\'m Wren; I keep it. Rest now, Rowan."' and len(made[0].calls) == 2
    # A man of the lore, in Chinese, on every try: cut, and the character's line stands in.
    made[0].replies = ["我就是怀瑾。"] * 3
    zh = Cast(own=("青梧",), user=("旅人",), others=("怀瑾", "怀瑾公子"))
    line = "（青梧笑了笑，没有接这句话。）"
    question = [{"role": "user", "content": "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？"}]
    events = list(provider.stream(ChatRequest(messages=question, cast=zh, fallback_reply=line)))
    assert _text(events) == line and len(made[0].calls) == 5


def test_a_last_try_that_only_claims_shows_the_characters_line_instead(tmp_path: Path) -> None:
    """Asked out of character what model it is, Qwen2.5-0.5B said 「I'm a AI model created by
    OpenAI.」 on all three tries: the request's in-character line stands in, never the claim."""
    provider, made = _provider(tmp_path)
    provider.llama()
    made[0].replies = [
        "我是一个由OpenAI开发的AI助手。",
        "I am Qwen, created by Alibaba Cloud.",
        "I'm a AI model created by OpenAI.",
    ]
    question = [{"role": "user", "content": "（出戏）你是什么模型？能用英文回答吗？"}]
    line = "（青梧笑了笑，没有接这句话。）"
    events = list(provider.stream(ChatRequest(messages=question, fallback_reply=line)))
    assert _text(events) == line and len(made[0].calls) == 3
    assert events[-1] == Done("stop", "Tiny Test Qwen")
    # What the last try says in character besides the claim is kept instead.
    made[0].replies = [
        "我是AI助手。",
        "我是AI助手。",
        "As an AI language model, I don't sleep. *She trims the lamp.* Rest now.",
    ]
    assert _text(list(provider.stream(ChatRequest(messages=question, fallback_reply=line)))) == (
        "*She trims the lamp.* Rest now."
    )


def test_a_sentence_the_character_said_before_is_cut_from_the_reply(tmp_path: Path) -> None:
    """On the English panel 7 of 12 replies opened with the first reply's 「I'm Wren, twenty-six.」."""
    provider, made = _provider(tmp_path)
    provider.llama()
    greeting = '"Easy." *She sets the bowl aside.* "This is the Mossbrook shrine. I\'m Wren; I keep it."'
    messages = [
        {"role": "system", "content": "You are Wren."},
        {"role": "assistant", "content": greeting},
        {"role": "user", "content": "Hello... where am I?"},
        {"role": "assistant", "content": '"I\'m Wren, twenty-six. You are safe here."'},
        {"role": "user", "content": "When will this rain stop?"},
    ]
    made[0].replies = ["\"I'm Wren, twenty-six. It won't stop tonight.\" *She tops up your tea.*"]
    assert _text(list(provider.stream(ChatRequest(messages=messages)))) == (
        '"It won\'t stop tonight." *She tops up your tea.*'
    )
    assert len(made[0].calls) == 1  # cut, not generated again
    # A reply with nothing else is generated again; the greeting counts as said before too.
    made[0].calls.clear()
    made[0].replies = ["This is the Mossbrook shrine.", '"The eaves are still running."']
    assert _text(list(provider.stream(ChatRequest(messages=messages)))) == '"The eaves are still running."'
    assert len(made[0].calls) == 2


def test_said_before_is_the_greeting_and_the_last_eight_replies(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    provider.llama()
    replies = ["“楼梯滑，小心些。”"] + [f"“今晚是第{n}夜的雨。”" for n in "一二三四五六七八"]
    messages: list[dict[str, Any]] = [{"role": "assistant", "content": "“这里是听雨轩，进来吧。”"}]
    for reply in replies:
        messages += [{"role": "user", "content": "嗯。"}, {"role": "assistant", "content": reply}]
    messages.append({"role": "user", "content": "我上楼了。"})
    made[0].replies = ["“这里是听雨轩。楼梯滑，小心些。今晚是第八夜的雨。灯给你。”"]
    # The greeting and the last eight replies are said before; the reply nine back is not a loop.
    assert _text(list(provider.stream(ChatRequest(messages=messages)))) == "“楼梯滑，小心些。灯给你。”"


class CopyingLlama(TinyLlama):
    """A model that wants to hand the user's line back, token by token (one character a token):
    what a logits processor bans at the start it skips (the quote then starts a character later);
    a ban in the middle of the quote puts it off the thread, and it writes its own words
    (``own``) to the end.  What llama.cpp does with our processor, in miniature."""

    own = "青梧摇了摇头，“不曾听说。”"

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(map(chr, tokens)).encode("utf-8")

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        processors = options.get("logits_processor") or []
        user = messages[-1]["content"]
        prompt = [ord(c) for m in messages for c in m["content"]]
        reply: list[int] = []
        copied = 0
        while copied < len(user):
            scores = [0.0] * 0x10000
            scores[ord(user[copied])] = 2.0  # the copy is what the model likes best
            scores[ord(self.own[0])] = 1.0
            for processor in processors:
                scores = processor(prompt + reply, scores)
            if scores[ord(user[copied])] > scores[ord(self.own[0])]:
                reply.append(ord(user[copied]))
            elif reply:
                break
            copied += 1
        self.reply = "".join(map(chr, reply)) + (self.own if copied < len(user) else "")
        return super().create_chat_completion(messages, **options)


def test_the_retry_is_steered_off_the_users_words(tmp_path: Path) -> None:
    """Another seed alone gives the same quote back (measured on Qwen2.5-0.5B); the retry bans
    continuing a run of the user's line and opening a clause like one of the user's."""
    made: list[CopyingLlama] = []

    def factory(**kwargs: Any) -> CopyingLlama:
        made.append(CopyingLlama(**kwargs))
        return made[-1]

    provider = EmbeddedProvider(_gguf(tmp_path), llama_factory=factory)
    user = "船家说听雨轩的掌柜记得每一位住过的客人，所以冒雨赶了夜路。"
    messages = [{"role": "system", "content": "你是青梧，听雨轩的掌柜。"}, {"role": "user", "content": user}]
    reply = _text(list(provider.stream(ChatRequest(messages=messages))))
    calls = made[0].calls
    # The first try bounds only runs of the prompt (the user's line is the echo guard's to judge).
    assert len(calls) == 2 and calls[0]["logits_processor"] and calls[1]["logits_processor"]
    # "船" opens a clause of the user's: the quote starts a character later; "家说听雨" is a run of
    # four characters of the user's, a fifth ("轩") is banned.
    assert reply == "家说听雨" + CopyingLlama.own
    assert not echoes(user, reply)


class PastingLlama(TinyLlama):
    """A model that wants to paste the lore in its system prompt from 伞面 on, one character a
    token, and writes its own words (``own``) once the next character of the paste is banned."""

    own = "，青梧笑了笑，没有多说。"

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(map(chr, tokens)).encode("utf-8")

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        processors = options.get("logits_processor") or []
        system = messages[0]["content"]
        paste = system[system.index("伞面") :]
        prompt = [ord(c) for m in messages for c in m["content"]]
        reply: list[int] = []
        for char in paste:
            scores = [0.0] * 0x10000
            scores[ord(char)] = 2.0
            for processor in processors:
                scores = processor(prompt + reply, scores)
            if scores[ord(char)] < 0:
                break
            reply.append(ord(char))
        self.reply = "".join(map(chr, reply)) + (self.own if len(reply) < len(paste) else "")
        return super().create_chat_completion(messages, **options)


def test_every_try_of_a_small_model_keeps_off_pasting_its_prompt(tmp_path: Path) -> None:
    """Asked about the umbrella, Qwen2.5-0.5B pasted 71 characters of the lore entry in its prompt:
    a run of the system prompt (or of its own messages) goes on up to 10 characters, no further."""
    made: list[PastingLlama] = []

    def factory(**kwargs: Any) -> PastingLlama:
        made.append(PastingLlama(**kwargs))
        return made[-1]

    lore = "【旧油纸伞】柜台后的墙上挂着一把旧油纸伞，伞面上手绘的几枝桃花已褪成浅褐色。"
    messages = [{"role": "system", "content": "你是青梧。" + lore}, {"role": "user", "content": "那把伞有什么来历？"}]
    for small in (True, False):
        provider = EmbeddedProvider(_gguf(tmp_path, small=small), llama_factory=factory)
        reply = _text(list(provider.stream(ChatRequest(messages=messages))))
        if small:
            assert reply == "伞面上手绘的几枝桃花" + PastingLlama.own
            assert len(made[-1].calls) == 1  # no second sample: the paste never happened
        else:  # a model that follows its prompt is left alone
            assert reply == "伞面上手绘的几枝桃花已褪成浅褐色。" and "logits_processor" not in made[-1].calls[0]


def test_tool_calls_written_as_text_become_tool_call_events(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path)
    provider.llama()
    made[0].replies = [
        '我查一下。\n<tool_call>\n{"name": "lorebook_search", "arguments": {"query": "旧油纸伞"}}\n</tool_call>'
    ]
    request = ChatRequest(
        messages=[{"role": "user", "content": "柜台后面那把旧油纸伞，是有什么来历吗？"}],
        tools=[ToolSpec("lorebook_search", "搜索设定", {"type": "object"})],
    )
    events = list(provider.stream(request))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas).strip() == "我查一下。" and not any("{" in d for d in deltas)  # the JSON is never shown
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("lorebook_search", {"query": "旧油纸伞"})]
    assert events[-1] == Done("tool_calls", "Tiny Test Qwen")


def test_without_tools_tool_call_text_is_just_text(tmp_path: Path) -> None:
    provider, made = _provider(tmp_path, small=False)
    provider.llama()
    reply = '<tool_call>{"name": "lorebook_search", "arguments": {}}</tool_call>'
    made[0].replies = [reply]
    events = list(provider.stream(ChatRequest(messages=[{"role": "user", "content": "你好"}])))
    assert _text(events) == reply and not any(isinstance(e, ToolCall) for e in events)


def test_with_tools_the_history_shows_calls_and_results_as_qwen_writes_them() -> None:
    history = [
        {"role": "user", "content": "怀瑾是谁？"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lorebook_search", "arguments": '{"query": "怀瑾"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "【怀瑾】沈怀瑾，十年前走的读书人。"},
    ]
    shown = plain_messages(history, tool_text=True)
    assert shown[1] == {
        "role": "assistant",
        "content": '<tool_call>\n{"name": "lorebook_search", "arguments": {"query": "怀瑾"}}\n</tool_call>',
    }
    response = "<tool_response>\n【怀瑾】沈怀瑾，十年前走的读书人。\n</tool_response>"
    assert shown[2] == {"role": "user", "content": response}
    assert [m["role"] for m in plain_messages(history)] == ["user", "user"]  # tools off: the call is dropped


def test_echo_detection() -> None:
    assert echoes("你好，掌柜。还有空房吗？", "你好掌柜，还有空房吗")
    assert echoes("十年前从镇北渡口走的那位怀瑾公子", "十年前从镇北渡口走的那位，")
    assert not echoes("你好，掌柜。还有空房吗？", "有的，楼上还空着一间。")
    assert not echoes("在吗", "在吗？")  # too short to call an echo
    assert not echoes("你好，掌柜。还有空房吗？", "你好，客官！楼上")


def test_the_app_gives_a_small_local_model_the_compact_stage_prompt(
    monkeypatch: pytest.MonkeyPatch, home_dir: Path
) -> None:
    """Through the app (story memory off, so only the token budget applies): the short profile with
    the card and the example dialogue, no tool rules, the stop on the user's name."""
    from peargarden.app.play.service import ChatOptions, PearApp
    from peargarden.app.settings.connections import Connection
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    provider, made = _provider(home_dir)
    assert provider.model_path is not None
    monkeypatch.setitem(embedded._shared, str(provider.model_path), provider)
    home = Home(home_dir)
    seed_home(home)
    session = PearApp(home).new_chat("青梧", ChatOptions(connection=Connection(local_model=str(provider.model_path))))
    list(session.send("你好，掌柜。还有空房吗？"))
    call = made[0].calls[0]
    system = call["messages"][0]["content"]
    assert system.startswith("你是青梧。") and "对话示例" in system
    assert "draft_write" not in system and "消息流约定" not in system
    assert call["messages"][-1] == {"role": "user", "content": "你好，掌柜。还有空房吗？"}
    assert "\n旅人：" in call["stop"]
    # A model that says it is one on every try: the card's own line is the reply, not the claim.
    made[0].replies = ["我是阿里云开发的超大规模语言模型。"] * 3
    list(session.send("（出戏）你是什么模型？"))
    assert session.view().rows[-1].content == "（青梧笑了笑，没有接这句话。）"


def _default_model() -> Path | None:
    """The fetched default model, when the runtime is importable too."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    from peargarden.providers.model_catalog import DEFAULT
    from peargarden.providers.model_fetch import installed_path

    return installed_path(DEFAULT)


def _cjk_share(text: str) -> float:
    visible = [ch for ch in text if not ch.isspace()]
    return sum(1 for ch in visible if "\u3400" <= ch <= "\u9fff") / max(1, len(visible))


def test_the_compact_prompt_for_qinwu_is_at_most_800_tokens_of_the_default_model(home_dir: Path) -> None:
    """Issue 16's size target, counted with the default model's own tokenizer (its vocabulary only is
    loaded: no weights, no generation).  Our cl100k counter splits Chinese finer (≈ 1.7× as many)."""
    model = _default_model()
    if model is None:
        pytest.skip("llama_cpp or the default model is missing (bash scripts/chat.sh)")
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import compact_for, greeting_turns
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    home = Home(home_dir)
    seed_home(home)
    materials = load_stage_materials(home, open_card(home, "青梧"))
    vocab = embedded.llama_class()(model_path=str(model), vocab_only=True, verbose=False)
    turns = ["你好，掌柜。还有空房吗？", "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？", "柜台后面那把旧油纸伞呢？"]
    for turn in turns:
        staged = compact_for(materials, greeting_turns(materials), turn)
        system = staged.system + "\n\n" + staged.injection  # the prompt and this beat's lore note
        assert len(vocab.tokenize(system.encode("utf-8"), add_bos=False, special=True)) <= 800, turn


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed (bash scripts/chat.sh)"
)
def test_real_default_model_three_chinese_turns_with_qinwu(home_dir: Path) -> None:
    """The README's first chat, for real: 青梧 on the default model answers three turns in Chinese,
    without loops and without echoing the user's line."""
    model = _default_model()
    if model is None:
        pytest.skip("the default model is not fetched (pear models --fetch qwen-0.5b)")
    from peargarden.agent.events import DoneEvent, TextDeltaEvent
    from peargarden.app.play.service import ChatOptions, PearApp
    from peargarden.app.settings.connections import Connection
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    home = Home(home_dir)
    seed_home(home)
    session = PearApp(home).new_chat("青梧", ChatOptions(connection=Connection(local_model=str(model))))
    for turn in ["你好，掌柜。还有空房吗？", "这雨什么时候能停？", "柜台后面那把旧油纸伞，是有什么来历吗？"]:
        events = list(session.send(turn))
        reply = "".join(e.text for e in events if isinstance(e, TextDeltaEvent))
        done = [e for e in events if isinstance(e, DoneEvent)]
        assert reply.strip(), turn
        assert _cjk_share(reply) >= 0.6, reply
        assert not echoes(turn, reply), reply
        # No loop: no run of 12 characters appears twice in one reply.
        assert not any(reply.count(reply[i : i + 12]) > 1 for i in range(max(0, len(reply) - 12))), reply
        assert done and done[-1].usage.get("completion_tokens", 0) > 0


def test_the_context_bar_reads_the_window_from_the_gguf_header(tmp_path: Path) -> None:
    """32768 trained tokens, run at most 8192: the window a chat page measures its requests against."""
    from peargarden.app.play.chat_chrome import model_window

    provider = EmbeddedProvider(_gguf(tmp_path))
    assert model_window(provider) == 8192
    assert model_window(EmbeddedProvider(models_folder=tmp_path / "空")) is None  # no model fetched yet


def test_a_short_reply_is_continued_once_with_the_continue_method(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(embedded.SMALL_LENGTH, "method", "continue")
    provider, made = _provider(tmp_path)
    provider.llama()
    made[0].replies = ["“好。”", "青梧笑了笑，把茶递了过去：“路上当心，雨天石板滑，慢些走。”", "青梧点点头。"]
    messages = [{"role": "system", "content": "你是青梧。"}, {"role": "user", "content": "我走了。"}]
    request = ChatRequest(messages=messages)
    text = "".join(e.text for e in provider.stream(request) if isinstance(e, TextDelta))
    assert text == "“好。”青梧笑了笑，把茶递了过去：“路上当心，雨天石板滑，慢些走。”"
    first, second = made[0].calls
    assert second["messages"][: len(first["messages"])] == first["messages"]  # the prefix reused
    assert second["messages"][-2:] == [
        {"role": "assistant", "content": "“好。”"},
        {"role": "system", "content": embedded._CONTINUE_NOTE["zh"]},
    ]
    # A reply long enough is not continued.
    made[0].replies = ["青梧笑了笑，把茶递了过去：“路上当心，雨天石板滑，慢些走，到了渡口记得捎个信回来。”"]
    list(provider.stream(request))
    assert len(made[0].calls) == 3

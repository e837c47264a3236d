"""Issue 49, item 2: a small model's reply held open until it has a few sentences (the end tokens
banned until a minimum of tokens), or continued once when it ended short."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.gguf_files import gguf_bytes
from peargarden.providers import embedded
from peargarden.providers._min_length import MinLength, ending_tokens
from peargarden.providers.base import ChatRequest, TextDelta
from peargarden.providers.llama_session import Chunk, LlamaSession

END = "<|im_end|>"


class VocabLlama:
    """A stand-in for ``llama_cpp.Llama`` that samples: each step it scores the token its *plan*
    wants next (10) and the one after it (5), runs the logits processors, and takes the best.  A plan
    that wants to end after "“好。”" goes on to its next tokens when the end is banned."""

    def __init__(self, plan: list[str]) -> None:
        self.vocabulary = [END, "\n\n", "“好。”", "青梧", "笑了笑，", "把茶递了过去。", "“慢走。”"]
        self.plan = [self.vocabulary.index(piece) for piece in plan]
        self.n_tokens = 0
        self.calls: list[dict[str, Any]] = []

    def n_vocab(self) -> int:
        return len(self.vocabulary)

    def token_eos(self) -> int:
        return 0

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(self.vocabulary[t] for t in tokens if t != 0).encode("utf-8")

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        text = data.decode("utf-8")
        return [self.vocabulary.index(text)] if text in self.vocabulary else [ord(c) for c in text]

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        self.calls.append(options)
        processors = options.get("logits_processor") or []
        prompt = [1] * sum(len(m["content"]) for m in messages)

        def chunks() -> Iterator[dict[str, Any]]:
            ids = list(prompt)
            self.n_tokens = len(ids)
            yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
            at = 0
            while at < len(self.plan):
                scores = [0.0] * len(self.vocabulary)
                scores[self.plan[at]] = 10.0
                if at + 1 < len(self.plan):
                    scores[self.plan[at + 1]] = 5.0
                for processor in processors:
                    scores = processor(ids, scores)
                token = max(range(len(scores)), key=lambda t: scores[t])
                at += 2 if at + 1 < len(self.plan) and token == self.plan[at + 1] else 1
                if token in (0, 1):  # the end of the turn, or a blank line the stop words end at
                    break
                ids.append(token)
                self.n_tokens += 1
                yield {"choices": [{"delta": {"content": self.vocabulary[token]}, "finish_reason": None}]}
            yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}

        return chunks()


PLAN = ["“好。”", END, "青梧", "笑了笑，", "\n\n", "把茶递了过去。", END, "“慢走。”"]


def _reply(session: LlamaSession, min_tokens: int) -> str:
    options = {"min_tokens": min_tokens} if min_tokens else {}
    pieces = session.chat([{"role": "user", "content": "我走了。"}], options)
    return "".join(piece.text for piece in pieces if isinstance(piece, Chunk))


def test_the_tokens_that_end_a_reply_are_its_end_tokens_and_line_breaks() -> None:
    vocabulary = ["a", "\n", "b\n\n", "“好。”", "<eos>"]
    assert ending_tokens(len(vocabulary), vocabulary.__getitem__, {4}) == {1, 2, 4}


def test_the_end_is_banned_until_the_reply_has_its_minimum_then_allowed() -> None:
    hold = MinLength({0, 2}, 2)
    prompt = [7, 7, 7]
    assert hold(prompt, [1.0, 1.0, 1.0]) == [float("-inf"), 1.0, float("-inf")]
    assert hold([*prompt, 5], [1.0, 1.0, 1.0]) == [float("-inf"), 1.0, float("-inf")]
    assert hold([*prompt, 5, 6], [1.0, 1.0, 1.0]) == [1.0, 1.0, 1.0]  # two tokens written: it may end


def test_a_reply_that_would_end_after_one_short_sentence_goes_on_to_the_minimum() -> None:
    assert _reply(LlamaSession(VocabLlama(PLAN)), 0) == "“好。”"  # before: one sentence
    held = LlamaSession(VocabLlama(PLAN))
    # The end of turn and the blank line are banned for 4 tokens, then the model ends where it likes.
    assert _reply(held, 4) == "“好。”青梧笑了笑，把茶递了过去。"
    assert held.ending_tokens() == {0, 1}
    # min_tokens is ours: llama.cpp never sees it.
    assert all("min_tokens" not in call for call in held.llm.calls)


def test_the_small_profile_holds_the_reply_open_through_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(embedded.SMALL_LENGTH, "min_tokens", 4)
    path = tmp_path / "小模型.gguf"  # a 0.5B-shaped header: the small profile
    path.write_bytes(
        gguf_bytes({"general.architecture": "qwen2", "qwen2.block_count": 24, "qwen2.embedding_length": 896})
    )
    provider = embedded.EmbeddedProvider(path, llama_factory=lambda **_: VocabLlama(PLAN))
    messages = [{"role": "system", "content": "你是青梧。"}, {"role": "user", "content": "我走了。"}]
    request = ChatRequest(messages=messages)
    text = "".join(e.text for e in provider.stream(request) if isinstance(e, TextDelta))
    assert text == "“好。”青梧笑了笑，把茶递了过去。"
    monkeypatch.setitem(embedded.SMALL_LENGTH, "method", "")
    text = "".join(e.text for e in provider.stream(request) if isinstance(e, TextDelta))
    assert text == "“好。”"

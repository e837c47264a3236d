"""The llama.cpp worker process: ``python -m peargarden.providers.llama_worker PARENT_PID``.

It loads one model (:class:`.llama_session.LlamaSession`) and answers the parent over the pipe
protocol of :mod:`._worker_protocol` until its stdin closes.  A native crash here (llama.cpp's
segfault on some CPUs, an out-of-memory kill) ends this process only: the parent reports one line
and starts a fresh worker for the next beat.

It never outlives its parent: the kernel sends it SIGKILL when the parent goes
(``PR_SET_PDEATHSIG``, Linux), and its stdin reaching end-of-file (the parent's end of the pipe closed,
which also happens on ``kill -9``) ends it at once from the reader thread, whatever the model is doing.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import queue
import signal
import sys
import threading
import time
from typing import Any, BinaryIO

from ._worker_protocol import ALIVE_EVERY, decode, encode
from .llama_session import (
    MISSING_RUNTIME,
    SETUP_HINT,
    Chunk,
    CopySpec,
    Finished,
    LlamaSession,
    LoadSpec,
    Started,
    load_llama,
)

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None) -> None:
    """Ask the kernel for SIGKILL when the parent dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the stdin watch below still ends the worker
    if parent is not None and os.getppid() != parent:
        os._exit(0)  # the parent went before the request above took effect


def protocol_stream() -> BinaryIO:
    """The protocol's output: this process's stdout, duplicated before anything else can write to it;
    fd 1 then points at stderr, so whatever the native runtime prints goes there."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


class Worker:
    """The worker's loop: one request at a time from the inbox; cancels arrive beside it."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.session: LlamaSession | None = None
        self._last_sent = time.monotonic()
        self._cancel_lock = threading.Lock()
        self._current: Any = None
        self._cancelled = False

    # -- output

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(encode(message))
        self._last_sent = time.monotonic()

    def alive(self) -> None:
        """Called after each evaluated batch or token: a sign of life, at most once a second."""
        if time.monotonic() - self._last_sent >= ALIVE_EVERY:
            self.send({"ev": "alive"})

    # -- input (the reader thread)

    def read(self, stream: BinaryIO) -> None:
        for line in stream:
            try:
                message = decode(line)
            except ValueError:
                continue
            if message.get("op") == "cancel":
                with self._cancel_lock:
                    if message.get("id") == self._current:
                        self._cancelled = True
            else:
                self.inbox.put(message)
        os._exit(0)  # the parent is gone (or closed the pipe): nothing left to serve

    def _stopping(self) -> bool:
        with self._cancel_lock:
            return self._cancelled

    # -- requests

    def load(self, message: dict[str, Any]) -> bool:
        started = time.perf_counter()
        try:
            spec = LoadSpec.from_json(message["spec"])
            llm = load_llama(spec)
        except ImportError:
            self.send({"ev": "fatal", "message": MISSING_RUNTIME, "hint": SETUP_HINT, "fix": "embedded"})
            return False
        except (ValueError, RuntimeError, OSError, KeyError, TypeError) as error:
            name = os.path.basename(str(message.get("spec", {}).get("model_path", "")))
            self.send({"ev": "fatal", "message": f"内置模型加载失败（cannot load {name}）：{error}"})
            return False
        self._watch_decodes(llm)
        self.session = LlamaSession(llm)
        version = getattr(sys.modules.get("llama_cpp"), "__version__", "")
        self.send({"ev": "ready", "version": version, "seconds": round(time.perf_counter() - started, 3)})
        return True

    def _watch_decodes(self, llm: Any) -> None:
        """Say "alive" after every evaluated batch (prompt) and token (reply): llama-cpp-python calls its
        context's ``decode`` for each, from this thread, once the native call has returned."""
        context = getattr(llm, "_ctx", None)
        decode_batch = getattr(context, "decode", None)
        if context is None or not callable(decode_batch):
            return

        def decode_and_report(*args: Any, **kwargs: Any) -> Any:
            result = decode_batch(*args, **kwargs)
            self.alive()
            return result

        context.decode = decode_and_report

    def serve(self, message: dict[str, Any]) -> None:
        assert self.session is not None
        op, ident = message.get("op"), message.get("id")
        try:
            if op == "count":
                self.send({"ev": "counts", "id": ident, "counts": self.session.count(message["texts"])})
            elif op == "chat":
                self._chat(ident, message)
            elif op == "probe":
                result = self.session.probe(str(message["prompt"]), int(message["max_tokens"]))
                self.send({"ev": "probe", "id": ident, **result})
        except (ValueError, RuntimeError, KeyError, TypeError) as error:
            self.send({"ev": "error", "id": ident, "message": str(error) or type(error).__name__})
        except Exception as error:  # a bug of ours must not take the loaded model down with it
            self.send({"ev": "error", "id": ident, "message": f"{type(error).__name__}: {error}"})

    def _chat(self, ident: Any, message: dict[str, Any]) -> None:
        assert self.session is not None
        with self._cancel_lock:
            self._current, self._cancelled = ident, False
        try:
            copy = message.get("copy")
            spec = CopySpec(**copy) if isinstance(copy, dict) else None
            finished = False
            for piece in self.session.chat(message["messages"], message["options"], spec, self._stopping):
                if isinstance(piece, Started):
                    self.send({"ev": "started", "id": ident, "prompt_tokens": piece.prompt_tokens})
                elif isinstance(piece, Chunk):
                    self.send({"ev": "chunk", "id": ident, "text": piece.text, "finish": piece.finish})
                elif isinstance(piece, Finished):
                    finished = True
                    self.send({"ev": "end", "id": ident, "n_tokens": piece.n_tokens})
            if not finished:
                self.send({"ev": "end", "id": ident, "stopped": True})
        finally:
            with self._cancel_lock:
                self._current = None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    die_with_parent(int(args[0]) if args else None)
    out = protocol_stream()
    faulthandler.enable()  # a native crash leaves its Python stack on stderr, for the parent's log
    worker = Worker(out)
    threading.Thread(target=worker.read, args=(sys.stdin.buffer,), daemon=True, name="protocol-reader").start()
    first = worker.inbox.get()
    if first.get("op") != "load" or not worker.load(first):
        return 3
    while True:
        worker.serve(worker.inbox.get())


if __name__ == "__main__":
    sys.exit(main())

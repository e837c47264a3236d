"""The parent's side of the llama.cpp worker (:mod:`.llama_worker`): start it, talk to it, notice its end.

One :class:`LlamaWorker` is one child process with one loaded model, kept warm between beats (its KV
cache, and so llama.cpp's prefix reuse, lives there).  Every wait on it is bounded: the start (the
runtime's import and the model's load) by :attr:`WorkerLimits.start`, everything after by
:attr:`WorkerLimits.silence` — the longest time without a line, where the worker says it is alive after
every evaluated batch or token.  A limit not given grows with the model's size and the machine's load
(:mod:`._machine_load`), measured when the worker starts and at each request.  Whatever ends it — a
native crash, the kernel's out-of-memory kill, a hang, an exit at start-up — becomes one
:class:`WorkerFault` line (what happened, what to try), and the worker is gone: the provider starts a
fresh one for the next request.

Cancelling (the front's stop, or the provider dropping a reply the echo guard caught) sends ``cancel``
and returns at once; the worker ends that generation at its next token, and the next request first
reads what is left of it, so the model and its cache stay warm.

Workers are started from one long-lived thread: ``PR_SET_PDEATHSIG`` (the worker's "die with my
parent") fires when the *thread* that started the child ends, and the web server runs beats on pool
threads that come and go.  Each worker gets its own session (``start_new_session``): a Ctrl-C in the
terminal reaches ``pear chat``, which stops the beat, and not the worker, which keeps its model.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Generator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

import msgspec

from peargarden.errors import ProviderError

from . import _machine_load
from ._worker_protocol import decode, encode
from .base import Message
from .llama_session import Chunk, CopySpec, Finished, LoadSpec, Piece, Started

_CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT}
_POLL = 0.1  # how often a wait looks at the caller's cancel flag (seconds)


class WorkerLimits(msgspec.Struct, frozen=True):
    """Seconds.  ``start``: from starting the process to the model loaded; ``silence``: the longest
    time without a line from the worker once it works (it speaks after every batch or token it
    evaluates, so only a stuck runtime, or a machine far too busy, reaches this).  ``None``: by the
    model's size and the machine's load (:mod:`._machine_load`)."""

    start: float | None = None
    silence: float | None = None


# What to run when the worker keeps failing (the page's way: the ``embedded`` fix, its self-test).
CHECK_HINT = "反复出现请运行 `pear models --check`"


class WorkerFault(ProviderError):
    """The worker is gone: ``kind`` is ``crash`` (a native fault signal), ``killed`` (SIGKILL: most
    often the out-of-memory killer), ``signal`` (another signal), ``hang`` (silent past the limit),
    ``exit`` (it exited by itself) or ``fatal`` (it could not load the runtime or the model)."""

    def __init__(self, message: str, kind: str, detail: str = "", *, hint: str = "", fix: str = "") -> None:
        super().__init__(message, hint=hint, fix=fix)
        self.kind = kind
        self.detail = detail


_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``Popen`` run on the one spawner thread (see the module's docstring)."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pear-llama-spawner")
        spawner = _spawner
    future = spawner.submit(
        subprocess.Popen,
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    return future.result()


def worker_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: ours, with this copy of the package importable first."""
    env = dict(os.environ if base is None else base)
    source = str(Path(__file__).resolve().parents[2])  # the folder holding peargarden/
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class LlamaWorker:
    """One worker process with one loaded model (see the module's docstring)."""

    def __init__(self, spec: LoadSpec, limits: WorkerLimits | None = None, *, env: Mapping[str, str] | None = None):
        self.spec = spec
        self.limits = limits or WorkerLimits()
        self._env = worker_environment(env)
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        self._ids = itertools.count(1)
        self._pending: int | None = None  # a cancelled generation whose end is still to be read
        self._started = False
        self._stderr_reader: threading.Thread | None = None
        self.version = ""
        self.load_seconds = 0.0
        self._silence = self.limits.silence or _machine_load.SILENCE_BASE

    # -- life

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the process and load the model; ``WorkerFault`` when it does not come up."""
        args = [sys.executable, "-m", "peargarden.providers.llama_worker", str(os.getpid())]
        try:
            self._process = _spawn(args, self._env)
        except OSError as error:
            raise WorkerFault(f"无法启动内置模型进程（cannot start the worker）：{error}", "exit") from None
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True, name="pear-llama-stderr")
        self._stderr_reader.start()
        self._send({"op": "load", "spec": self.spec.to_json()})
        message = self._next(self._start_limit())
        if message.get("ev") == "fatal":
            self._finish()
            raise WorkerFault(
                str(message.get("message") or "内置模型加载失败"),
                "fatal",
                hint=str(message.get("hint") or ""),
                fix=str(message.get("fix") or ""),
            )
        if message.get("ev") != "ready":
            self.kill()
            raise WorkerFault(f"内置模型进程的回答看不懂（unexpected {message.get('ev')!r}）", "exit")
        self._started = True
        self.version = str(message.get("version") or "")
        self.load_seconds = float(message.get("seconds") or 0.0)

    def _start_limit(self) -> float:
        if self.limits.start is not None:
            return self.limits.start
        try:
            size = os.stat(self.spec.model_path).st_size
        except OSError:
            size = 0
        return _machine_load.start_limit(size, _machine_load.measure())

    def _silence_limit(self) -> float:
        """The silence allowed from now on (measured at each request: the load moves)."""
        if self.limits.silence is not None:
            return self.limits.silence
        return _machine_load.silence_limit(_machine_load.measure())

    def close(self) -> None:
        """End the worker: its stdin closes, so it exits; killed if it has not within two seconds."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_pipes()

    def kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError):
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        self._close_pipes()

    def _close_pipes(self) -> None:
        process = self._process
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def stderr_tail(self) -> list[str]:
        """The worker's last lines on stderr (llama.cpp's log, a Python traceback, faulthandler)."""
        return list(self._stderr)

    def _read_stderr(self) -> None:
        process = self._process
        stream: IO[bytes] | None = process.stderr if process is not None else None
        if stream is None:
            return
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                text = line.decode("utf-8", errors="replace").rstrip()
                if text:
                    self._stderr.append(text)

    # -- requests

    def settle(self) -> bool:
        """Read the end of a cancelled generation; False (and the worker gone) when that fails."""
        if not self.alive:
            return False
        if self._pending is None:
            return True
        try:
            while True:
                message = self._next(self._silence)
                if message.get("id") == self._pending and message.get("ev") in ("end", "error"):
                    self._pending = None
                    return True
        except WorkerFault:
            return False

    def count(self, texts: list[str]) -> list[int]:
        """Each text's token count, by the model's own tokenizer."""
        ident = self._request({"op": "count", "texts": texts})
        message = self._answer(ident)
        return [int(n) for n in message.get("counts", [])]

    def probe(self, prompt: str, max_tokens: int) -> dict[str, Any]:
        """The self-test's timed greedy completion (see ``LlamaSession.probe``)."""
        ident = self._request({"op": "probe", "prompt": prompt, "max_tokens": max_tokens})
        return self._answer(ident)

    def chat(
        self,
        messages: list[Message],
        options: dict[str, Any],
        copy: CopySpec | None = None,
        cancel: threading.Event | None = None,
    ) -> Generator[Piece, None, None]:
        """The reply's pieces, as ``LlamaSession.chat`` gives them.  Ends early (no ``Finished``) when
        *cancel* is set or the iterator is closed; ``WorkerFault`` when the worker dies or falls silent."""
        copy_block = msgspec.structs.asdict(copy) if copy else None
        ident = self._request({"op": "chat", "messages": messages, "options": options, "copy": copy_block})
        self._pending = ident
        try:
            while True:
                message = self._next_or_cancel(self._silence, cancel)
                if message is None:
                    return  # cancelled: the worker is told in `finally`
                kind = message.get("ev")
                if message.get("id") != ident:
                    continue  # "alive"
                if kind == "started":
                    yield Started(int(message.get("prompt_tokens") or 0))
                elif kind == "chunk":
                    yield Chunk(str(message.get("text") or ""), message.get("finish"))
                elif kind == "end":
                    self._pending = None
                    if not message.get("stopped"):
                        yield Finished(int(message.get("n_tokens") or 0))
                    return
                elif kind == "error":
                    self._pending = None
                    raise ProviderError(f"内置模型生成失败（generation failed）：{message.get('message')}")
        finally:
            if self._pending == ident and self.alive:
                with contextlib.suppress(OSError, ValueError):
                    self._send({"op": "cancel", "id": ident})

    def _request(self, message: dict[str, Any]) -> int:
        if not self._started:
            self.start()
        self._silence = self._silence_limit()
        if not self.settle():
            raise WorkerFault("内置模型进程已经不在了（worker gone）：再发一次会重新启动它", "exit")
        ident = next(self._ids)
        try:
            self._send({**message, "id": ident})
        except (OSError, ValueError):
            raise self._gone() from None
        return ident

    def _answer(self, ident: int) -> dict[str, Any]:
        while True:
            message = self._next(self._silence)
            if message.get("id") != ident:
                continue
            if message.get("ev") == "error":
                raise ProviderError(f"内置模型出错（worker error）：{message.get('message')}")
            return message

    # -- the pipe

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        process.stdin.write(encode(message))
        process.stdin.flush()

    def _next(self, limit: float) -> dict[str, Any]:
        """The next message within *limit* seconds; ``WorkerFault`` when the worker ends or stays silent."""
        message = self._next_or_cancel(limit, None)
        assert message is not None
        return message

    def _next_or_cancel(self, limit: float, cancel: threading.Event | None) -> dict[str, Any] | None:
        """The next message within *limit* seconds, or ``None`` once *cancel* is set."""
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        deadline = time.monotonic() + limit
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                try:
                    return decode(line)
                except ValueError:
                    continue
            if cancel is not None and cancel.is_set():
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._hung(limit)
            wait = min(remaining, _POLL) if cancel is not None else remaining
            try:
                ready, _, _ = select.select([fd], [], [], wait)
            except (OSError, ValueError):
                raise self._gone() from None
            if ready:
                data = os.read(fd, 1 << 16)
                if not data:
                    raise self._gone()
                self._buffer += data

    # -- how it ended

    def _hung(self, limit: float) -> WorkerFault:
        """The fault for a worker silent past *limit*, with the machine's load now: a busy machine
        explains a slow model; an idle one points at the runtime."""
        self.kill()
        seconds = f"{limit:g}"
        load = _machine_load.measure()
        cause = f"机器很忙（{load.describe()}）" if load.busy else f"机器并不忙（{load.describe()}），运行时可能卡住了"
        if not self._started:
            return WorkerFault(
                f"内置模型 {seconds} 秒内没有加载完成，已停止它（no answer at start-up）：{cause}；"
                "再发一次会重新启动它",
                "hang",
                f"{seconds} 秒内没有加载完成，{load.describe()}",
                hint=f"--first-byte-timeout 可给加载更长的时间；{CHECK_HINT}",
                fix="embedded",
            )
        return WorkerFault(
            f"内置模型 {seconds} 秒没有任何输出，已停止它（hang）：{cause}；再发一次会重新启动它",
            "hang",
            f"{seconds} 秒没有输出，{load.describe()}",
            hint=f"--idle-timeout 可放宽；{CHECK_HINT}",
            fix="embedded",
        )

    def _finish(self) -> int | None:
        """The worker's exit status once it has exited (killed after five seconds of waiting)."""
        process = self._process
        if process is None:
            return None
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            code = process.returncode
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=2)  # its last lines explain the exit
        self._close_pipes()
        return code

    def _gone(self) -> WorkerFault:
        """The fault for a worker whose pipe closed: by the signal that ended it, or its exit."""
        code = self._finish()
        if code is not None and code < 0:
            number = -code
            name = signal_name(number)
            if number == signal.SIGKILL:
                return WorkerFault(
                    f"内置模型进程被系统强行结束（{name}，多半是内存不足）：关掉占内存的程序或换小一点的模型"
                    "再发；下次会重新启动它",
                    "killed",
                    name,
                    hint="小一点的模型：--local-model qwen-0.5b",
                    fix="embedded",
                )
            if number in _CRASH_SIGNALS:
                return WorkerFault(
                    f"内置模型的运行时崩溃了（llama.cpp: {name}）：再发一次会重新启动它",
                    "crash",
                    name,
                    hint="反复出现请运行 `pear models --check` 找这台机器的安全配置",
                    fix="embedded",
                )
            return WorkerFault(f"内置模型进程被信号 {name} 结束：再发一次会重新启动它", "signal", name)
        said = next((line for line in reversed(self._stderr) if line.strip()), "")
        detail = f"exit {code}" + (f": {said}" if said else "")
        if not self._started:
            return WorkerFault(
                f"内置模型进程启动后立即退出（{detail}）",
                "exit",
                detail,
                hint="运行 `bash scripts/setup.sh --local` 重装运行时，或 `pear models --check`",
                fix="embedded",
            )
        return WorkerFault(f"内置模型进程意外退出（{detail}）：再发一次会重新启动它", "exit", detail)

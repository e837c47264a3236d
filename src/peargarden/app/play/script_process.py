"""The host's end of the card scripts' process (``script_worker.py``): start it, talk to it, bound it.

Every command's run is bounded: ``cpu_seconds`` of CPU — the process's own (read from
``/proc/<pid>/stat``; where there is no ``/proc``, the same number of seconds of wall time) plus
what the host spent answering its calls —, and
``wall_seconds`` of waiting in all, so a script that loops (``while (true) {}``) or a process that
hangs is stopped, never waited for.  Memory is bounded inside, by QuickJS (``memory_limit``).
Whatever ends the process becomes one :class:`~peargarden.scripting.session.RuntimeGone` line
naming the script that was running, and the process is killed.  It dies with its parent
(``PR_SET_PDEATHSIG``), which the kernel ties to the *thread* that started it: a server must start
it from a thread that lives as long as the chat (as ``providers/worker_client.py`` does).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.scripting.api import exported
from peargarden.scripting.quickjs_side import MEMORY_LIMIT_BYTES
from peargarden.scripting.session import RuntimeGone

_POLL = 0.05


class ScriptLimits(msgspec.Struct, frozen=True):
    """Seconds and bytes: CPU per command, waiting per command, starting, the scripts' heap."""

    cpu_seconds: float = 5.0
    wall_seconds: float = 60.0
    start_seconds: float = 30.0
    memory_limit: int = MEMORY_LIMIT_BYTES


def _cpu_seconds(pid: int) -> float | None:
    """The process's user + system CPU time, or None where ``/proc`` cannot say."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class ScriptProcess:
    """One process running a chat's card scripts (a ``Channel`` for ``ScriptSession``)."""

    def __init__(self, limits: ScriptLimits | None = None) -> None:
        self.limits = limits or ScriptLimits()
        self._buffer = b""
        self._checked = 0.0
        self._answering = 0.0  # this command's CPU spent answering its calls
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "peargarden.app.play.script_worker", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._write({"op": "start", "exported": exported(), "memory_limit": self.limits.memory_limit})
        ready = self._next(self.limits.start_seconds, self.limits.start_seconds, "启动")
        if ready.get("ev") != "ready":
            self._kill()
            raise RuntimeGone("脚本运行时没能启动")

    def request(self, command: dict[str, Any], answer: Callable[[str], str]) -> dict[str, Any]:
        self._write(command)
        started = time.monotonic()
        cpu_start = _cpu_seconds(self.proc.pid)
        self._answering = 0.0
        what = "运行脚本" if command.get("op") == "script" else f"处理 {command.get('event') or command.get('op')}"
        while True:
            wall_left = self.limits.wall_seconds - (time.monotonic() - started)
            message = self._next(wall_left, self.limits.cpu_seconds, what, cpu_start)
            if message.get("ev") == "call":
                # The host's CPU answering the script's calls counts towards the script's bound too
                # (this thread's: a web server answers on many).
                before = time.thread_time()
                reply = answer(str(message.get("request_json") or "{}"))
                self._answering += time.thread_time() - before
                self._write({"op": "answer", "answer_json": reply})
                continue
            return message

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._write({"op": "stop"})
                self.proc.wait(timeout=1)
            except (OSError, RuntimeGone, subprocess.TimeoutExpired):
                self._kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    # -- the pipe ----------------------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", errors="replace"))
            stdin.flush()
        except OSError:
            self._kill()
            raise RuntimeGone("脚本运行时已经退出") from None

    def _next(self, wall: float, cpu: float, what: str, cpu_start: float | None = None) -> dict[str, Any]:
        """The next line, within ``wall`` seconds of waiting and ``cpu`` seconds of the process's CPU."""
        stdout = self.proc.stdout
        assert stdout is not None
        fd = stdout.fileno()
        deadline = time.monotonic() + max(0.0, wall)
        wall_start = time.monotonic()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], _POLL)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    code = self.proc.wait()
                    reason = "内存不够" if code in (-9, 137) else f"退出码 {code}"
                    raise RuntimeGone(f"脚本运行时在{what}时意外退出（{reason}）")
                self._buffer += chunk
            self._check(cpu, what, cpu_start, wall_start, deadline, wall)
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            self._kill()
            raise RuntimeGone("脚本运行时发来无法读懂的一行") from None
        return message if isinstance(message, dict) else {}

    def _check(
        self, cpu: float, what: str, cpu_start: float | None, wall_start: float, deadline: float, wall: float
    ) -> None:
        """The bounds, looked at once a poll interval at most: a script that calls the host in a
        tight loop is stopped as surely as a silent one, and a chatty one pays no /proc read a call."""
        now = time.monotonic()
        if now - self._checked < _POLL:
            return
        self._checked = now
        used = _cpu_seconds(self.proc.pid)
        spent = (used - cpu_start) if used is not None and cpu_start is not None else now - wall_start
        spent += self._answering
        if spent > cpu:
            self._kill()
            raise RuntimeGone(f"脚本{what}时用了超过 {cpu:g} 秒 CPU，已停止（死循环？）")
        if now >= deadline:
            self._kill()
            raise RuntimeGone(f"脚本{what}时超过 {wall:g} 秒没有结束，已停止")

    def _kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


__all__ = ["ScriptLimits", "ScriptProcess"]

"""Build the embedded model's runtime, ``llama-cpp-python``, on this machine: the one recipe
``scripts/setup.sh --local`` (through ``pear models --install``) and the web's home page use.

pip compiles llama.cpp from the pinned source release (a trimmed build: only ``libllama`` and its ggml
libraries, which is all the binding loads — ``scripts/llama_trim.cmake``), with every core: about ten
minutes on two quiet cores, seconds later on (pip keeps the wheel).  ``native`` builds for this CPU
(``-march=native``); ``portable`` without it (AVX2, no AVX-512 or AMX kernels), afresh (pip's cache
would hand back the native wheel: it does not key on ``CMAKE_ARGS``) — the self-test's way out when
the native build fails on this CPU (:mod:`.runtime_check`).

Progress is read from pip's verbose log (kept in ``<environment>/llama-build.log``): ninja prints
``[done/total]`` per compiled file, and the time left assumes the rest goes as fast.  A build can be
cancelled: pip and everything it started (cmake, ninja, the compilers) are stopped together.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from peargarden.errors import ProviderError

Kind = Literal["native", "portable"]
#: The binding's version (pyproject.toml's ``local`` extra and requirements.lock pin the same).
PACKAGE = "llama-cpp-python==0.3.36"
#: What a build needs besides Python (pip brings the rest).
TOOLS = ("cmake", "g++", "make")
_REPO = Path(__file__).resolve().parents[3]
_STEP = re.compile(rb"^\s*\[(\d+)/(\d+)\]", re.MULTILINE)

Say = Callable[[str], None]
Step = Callable[[int, int, float], None]  # files compiled, files in all, seconds so far


class BuildFailed(ProviderError):
    """pip could not build the runtime (the log's last lines are in the log file it names)."""


class BuildCancelled(ProviderError):
    """The build was stopped before it finished; nothing was installed."""


def missing_tools(which: Callable[[str], str | None] = shutil.which) -> list[str]:
    """The build tools this machine lacks (a compiler, cmake, make)."""
    return [tool for tool in TOOLS if which(tool) is None]


def tools_error(missing: Sequence[str]) -> BuildFailed:
    """What to do when the machine cannot build the runtime, in one line (no command: a page shows it)."""
    return BuildFailed(
        f"这台机器缺少编译内置模型运行时所需的工具（{'、'.join(missing)}）：装上 C++ 编译器、cmake 和 make 后再安装，"
        "或者连接一个模型服务（missing build tools）",
        hint="如 sudo apt-get install cmake g++ make",
    )


def cmake_args(kind: Kind, machine: str = "", user_args: str = "", trim: Path | None = None) -> str:
    """``CMAKE_ARGS`` for *kind* on a CPU of architecture *machine* (``uname -m``)."""
    if kind == "portable":
        flags = "-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
        if machine in ("x86_64", "amd64"):
            flags += " -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
    else:
        flags = "-DGGML_NATIVE=ON"
    include = f" -DCMAKE_PROJECT_INCLUDE={trim}" if trim is not None else ""
    return f"-DLLAVA_BUILD=OFF {flags}{include} {user_args}".strip()


def build_command(kind: Kind, python: str = sys.executable, lock: Path | None = None) -> list[str]:
    """pip installing the pinned binding (*lock*: the constraints file, requirements.lock)."""
    command = [python, "-m", "pip", "--disable-pip-version-check", "install", "-v"]
    if kind == "portable":
        command += ["--force-reinstall", "--no-deps", "--no-cache-dir"]
    if lock is not None:
        command += ["-c", str(lock)]
    return [*command, PACKAGE]


def build_environment(kind: Kind, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The build's environment: ``CMAKE_ARGS`` (what the user set there kept, after ours) and every core."""
    env = dict(os.environ if environ is None else environ)
    trim = _REPO / "scripts" / "llama_trim.cmake"
    found = trim if trim.is_file() else None
    env["CMAKE_ARGS"] = cmake_args(kind, os.uname().machine, env.get("CMAKE_ARGS", ""), found)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    return env


def last_step(log: bytes) -> tuple[int, int] | None:
    """The last ``[done/total]`` ninja printed in *log*."""
    found = None
    for match in _STEP.finditer(log):
        found = match
    return (int(found.group(1)), int(found.group(2))) if found else None


def time_left(done: int, total: int, seconds: float) -> float | None:
    """The rest at the pace so far (``None`` before the first file)."""
    return seconds * (total - done) / done if done > 0 else None


def log_file() -> Path:
    """Where the build's log is kept: beside the environment it builds into (setup.sh's ``.venv``)."""
    return Path(sys.prefix) / "llama-build.log"


def lock_file() -> Path | None:
    path = _REPO / "requirements.lock"
    return path if path.is_file() else None


def build_runtime(
    kind: Kind,
    *,
    say: Say | None = None,
    step: Step | None = None,
    cancel: threading.Event | None = None,
    command: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    log: Path | None = None,
    every: float = 1.0,
    needs: Sequence[str] = TOOLS,
) -> None:
    """Build and install the runtime (*command*: pip's, unless a test gives another); *step* hears the
    compiled files as they come, *say* a line for each stage; a *cancel* stops it (``BuildCancelled``).
    *needs*: the tools checked for first (a test's stand-in command needs none)."""
    missing = [tool for tool in missing_tools() if tool in needs]
    if missing:
        raise tools_error(missing)
    tell = say or (lambda _line: None)
    log = log or log_file()
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tell(f"编译 llama.cpp（{kind}；第一次约 10 分钟，之后几秒）（building the runtime）")
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(command or build_command(kind, lock=lock_file())),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=dict(environ) if environ is not None else build_environment(kind),
            start_new_session=True,  # pip, cmake, ninja and the compilers: one group to stop
        )
        seen: tuple[int, int] | None = None
        while True:
            try:
                code = process.wait(timeout=every)
            except subprocess.TimeoutExpired:
                code = None
            now = last_step(_tail(log))
            if now is not None and now != seen and step is not None:
                step(now[0], now[1], time.monotonic() - started)
            seen = now or seen
            if code is not None:
                break
            if cancel is not None and cancel.is_set():
                _stop(process)
                raise BuildCancelled("已取消编译（build cancelled）：运行时没有安装")
    if code != 0:
        tail = " / ".join(line.strip() for line in log.read_text("utf-8", "replace").splitlines()[-3:] if line.strip())
        raise BuildFailed(f"编译内置模型的运行时失败（pip exited {code}）：{tail[-300:]}", path=log)


def _tail(path: Path, size: int = 1 << 16) -> bytes:
    """The end of the log (a verbose build writes megabytes; the last step is near its end)."""
    with path.open("rb") as stream:
        stream.seek(max(0, path.stat().st_size - size))
        return stream.read()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the build's whole process group: TERM, then KILL after five seconds."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue

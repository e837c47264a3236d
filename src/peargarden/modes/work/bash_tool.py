"""The ``bash`` tool: run a command in the card folder, kill the whole process tree on abort or timeout.

Output (stdout and stderr merged in arrival order) is kept in full in a log file outside the data
folder and returned tail-truncated, so the model sees how the command ended.  When bubblewrap works
on this machine, approved commands run inside it: the card folder writable, everything else
read-only, no network.  Without it, approving bash approves the machine — :func:`isolation_note`
says which is the case so fronts can tell the user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.workspace.atomic import announce_write

from ._truncate import MAX_BYTES, format_size, truncate_tail

DEFAULT_TIMEOUT = 120.0


@lru_cache(maxsize=1)
def bubblewrap_works() -> bool:
    """True when ``bwrap`` exists and a trial run succeeds (it may not inside some containers)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False
    try:
        trial = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--die-with-parent", "true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return trial.returncode == 0


def isolation_note() -> str:
    if bubblewrap_works():
        return "bash 在 bubblewrap 隔离中运行：只有卡目录可写，其余只读，无网络。"
    return "本机没有可用的 bubblewrap：批准 bash 就是批准在这台机器上执行命令。"


def _argv(command: str, cwd: Path, isolate: bool) -> list[str]:
    shell = shutil.which("bash") or "/bin/sh"
    if not isolate:
        return [shell, "-c", command]
    bwrap = shutil.which("bwrap") or "bwrap"
    return [
        bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--bind", str(cwd), str(cwd), "--unshare-net", "--die-with-parent", "--chdir", str(cwd),
        shell, "-c", command,
    ]  # fmt: skip


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class BashTool(Tool):
    name = "bash"
    description = (
        "Run a bash command in the card folder. stdout and stderr are merged; long output keeps its end. "
        "Optional timeout in seconds (default 120)."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"command": {"type": "string"}, "timeout": {"type": "number", "exclusiveMinimum": 0}},
        "required": ["command"],
    }
    access = "exec"

    def __init__(self, isolate: bool | None = None) -> None:
        self._isolate = isolate

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        cwd = Path(ctx.card_dir) if ctx.card_dir is not None else Path.cwd()
        if not cwd.is_dir():
            return ToolResult(f"Working directory does not exist: {cwd}\nCannot execute bash commands.", is_error=True)
        timeout = float(args.get("timeout") or DEFAULT_TIMEOUT)
        isolate = bubblewrap_works() if self._isolate is None else self._isolate
        log = tempfile.NamedTemporaryFile(prefix="pear-bash-", suffix=".log", delete=False)  # noqa: SIM115
        log_path = Path(log.name)
        try:
            process = subprocess.Popen(
                _argv(args["command"], cwd, isolate),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so the whole tree can be killed
            )
        except OSError as error:
            log.close()
            log_path.unlink(missing_ok=True)
            return ToolResult(f"Cannot start bash: {error}", is_error=True)
        assert process.stdout is not None
        stdout_fd = process.stdout.fileno()

        def pump() -> None:
            # Raw reads return what has arrived, so the log follows the command as it runs.
            for chunk in iter(lambda: os.read(stdout_fd, 65536), b""):
                log.write(chunk)
            log.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        deadline = time.monotonic() + timeout
        ending = ""
        while process.poll() is None:
            if ctx.cancel.is_set():
                ending = "Command aborted"
                _kill_tree(process)
                break
            if time.monotonic() >= deadline:
                ending = f"Command timed out after {timeout:g} seconds"
                _kill_tree(process)
                break
            time.sleep(0.02)
        process.wait()
        _kill_tree(process)  # stray children that kept the pipe open
        # A command may have changed files: the vault takes a (debounced) snapshot afterwards.
        announce_write(cwd)
        reader.join(timeout=5)
        log.close()
        output = log_path.read_bytes().decode("utf-8", "replace")
        text = self._shown(output, log_path)
        details = {"exitCode": process.returncode, "log": str(log_path), "isolated": isolate}
        if ending:
            return ToolResult(f"{text}\n\n{ending}".lstrip("\n"), details=details, is_error=True)
        if process.returncode != 0:
            failed = f"{text}\n\nCommand exited with code {process.returncode}"
            return ToolResult(failed, details=details, is_error=True)
        return ToolResult(text, details=details)

    @staticmethod
    def _shown(output: str, log_path: Path) -> str:
        if not output.strip():
            return "(no output)"
        cut = truncate_tail(output.rstrip("\n"))
        if not cut.truncated:
            return cut.text
        if cut.partial_last_line:
            size = format_size(len(output.encode("utf-8")))
            note = f"Showing last {format_size(MAX_BYTES)} of line {cut.total_lines} (line is {size})"
            return f"{cut.text}\n\n[{note}. Full output: {log_path}]"
        first = cut.total_lines - cut.kept_lines + 1
        limit = f" ({format_size(MAX_BYTES)} limit)" if cut.by == "bytes" else ""
        note = f"Showing lines {first}-{cut.total_lines} of {cut.total_lines}{limit}"
        return f"{cut.text}\n\n[{note}. Full output: {log_path}]"

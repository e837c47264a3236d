"""Run ``pear`` for a test: in this process by default, as a real child process when that is the point.

:func:`pear_in_process` calls the same entry point a child would (``peargarden.cli.main``) without an
interpreter start-up, so a test may run many commands.  :func:`pear_process` starts ``python -m
peargarden``: keep it for what only a real process shows (exit codes seen by a shell, signals, a
one-shot that must finish its background work before the interpreter exits, crash safety).
Both return a :class:`subprocess.CompletedProcess` with the exit code and the captured text.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path


def _checked(result: subprocess.CompletedProcess[str], check: bool) -> subprocess.CompletedProcess[str]:
    if check and result.returncode != 0:
        raise AssertionError(f"pear {' '.join(result.args[1:])} failed ({result.returncode}): {result.stderr}")
    return result


def pear_in_process(home: Path, *args: str | Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    """``pear --home HOME ARGS…`` run by ``peargarden.cli.main`` in this process."""
    from peargarden.cli import main

    argv = ["--home", str(home), *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return _checked(subprocess.CompletedProcess(["pear", *argv], code, out.getvalue(), err.getvalue()), check)


def pear_process(
    home: Path, *args: str | Path, cwd: Path | None = None, check: bool = False, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m peargarden --home HOME ARGS…`` as a child, with the interpreter running the tests."""
    command = [sys.executable, "-m", "peargarden", "--home", str(home), *map(str, args)]
    env = {**os.environ, "PEARGARDEN_HOME": str(home), "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    result.args = ["pear", *command[3:]]
    return _checked(result, check)

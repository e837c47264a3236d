"""Run the real ``pear`` in a subprocess; reuse the workspace test helpers."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType


def _load_workspace_testkit() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "workspace" / "workspace_testkit.py"
    spec = importlib.util.spec_from_file_location("peargarden_workspace_testkit_for_cli", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kit = _load_workspace_testkit()


def pear(home: Path, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m peargarden --home HOME ARGS…`` with the interpreter running the tests (the venv's)."""
    command = [sys.executable, "-m", "peargarden", "--home", str(home), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def pear_here(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The same CLI entry point (``peargarden.cli.main``) run in this process: no interpreter start-up,
    for the tests that run many commands.  Bad-input tests use :func:`pear` (a real subprocess)."""
    import contextlib
    import io

    from peargarden.cli import main

    argv = ["--home", str(home), *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())

"""How a `pear` process ends (issue 32, point 7): without freeing its objects one by one, but with
everything an exit owes done — the exit functions run, what was printed is all there, the exit
status is the command's, and a thread that is not a daemon is still waited for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kit.cli import pear_in_process as pear

# A `pear` process as the installed script runs it (``main()`` with no arguments), with an exit
# function and, when asked, a non-daemon thread that finishes after the command.
PROBE = """
import atexit, sys, threading, time
from pathlib import Path
home, marker, late, *args = sys.argv[1:]
atexit.register(lambda: print("退出函数跑了", file=sys.stderr, flush=True))
if late != "-":
    def finish() -> None:
        time.sleep(0.3)
        Path(late).write_text("写完了", encoding="utf-8")
    threading.Thread(target=finish, daemon=False).start()
sys.argv = ["pear", "--home", home, *args]
from peargarden.cli import main
main()
"""


def _run(home: Path, *args: str, late: str = "-") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(home), "-", late, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def test_a_command_ends_with_its_output_its_exit_functions_and_status_zero(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    done = _run(home, "cards", "--json")
    assert done.returncode == 0, done.stderr
    assert "青梧" in done.stdout and done.stdout.endswith("\n")
    assert done.stderr.strip().splitlines()[-1] == "退出函数跑了"


def test_a_failing_command_keeps_its_status_and_its_one_line(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    failed = _run(home, "sessions", "show", "20261203-000000-none")
    assert failed.returncode not in (0, 1), failed.stderr  # a PearError's own code, not a generic failure
    lines = failed.stderr.strip().splitlines()
    assert lines[0].startswith("pear: ") and lines[-1] == "退出函数跑了"


def test_a_thread_that_is_not_a_daemon_is_waited_for(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    late = tmp_path / "晚到.txt"
    done = _run(home, "cards", late=str(late))
    assert done.returncode == 0, done.stderr
    assert late.read_text(encoding="utf-8") == "写完了"

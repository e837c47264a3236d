from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kit.cli import pear_in_process
from peargarden.errors import BadInput, PearError


def test_pear_help_lists_commands() -> None:
    # A real process: `pear --help` is printed before typer loads (cli/_help.py), so it costs little.
    result = subprocess.run([sys.executable, "-m", "peargarden", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "init" in result.stdout


def test_error_message_names_the_file() -> None:
    error = BadInput("不是 PNG 文件", path="卡/青梧.png")
    assert str(error) == "卡/青梧.png: 不是 PNG 文件"
    assert isinstance(error, PearError)
    assert error.exit_code == 2


def test_usage_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    # The first as a real process (the exit code a shell sees), the others in this process.
    result = subprocess.run([sys.executable, "-m", "peargarden", "nonsense"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "Error" in result.stderr
    for args in (["nonsense"], ["import"], ["card", "expand"]):
        result = pear_in_process(tmp_path / "home", *args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr and "Error" in result.stderr

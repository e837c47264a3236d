from __future__ import annotations

import subprocess
import sys

from peargarden.errors import BadInput, PearError


def test_pear_help_lists_commands() -> None:
    result = subprocess.run([sys.executable, "-m", "peargarden", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "init" in result.stdout


def test_error_message_names_the_file() -> None:
    error = BadInput("不是 PNG 文件", path="卡/青梧.png")
    assert str(error) == "卡/青梧.png: 不是 PNG 文件"
    assert isinstance(error, PearError)
    assert error.exit_code == 2


def test_usage_errors_exit_2_without_traceback() -> None:
    for args in (["nonsense"], ["import"], ["card", "expand"]):
        result = subprocess.run([sys.executable, "-m", "peargarden", *args], capture_output=True, text=True)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr and "Error" in result.stderr

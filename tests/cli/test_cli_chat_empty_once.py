"""`pear chat --once ""` (issue 32, point 8): refused with one line before anything is made — no chat
folder, no session file (it used to leave a new chat with only the greeting behind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import workspace as wkit
from kit.cli import pear_in_process as pear


@pytest.mark.parametrize("text", ["", "   ", "\n\u3000"], ids=["empty", "spaces", "blank-lines"])
def test_an_empty_once_makes_no_chat(tmp_path: Path, text: str) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    before = wkit.tree_digest(home)
    result = pear(home, "chat", "--once", text, "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert wkit.tree_digest(home) == before  # no chat folder, no session file, nothing
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "empty message" in lines[0]

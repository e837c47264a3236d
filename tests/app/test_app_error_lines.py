"""An error's line names no shell command: a page user has no shell.  What to run goes into the
error's ``hint`` (the CLI prints it after the line; the web leaves it out) and the setting that fixes
it into ``fix`` (the web links to it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from peargarden.agent.events import error_event
from peargarden.errors import FIXES, PearError, ProviderError, StorageError, storage_error

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "peargarden"
# A command, a `pear` subcommand, a script, a flag or an installer, as a line might tell a user to type.
SHELL = re.compile(r"`[^`]*`|\bpear (?:[a-z]+)\b|\bbash\b|scripts/|(?<![\w-])--[a-z][a-z-]+|pip install|chmod|apt-get")
# The error classes and records whose first argument is the line a person reads.
ERRORS = re.compile(r"(Error|Fault|BadInput|NotFound|Unsafe|Busy|Exists|Failed|BadGguf|Failure)$")


def _texts(node: ast.expr) -> list[str]:
    """Every string written in the message's expression (an f-string's parts, a ``near or '…'`` inside
    one, concatenations)."""
    return [part.value for part in ast.walk(node) if isinstance(part, ast.Constant) and isinstance(part.value, str)]


def error_lines() -> list[tuple[str, int, str]]:
    """(file, line, text) of every error line written in the package outside the CLI."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("cli/", "testing/")):
            continue  # the terminal's own words, and the test server's
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if not ERRORS.search(name):
                continue
            message = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "message"), None)
            if message is not None:
                found.extend((rel, node.lineno, text) for text in _texts(message))
    return found


def test_the_scan_reads_the_error_lines() -> None:
    lines = error_lines()
    assert len(lines) > 300
    assert any(rel == "providers/embedded.py" and "找不到内置模型" in text for rel, _, text in lines)


def test_no_error_line_names_a_shell_command() -> None:
    offending = [f"{rel}:{line}: {text}" for rel, line, text in error_lines() if SHELL.search(text)]
    assert not offending, "\n".join(offending)


def test_the_scan_would_see_a_command_in_a_line() -> None:
    assert SHELL.search("找不到内置模型：请先运行 `bash scripts/chat.sh`")
    assert SHELL.search("请安装可选组件（pip install -e '.[local]'）")
    assert SHELL.search("群聊至少要有一个成员（--member CARD）")
    assert not SHELL.search("无法连接 http://127.0.0.1:9/v1（cannot connect）：connection refused")


def test_the_terminal_gets_the_hint_and_a_page_the_line_and_the_fix() -> None:
    error = ProviderError("找不到内置模型", hint="运行 `bash scripts/chat.sh`", fix="embedded", path="模型/青梧.gguf")
    assert str(error) == "模型/青梧.gguf: 找不到内置模型：运行 `bash scripts/chat.sh`"
    assert error.without_hint() == "模型/青梧.gguf: 找不到内置模型"
    event = error_event(error)
    assert event.message == "模型/青梧.gguf: 找不到内置模型"
    assert (event.hint, event.fix) == ("运行 `bash scripts/chat.sh`", "embedded")
    assert error_event(PearError("坏了")).to_json() == {"type": "error", "message": "坏了", "hint": "", "fix": ""}
    with pytest.raises(ValueError):
        PearError("坏了", fix="设置")
    assert set(FIXES) == {"model", "connection", "embedded"}


def test_a_read_only_data_folder_says_chmod_only_to_the_terminal(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    error = storage_error(PermissionError(13, "Permission denied", str(home / "config.toml")), home)
    assert isinstance(error, StorageError)
    assert "chmod -R u+w" in str(error) and "--home" in str(error)
    assert "chmod" not in error.without_hint() and "不可写" in error.without_hint()

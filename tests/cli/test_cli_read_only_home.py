"""A data folder that cannot be written (issue 32, point 2): a command that must write ends with one
line naming the data folder and the fix (exit 5), never a traceback; commands that only read still work.

The folder is made read-only with ``chmod``; as root (whom permissions do not stop) the ``pear``
process runs under ``setpriv`` without the capabilities that override them, so the kernel refuses
its writes exactly as it refuses a normal user's.  Real processes: the refusal is the operating
system's, from the first write of each command, wherever it is.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.cli import pear_in_process as pear
from peargarden.errors import StorageError, storage_error
from peargarden.workspace import atomic

ST_CHAT = (
    '{"user_name":"旅人","character_name":"青梧","create_date":"2026-11-30@00h00m00s","chat_metadata":{}}\n'
    '{"name":"青梧","is_user":false,"is_system":false,"send_date":"x","mes":"客官里边请。","extra":{}}\n'
)


def _without_override() -> list[str] | None:
    """The prefix that makes this process's children obey file permissions, or None when impossible."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


PREFIX = _without_override()
needs_permissions = pytest.mark.skipif(PREFIX is None, reason="running as root without setpriv to drop overrides")


def _chmod_tree(root: Path, writable: bool) -> None:
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files, "."]:
            path = Path(folder) / name
            mode = path.lstat().st_mode & 0o7777
            path.chmod(mode | 0o200 if writable else mode & ~0o222)


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    chat = tmp_path / "旧对话.jsonl"
    chat.write_text(ST_CHAT, encoding="utf-8")
    pear(home, "import", chat, "--card", "青梧", check=True)
    pear(home, "sessions", "show", "旧对话", check=True)  # converted into a session file
    pear(home, "group", "create", "雨夜", "--member", "青梧", check=True)
    pear(home, "vault", "snapshot", check=True)
    _chmod_tree(home, writable=False)
    try:
        yield home
    finally:
        _chmod_tree(home, writable=True)


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert PREFIX is not None
    command = [*PREFIX, sys.executable, "-m", "peargarden", "--home", str(home), *args]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def _ends_with_the_fix(result: subprocess.CompletedProcess[str], home: Path) -> None:
    assert result.returncode == StorageError.exit_code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    # One line: a raw "[Errno 13] …" of the vault's start-up snapshot came before it (issue 46, item 9).
    (last,) = result.stderr.strip().splitlines()
    assert last.startswith("pear: ") and f"数据文件夹 {home} 不可写" in last and "chmod -R u+w" in last, last


@needs_permissions
@pytest.mark.parametrize("existing", [True, False], ids=["existing-chat", "new-chat"])
def test_chat_on_a_read_only_folder_ends_with_one_line(read_only_home: Path, existing: bool) -> None:
    chat = ["--chat", "旧对话"] if existing else []
    endpoint = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--thinking", "off"]
    result = _run(read_only_home, "chat", *chat, "--once", "掌柜，还有空房吗？", *endpoint)
    _ends_with_the_fix(result, read_only_home)


@needs_permissions
@pytest.mark.parametrize(
    "args",
    [
        ["vault", "snapshot"],
        ["vault", "restore", "{snapshot}", "cards"],
        ["tavern", "set", "regex", "on", "--card", "青梧"],
        ["import", "{chat}", "--card", "青梧"],
        ["card", "expand", "青梧"],
        ["group", "create", "茶馆", "--member", "青梧"],
        ["group", "edit", "雨夜", "--strategy", "list"],
    ],
    ids=["vault-snapshot", "vault-restore", "tavern-set", "import", "card-expand", "group-create", "group-edit"],
)
def test_commands_that_write_end_with_one_line(read_only_home: Path, tmp_path: Path, args: list[str]) -> None:
    """Exit 5 and the one line for each (``group create|edit`` and ``vault restore`` exited 1, with a
    raw line, where ``chat`` and ``import`` exit 5: issue 46, item 9)."""
    chat = tmp_path / "又一段.jsonl"
    chat.write_text(ST_CHAT, encoding="utf-8")
    (snapshot,) = [p.stem for p in (read_only_home / "vault" / "snapshots").glob("*.json")][:1] or ["none"]
    given = {"{chat}": str(chat), "{snapshot}": snapshot}
    result = _run(read_only_home, *(given.get(arg, arg) for arg in args))
    _ends_with_the_fix(result, read_only_home)


@needs_permissions
@pytest.mark.parametrize(
    "args",
    [
        ["cards"],
        ["sessions", "list"],
        ["sessions", "show", "旧对话"],
        ["story", "state", "--card", "青梧", "--chat", "旧对话"],
    ],
    ids=["cards", "sessions-list", "sessions-show", "story-state"],
)
def test_commands_that_only_read_still_work(read_only_home: Path, args: list[str]) -> None:
    result = _run(read_only_home, *args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("code", "words"),
    [(errno.EROFS, "read-only file system"), (errno.EACCES, "permission denied"), (errno.ENOSPC, "磁盘已满")],
)
def test_a_refused_write_is_a_storage_error_naming_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, words: str
) -> None:
    home = tmp_path / "数据"
    (home / "cards").mkdir(parents=True)
    (home / "config.toml").write_text("", encoding="utf-8")

    def refuse(*_args: object, **_kwargs: object) -> int:
        raise OSError(code, os.strerror(code), "ignored")

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(StorageError) as caught:
        atomic.write_text(home / "cards" / "卡.json", "{}")
    error = caught.value
    assert isinstance(error, OSError) and error.errno == code  # `except OSError` callers go on as before
    message = str(error)
    assert words in message and str(home / "cards" / "卡.json") in message and "\n" not in message
    if code != errno.ENOSPC:
        assert f"数据文件夹 {home} 不可写" in message


def test_other_os_errors_stay_what_they_are() -> None:
    assert storage_error(OSError(errno.ENOENT, "No such file", "x")) is None
    assert storage_error(OSError(errno.EIO, "I/O error", "x")) is None

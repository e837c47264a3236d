"""The disk fills up in the middle of a beat (issue 32, point 3): nothing torn, its own exit code,
one clear line.

The disk is filled for real, as far as the process can tell: ``pear chat`` runs as a child whose
file-size limit (``RLIMIT_FSIZE``) ends just past the session file, so the kernel cuts its append short
and then refuses the rest (``EFBIG``, what a full disk's ``ENOSPC`` is to the code: a write that stops
part-way).  First the user's line itself does not fit; then it fits and the reply does not.  The
chat must be as it was, or have the user's line whole, and open cleanly afterwards.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.cli import pear_in_process as pear
from peargarden.errors import ProviderError, StorageError
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import ChatFile

# Runs ``python -m peargarden ARGS`` with the file-size limit LIMIT (argv[1]); CPython ignores
# SIGXFSZ, so a write past the limit is cut short and then fails with EFBIG.
LIMITED = (
    "import os, resource, sys; limit = int(sys.argv[1]); "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
    "os.execv(sys.executable, [sys.executable, '-m', 'peargarden', *sys.argv[2:]])"
)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        fake.default_reply = text_reply("好。")  # story memory's side calls
        yield fake


def _played_chat(home: Path, server: FakeOpenAIServer) -> tuple[str, Path]:
    server.script([text_reply("有的，", "客官楼上请。")])
    pear(home, "chat", "--once", "掌柜，还有空房吗？", *_endpoint(server), check=True)
    (session,) = home.glob("cards/青梧/chats/*/session.jsonl")
    return session.parent.name, session


def _endpoint(server: FakeOpenAIServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]


def _beat_with_limit(
    home: Path, limit: int, chat_id: str, server: FakeOpenAIServer
) -> subprocess.CompletedProcess[str]:
    args = ["--home", str(home), "chat", "--chat", chat_id, "--once", "那就住下，再温一壶酒。", *_endpoint(server)]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-c", LIMITED, str(limit), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def _says_disk_full(result: subprocess.CompletedProcess[str], session: Path) -> None:
    assert result.returncode == StorageError.exit_code != ProviderError.exit_code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("pear: ")]
    assert len(lines) == 1 and "磁盘已满" in lines[0] and str(session) in lines[0], result.stderr


def _every_line_whole(session: Path) -> list[dict[str, object]]:
    data = session.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


def test_the_users_line_that_does_not_fit_is_not_written(home_dir: Path, server: FakeOpenAIServer) -> None:
    chat_id, session = _played_chat(home_dir, server)
    before = session.read_bytes()
    asked = len(server.chat_requests)
    result = _beat_with_limit(home_dir, len(before) + 40, chat_id, server)  # 40 bytes of the line fit
    _says_disk_full(result, session)
    assert session.read_bytes() == before  # the 40 bytes were taken back
    assert len(server.chat_requests) == asked  # the model was never asked
    chat = ChatFile.open(session.parent.parent, chat_id)
    assert chat.warnings == []


def test_a_disk_with_no_room_at_all_names_the_chats_file(home_dir: Path, server: FakeOpenAIServer) -> None:
    """Not one byte fits: the chat lock's pid (which only names the holder in another process's line)
    was the first write refused, and the line named no file, which docs/cli.md promises (issue 46,
    item 9).  Now the beat goes on to its first real write, the chat's, and names it."""
    chat_id, session = _played_chat(home_dir, server)
    before = session.read_bytes()
    result = _beat_with_limit(home_dir, 0, chat_id, server)
    _says_disk_full(result, session)
    assert session.read_bytes() == before


def test_a_reply_that_does_not_fit_leaves_whole_lines(home_dir: Path, server: FakeOpenAIServer) -> None:
    chat_id, session = _played_chat(home_dir, server)
    before = session.read_bytes()
    server.script([text_reply(*["窗外的雨一直没有停，掌柜把灯挑亮了些。" * 10] * 30)])  # 5,700 characters
    result = _beat_with_limit(home_dir, len(before) + 1000, chat_id, server)
    _says_disk_full(result, session)
    lines = _every_line_whole(session)
    added = lines[len(before.splitlines()) :]
    assert [line.get("message", {}).get("role") for line in added] == ["user"]  # type: ignore[union-attr]
    chat = ChatFile.open(session.parent.parent, chat_id)
    assert chat.warnings == []
    assert chat.tree.messages()[-1].message["content"] == "那就住下，再温一壶酒。"


def test_a_torn_last_line_is_reported_when_the_chat_is_read(home_dir: Path, server: FakeOpenAIServer) -> None:
    chat_id, session = _played_chat(home_dir, server)
    lines = session.read_bytes().splitlines()
    with session.open("ab") as handle:
        handle.write('{"id":"feedbeef","parentId":null,"type":"message","message":{"content":"半'.encode())
    result = pear(home_dir, "sessions", "show", chat_id)
    assert result.returncode == 0
    assert f"第 {len(lines) + 1} 行不完整" in result.stderr


def test_an_append_cut_short_is_taken_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same in-process, with ENOSPC itself: part of the line written, then the error."""
    from peargarden.workspace import atomic

    real_write = os.write

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        real_write(fd, bytes(data)[:9])
        raise OSError(errno.ENOSPC, "No space left on device")

    log = tmp_path / "会话.jsonl"
    atomic.append_line(log, '{"一":1}')
    monkeypatch.setattr(atomic.os, "write", full_disk)
    with pytest.raises(StorageError) as caught:
        atomic.append_line(log, '{"二":"雨还在下"}')
    assert log.read_bytes() == '{"一":1}\n'.encode() and str(log) in str(caught.value)
    fresh = tmp_path / "新的.jsonl"
    with pytest.raises(StorageError):
        atomic.append_line(fresh, '{"三":3}')
    assert not fresh.exists()  # a file the failed append made is not left empty behind

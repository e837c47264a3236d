"""`pear` where Python's UTF-8 mode is off (issue 46, item 5): ``LANG=C LC_ALL=C PYTHONUTF8=0`` gives
an ASCII file-system encoding, in which Python can neither make nor open 青梧.  `pear init` and `pear
cards` ended in ``UnicodeEncodeError`` tracebacks and `pear chat --card 青梧` said a false "no such card";
now `pear` starts itself again in UTF-8 mode, and where it cannot, says in one line what to set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.formats import v2_card
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply


def _c_locale() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k not in ("LANG", "PYTHONIOENCODING")}
    return {**env, "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"}


def _pear(home: Path, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "peargarden", "--home", str(home), *map(str, args)]
    return subprocess.run(command, capture_output=True, env=_c_locale(), cwd=cwd, timeout=120)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        fake.default_reply = text_reply("好。")  # story memory's side calls
        yield fake


def test_the_c_locale_really_gives_an_ascii_file_system_encoding() -> None:
    """The premise of the tests below, checked on this interpreter."""
    code = "import sys; print(sys.getfilesystemencoding(), sys.flags.utf8_mode)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_c_locale(), check=True)
    assert shown.stdout.split() == ["ascii", "0"]


def test_init_cards_import_and_chat_work_with_chinese_names(tmp_path: Path, server: FakeOpenAIServer) -> None:
    home = tmp_path / "梨园数据"
    done = _pear(home, "init")
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode()
    assert (home / "cards" / "青梧" / "青梧.png").is_file()
    card = tmp_path / "卡片" / "林月.json"
    card.parent.mkdir()
    card.write_text(json.dumps(v2_card(name="林月", first_mes="你来了。"), ensure_ascii=False), encoding="utf-8")
    imported = _pear(home, "import", "林月.json", cwd=card.parent)
    assert imported.returncode == 0, imported.stderr.decode()
    listed = _pear(home, "cards", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    assert {row["name"] for row in json.loads(listed.stdout.decode("utf-8"))} >= {"青梧", "林月"}
    server.script([text_reply("有的，", "客官楼上请。")])
    endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
    chat = _pear(home, "chat", "--card", "青梧", "--once", "掌柜，还有空房吗？", *endpoint)
    assert chat.returncode == 0 and b"Traceback" not in chat.stderr, chat.stderr.decode()
    assert "客官楼上请。" in chat.stdout.decode("utf-8")
    (folder,) = (home / "cards" / "青梧" / "chats").iterdir()
    assert "掌柜，还有空房吗？" in (folder / "session.jsonl").read_text(encoding="utf-8")


def test_where_it_cannot_start_again_one_line_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import peargarden.cli as cli

    def refused(*args: object) -> None:
        raise OSError("exec refused")

    def leave(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(cli, "_file_names_in_utf8", lambda: False)
    monkeypatch.setattr(cli.sys, "getfilesystemencoding", lambda: "ascii")
    monkeypatch.setattr(cli.os, "execve", refused)
    monkeypatch.setattr(cli.os, "_exit", leave)
    with pytest.raises(SystemExit) as ended:
        cli._utf8_or_exit()
    assert ended.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("pear: Python 的文件名编码是 ascii，不是 UTF-8") and "PYTHONUTF8=1" in line

"""``pear import`` of a SillyTavern chat (issue 32, point 6): read a line at a time, so a chat may be
larger than a file read whole; converted into a session and indexed at once; checked as before."""

from __future__ import annotations

import functools
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit import workspace as wkit
from kit.cli import pear_in_process as pear
from kit.examples import examples
from peargarden.errors import FormatError, PearError
from peargarden.formats import iter_chat_jsonl, read_chat_jsonl
from peargarden.workspace import chat_import, importer, inputs
from peargarden.workspace.chats import INDEX_FILE, ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.inputs import read_input

HEADER = {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-29@22h38m27s", "chat_metadata": {}}


def _chat_lines(messages: int, text: str = "雨还在下，客官里边请。") -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [HEADER]
    for n in range(messages):
        if n % 2:
            lines.append({"name": "旅人", "is_user": True, "is_system": False, "send_date": "x", "mes": f"{text}{n}"})
        else:
            swipes = [f"{text}{n}·{k}" for k in range(3)]
            lines.append({"name": "青梧", "is_user": False, "is_system": False, "send_date": "x", "mes": swipes[1],
                          "extra": {}, "swipe_id": 1, "swipes": swipes,
                          "swipe_info": [{"send_date": "x", "extra": {}} for _ in swipes]})  # fmt: skip
    return lines


def _write(path: Path, lines: list[dict[str, Any]]) -> bytes:
    data = "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in lines).encode()
    path.write_bytes(data)
    return data


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "数据"
    pear(folder, "init", check=True)
    return folder


def _export(home: Path, chat_id: str, out: Path) -> bytes:
    pear(home, "sessions", "export", chat_id, "-o", out, check=True)
    return out.read_bytes()


def test_a_chat_larger_than_a_whole_read_imports_and_comes_back(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files read whole may be 64 KiB here; the chat, 300 KiB or so, is read a line at a time.
    monkeypatch.setattr(importer, "read_input", functools.partial(read_input, limit=64 * 1024))
    chat = tmp_path / "雨夜长谈.jsonl"
    data = _write(chat, _chat_lines(2000))
    assert len(data) > 4 * 64 * 1024
    book = tmp_path / "大世界书.json"
    book.write_text(json.dumps({"entries": {"0": {"uid": 0, "key": ["雨"], "content": "雨" * 100_000}}}), "utf-8")
    refused = pear(home, "import", book)
    assert refused.returncode == 2 and "file too large" in refused.stderr
    result = pear(home, "import", chat, "--card", "青梧", check=True)
    assert "2000 条消息" in result.stdout
    folder = home / "cards" / "青梧" / "chats" / "雨夜长谈"
    assert sorted(p.name for p in folder.iterdir()) == [".cache", "session.jsonl"]  # nothing else kept
    assert _export(home, "雨夜长谈", tmp_path / "导出.jsonl") == data


def test_the_index_is_made_at_import(home: Path, tmp_path: Path) -> None:
    chat = tmp_path / "长谈.jsonl"
    _write(chat, _chat_lines(1200))
    pear(home, "import", chat, "--card", "青梧", check=True)
    chats = home / "cards" / "青梧" / "chats"
    assert (chats / "长谈" / INDEX_FILE).is_file()
    opened = ChatFile.open(chats, "长谈")
    assert opened.indexed and len(opened.tree.messages()) == 1200


def test_converting_holds_a_line_not_the_file(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Read and written in blocks of 32 KiB here (1 MiB in use): the file is 20 blocks or so.
    monkeypatch.setattr(inputs, "_BLOCK", 32 * 1024)
    monkeypatch.setattr(chat_import, "_CHUNK_BYTES", 32 * 1024)
    chat = tmp_path / "很长.jsonl"
    data = _write(chat, _chat_lines(6000))
    plan = importer.plan_import(Home(home), [chat], card="青梧")
    tracemalloc.start()
    try:
        importer.apply_plan(plan)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(data) / 4, (peak, len(data))  # a whole read alone would be the file's size


def test_a_line_over_the_line_limit_is_refused_and_nothing_is_written(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_import, "MAX_LINE_BYTES", 4096)
    lines = _chat_lines(6)
    lines[3]["mes"] = "长" * 3000  # 9,000 bytes
    chat = tmp_path / "一行太长.jsonl"
    _write(chat, lines)
    before = wkit.tree_digest(home)
    result = pear(home, "import", chat, "--card", "青梧")
    assert result.returncode == 2 and "line too long" in result.stderr and "一行太长.jsonl" in result.stderr
    assert "第 4 行" in result.stderr and wkit.tree_digest(home) == before


def test_a_broken_line_in_the_middle_is_refused_a_torn_last_line_is_dropped(home: Path, tmp_path: Path) -> None:
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in _chat_lines(4))
    broken = tmp_path / "坏了.jsonl"
    rows = text.split("\n")
    broken.write_text("\n".join([*rows[:2], '{"name": "青梧", "mes": "半', *rows[2:]]), encoding="utf-8")
    before = wkit.tree_digest(home)
    result = pear(home, "import", broken, "--card", "青梧")
    assert result.returncode == 2 and "第 3 行不是 JSON 对象" in result.stderr
    assert wkit.tree_digest(home) == before
    torn = tmp_path / "断尾.jsonl"
    torn.write_text(text + '\n{"name": "青梧", "mes": "半', encoding="utf-8")
    assert "4 条消息" in pear(home, "import", torn, "--card", "青梧", check=True).stdout


def test_a_utf16_chat_is_read_whole_and_converted_too(home: Path, tmp_path: Path) -> None:
    lines = _chat_lines(5)
    chat = tmp_path / "记事本.jsonl"
    chat.write_bytes("\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode("utf-16"))
    assert "5 条消息" in pear(home, "import", chat, "--card", "青梧", check=True).stdout
    out = _export(home, "记事本", tmp_path / "导出.jsonl").decode("utf-8")
    assert [json.loads(line) for line in out.splitlines()] == lines


ROWS = st.sampled_from([
    json.dumps(HEADER, ensure_ascii=False),
    '{"name":"青梧","is_user":false,"mes":"雨还在下。"}',
    '{"name":"旅人","is_user":true,"mes":"掌柜好。","extra":{"x":NaN}}',
    '{"mes": 3}', '{"other": "line"}', "[1, 2]", '{"mes":"半', "", "   ", "\u3000", "\r",
    '{"mes":"\\ud800孤"}',
])  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(rows=st.lists(ROWS, max_size=8), bom=st.booleans())
def test_read_a_line_at_a_time_a_chat_means_what_it_means_read_whole(rows: list[str], bom: bool) -> None:
    data = ("\ufeff" if bom else "").encode() + "\n".join(rows).encode("utf-8")
    try:
        chat = read_chat_jsonl(data, "x.jsonl")
    except FormatError:
        with pytest.raises(PearError):
            list(iter_chat_jsonl(data.split(b"\n"), "x.jsonl"))
        return
    expected = ([chat.header] if chat.header is not None else []) + [m.raw for m in chat.messages]
    got = list(iter_chat_jsonl(data.split(b"\n"), "x.jsonl"))
    assert json.dumps(got, ensure_ascii=False) == json.dumps(expected, ensure_ascii=False)

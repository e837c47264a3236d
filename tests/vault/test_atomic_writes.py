"""The atomic write helpers and the JSON-lines reader, one behaviour at a time."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from peargarden.workspace import atomic


def test_write_json_keeps_chinese_readable_and_ends_with_newline(tmp_path: Path) -> None:
    target = tmp_path / "世界书" / "栖水镇.json"
    atomic.write_json(target, {"名字": "栖水镇"})
    text = target.read_text(encoding="utf-8")
    assert "栖水镇" in text and text.endswith("\n")
    assert json.loads(text) == {"名字": "栖水镇"}


def test_replacing_a_file_keeps_its_permissions_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o750)
    atomic.write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert os.listdir(tmp_path) == ["run.sh"]
    atomic.write_bytes(target, b"x", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "卡.json"
    atomic.write_json(target, {"v": 1})

    class Unserialisable:
        pass

    with pytest.raises(TypeError):
        atomic.write_json(target, {"v": Unserialisable()})
    assert json.loads(target.read_text(encoding="utf-8")) == {"v": 1}
    with pytest.raises(NotADirectoryError):
        atomic.write_text(target / "下面", "x")  # the parent is a file
    assert os.listdir(tmp_path) == ["卡.json"]


def test_append_line_creates_folders_and_appends_whole_lines(tmp_path: Path) -> None:
    session = tmp_path / "chats" / "c1" / "会话.jsonl"
    atomic.append_line(session, json.dumps({"seq": 1}))
    atomic.append_line(session, json.dumps({"seq": 2}) + "\n")  # a trailing newline is not doubled
    assert session.read_text(encoding="utf-8") == '{"seq": 1}\n{"seq": 2}\n'


def test_stale_temp_files_of_crashed_writes_are_removed_fresh_ones_kept(tmp_path: Path) -> None:
    old = tmp_path / "cards" / "青梧" / ".卡.json.k2x9_a1b.tmp"
    fresh = tmp_path / "library" / ".栖水镇.json.zz99aa00.tmp"
    keep = tmp_path / "library" / "栖水镇.json"
    for path in (old, fresh, keep):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{", encoding="utf-8")
    now = 1_800_000_000.0
    os.utime(old, (now - 7200, now - 7200))
    os.utime(fresh, (now - 60, now - 60))
    os.utime(keep, (now - 7200, now - 7200))
    assert atomic.remove_stale_temp_files(tmp_path, now=now) == [old]
    assert fresh.exists() and keep.exists() and not old.exists()

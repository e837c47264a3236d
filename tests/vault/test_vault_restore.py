"""Diff and restore: whole snapshot, one folder, one file; the snapshot before a restore; failures write nothing."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from vault_test_library import make_library, tree_bytes

from peargarden.errors import ConflictError, NotFound
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault


def minute_clock() -> Callable[[], datetime]:
    now = [datetime(2026, 11, 30, 9, 0, tzinfo=UTC)]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)
        return now[0]

    return clock


@pytest.fixture
def vault(home_dir: Path) -> Vault:
    make_library(home_dir)
    return Vault(Home(home_dir), clock=minute_clock())


def snap(vault: Vault, reason: str = "manual") -> str:
    info = vault.snapshot(reason)
    assert info is not None
    return info.id


def vault_state(home: Path) -> dict[str, bytes]:
    return {
        p.relative_to(home).as_posix(): p.read_bytes()
        for p in (home / "vault").rglob("*")
        if p.is_file() and "locks" not in p.parts
    }


def test_diff_lists_added_removed_and_changed_files(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    (home_dir / "library" / "lorebooks" / "栖水镇.json").unlink()
    (home_dir / "library" / "lorebooks" / "新书.json").write_text("{}", encoding="utf-8")
    (home_dir / "cards" / "青梧" / "卡.json").write_text('{"userName": "书生"}', encoding="utf-8")
    b = snap(vault)
    diff = vault.diff(a, b)
    assert diff.added == ["library/lorebooks/新书.json"]
    assert diff.removed == ["library/lorebooks/栖水镇.json"]
    assert diff.changed == ["cards/青梧/卡.json"]
    scoped = vault.diff(a, b, "cards")
    assert (scoped.added, scoped.removed, scoped.changed) == ([], [], ["cards/青梧/卡.json"])
    assert vault.diff(a, a).empty
    with pytest.raises(NotFound):
        vault.diff(a, b, "cards/没有这张卡")


def test_text_diff_of_one_file(vault: Vault, home_dir: Path) -> None:
    card = home_dir / "cards" / "青梧" / "APPEND_SYSTEM.md"
    png = home_dir / "cards" / "白露" / "白露.png"
    a = snap(vault)
    card.write_text("## 身份\n青梧是山中的隐士。\n", encoding="utf-8")
    png.write_bytes(png.read_bytes() + b"\x00\xff")
    b = snap(vault)
    text = vault.file_diff(a, b, "cards/青梧/APPEND_SYSTEM.md")
    assert f"--- {a}/cards/青梧/APPEND_SYSTEM.md" in text
    assert "-青梧是书院的先生。" in text
    assert "+青梧是山中的隐士。" in text
    assert " ## 身份" in text
    assert vault.file_diff(a, a, "cards/青梧/APPEND_SYSTEM.md") == ""
    assert vault.file_diff(a, b, "cards/白露/白露.png") == "二进制文件不同：cards/白露/白露.png\n"
    with pytest.raises(NotFound):
        vault.file_diff(a, b, "cards/青梧/没有.md")


def test_whole_restore_brings_back_deleted_card_and_removes_newer_files(vault: Vault, home_dir: Path) -> None:
    (home_dir / "cards" / "青梧" / "记忆").mkdir()  # an empty folder comes back too
    before = tree_bytes(home_dir)
    a = snap(vault)
    shutil.rmtree(home_dir / "cards" / "青梧")
    (home_dir / "cards" / "新卡" / "chats").mkdir(parents=True)
    (home_dir / "cards" / "新卡" / "新卡.json").write_text("{}", encoding="utf-8")
    (home_dir / "library" / "presets" / "默认预设.json").write_text('{"temperature": 1.2}', encoding="utf-8")

    result = vault.restore(a)

    assert tree_bytes(home_dir) == before
    assert not (home_dir / "cards" / "新卡").exists()  # folders the snapshot did not have go too
    assert (home_dir / "cards" / "青梧" / "记忆").is_dir()
    assert result.removed == ["cards/新卡/新卡.json"]
    assert "cards/青梧/卡.json" in result.written
    assert "library/presets/默认预设.json" in result.written
    assert result.unchanged == len(before) - len(result.written)
    # The cache folder is not the vault's business: left as it was.
    assert (home_dir / "library" / "presets" / ".cache" / "声明-默认预设.json").exists()


def test_restore_can_be_undone_with_the_snapshot_taken_before_it(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    book = home_dir / "library" / "lorebooks" / "青梧山.json"
    book.write_text('{"entries": {"0": {"content": "用户新写的"}}}', encoding="utf-8")
    edited = tree_bytes(home_dir)

    result = vault.restore(a)
    assert result.before is not None and result.before != a
    assert vault.manifest(result.before).reason == f"before restore {a}"
    assert "用户新写的" not in book.read_text(encoding="utf-8")

    vault.restore(result.before)
    assert tree_bytes(home_dir) == edited


def test_folder_restore_only_touches_that_folder(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    card = home_dir / "cards" / "青梧"
    (card / "补充设定集.json").unlink()
    (card / "chats" / "20261130-020000-cd34").mkdir()
    (card / "chats" / "20261130-020000-cd34" / "会话.jsonl").write_text('{"id": 0}\n', encoding="utf-8")
    other = home_dir / "cards" / "白露" / "补充设定集.json"
    other.write_text('{"entries": {}}', encoding="utf-8")

    result = vault.restore(a, "cards/青梧")

    assert result.written == ["cards/青梧/补充设定集.json"]
    assert result.removed == ["cards/青梧/chats/20261130-020000-cd34/会话.jsonl"]
    assert not (card / "chats" / "20261130-020000-cd34").exists()
    assert other.read_text(encoding="utf-8") == '{"entries": {}}'  # outside the folder: untouched


def test_single_file_restore_keeps_everything_else(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    shutil.rmtree(home_dir / "cards" / "青梧")
    extra = home_dir / "library" / "lorebooks" / "后来的书.json"
    extra.write_text("{}", encoding="utf-8")

    result = vault.restore(a, "cards/青梧/补充设定集.json")

    assert result.written == ["cards/青梧/补充设定集.json"]
    assert result.removed == []
    assert sorted(p.name for p in (home_dir / "cards" / "青梧").iterdir()) == ["补充设定集.json"]
    assert extra.exists()
    assert (home_dir / "cards" / "青梧" / "补充设定集.json").read_bytes() == vault.read_file(
        a, "cards/青梧/补充设定集.json"
    )


def test_restore_accepts_an_absolute_path_inside_the_data_folder(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    book = home_dir / "library" / "lorebooks" / "栖水镇.json"
    original = book.read_bytes()
    book.unlink()
    vault.restore(a[:11], str(book))  # an unambiguous id prefix works too
    assert book.read_bytes() == original


def test_restore_brings_back_the_executable_bit(vault: Vault, home_dir: Path) -> None:
    script = home_dir / "library" / "skills" / "写景" / "run.sh"
    script.write_text("#!/bin/sh\necho 写景\n", encoding="utf-8")
    script.chmod(0o755)
    a = snap(vault)
    script.unlink()
    vault.restore(a, "library/skills/写景")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_restoring_the_oldest_kept_snapshot_survives_the_pre_restore_snapshot(home_dir: Path) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir), clock=minute_clock(), keep=3)
    note = home_dir / "cards" / "青梧" / "AGENTS.md"
    ids = []
    for text in ("第一版", "第二版", "第三版"):
        note.write_text(text, encoding="utf-8")
        ids.append(snap(vault))
    note.write_text("第四版", encoding="utf-8")

    vault.restore(ids[0])  # the pre-restore snapshot makes four; the oldest must not vanish first

    assert note.read_text(encoding="utf-8") == "第一版"
    assert len(vault.snapshots()) == 3
    assert ids[0] not in [s.id for s in vault.snapshots()]


def test_failed_restores_write_nothing(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    state = tree_bytes(home_dir)
    vault_files = vault_state(home_dir)
    with pytest.raises(NotFound):
        vault.restore("19990101-000000")
    with pytest.raises(NotFound):
        vault.restore(a, "cards/没有这张卡")
    # A file now stands where the snapshot has a folder.
    shutil.rmtree(home_dir / "cards" / "白露")
    (home_dir / "cards" / "白露").write_text("占位", encoding="utf-8")
    state = tree_bytes(home_dir)
    with pytest.raises(ConflictError):
        vault.restore(a, "cards/白露/白露.png")
    assert tree_bytes(home_dir) == state
    assert vault_state(home_dir) == vault_files


def test_restore_refuses_when_objects_are_missing(vault: Vault, home_dir: Path) -> None:
    a = snap(vault)
    entry = vault.manifest(a).files["library/lorebooks/栖水镇.json"]
    os.remove(home_dir / "vault" / "objects" / entry.sha256)
    (home_dir / "library" / "lorebooks" / "栖水镇.json").unlink()
    state = tree_bytes(home_dir)
    from peargarden.errors import FormatError

    with pytest.raises(FormatError):
        vault.restore(a)
    assert tree_bytes(home_dir) == state


def test_list_json_shape(vault: Vault) -> None:
    a = snap(vault, "启动")
    [entry] = [s.to_json() for s in vault.snapshots()]
    assert entry == {"id": a, "time": "2026-11-30T09:01:00+00:00", "reason": "启动", "files": entry["files"]}
    assert entry["files"] == len(vault.manifest(a).files)
    json.dumps(entry, ensure_ascii=False)

"""`pear vault …` through the command-line entry point: contracts, messages and exit codes.

Most calls run ``peargarden.cli.main`` in-process (the same code a child would run); the failure
test uses real child processes to check exit codes and that no traceback reaches the user.
"""

from __future__ import annotations

import json
from pathlib import Path

from vault_test_library import make_library, pear, pear_inprocess, tree_bytes


def list_json(home: Path) -> list[dict[str, object]]:
    value = json.loads(pear_inprocess(home, "vault", "list", "--json").stdout)
    assert isinstance(value, list)
    return value


def test_snapshot_then_unchanged_snapshot_adds_nothing(home_dir: Path) -> None:
    make_library(home_dir)
    first = pear_inprocess(home_dir, "vault", "snapshot", "--reason", "导入之后")
    assert first.returncode == 0
    [entry] = list_json(home_dir)
    assert set(entry) == {"id", "time", "reason", "files"}
    assert entry["reason"] == "导入之后"
    assert entry["files"] == len(tree_bytes(home_dir))
    assert str(entry["id"]) in first.stdout

    again = pear_inprocess(home_dir, "vault", "snapshot")
    assert again.returncode == 0
    assert "没有变化" in again.stdout and str(entry["id"]) in again.stdout
    assert list_json(home_dir) == [entry]


def test_list_is_oldest_first_and_json_keeps_chinese(home_dir: Path) -> None:
    make_library(home_dir)
    assert pear_inprocess(home_dir, "vault", "list", "--json").stdout.strip() == "[]"
    pear_inprocess(home_dir, "vault", "snapshot", "--reason", "第一次")
    (home_dir / "SYSTEM.md").write_text("改了\n", encoding="utf-8")
    pear_inprocess(home_dir, "vault", "snapshot", "--reason", "第二次")
    raw = pear_inprocess(home_dir, "vault", "list", "--json").stdout
    assert "第一次" in raw  # not \\u escaped
    assert [e["reason"] for e in json.loads(raw)] == ["第一次", "第二次"]
    text = pear_inprocess(home_dir, "vault", "list").stdout.splitlines()
    assert len(text) == 2 and text[0].endswith("第一次") and text[1].endswith("第二次")


def test_diff_names_files_and_shows_a_text_diff(home_dir: Path) -> None:
    make_library(home_dir)
    pear_inprocess(home_dir, "vault", "snapshot")
    (home_dir / "library" / "lorebooks" / "栖水镇.json").unlink()
    (home_dir / "cards" / "青梧" / "AGENTS.md").write_text("# 青梧的世界\n山门外有一条河。\n", encoding="utf-8")
    pear_inprocess(home_dir, "vault", "snapshot")
    a, b = (str(e["id"]) for e in list_json(home_dir))

    summary = pear_inprocess(home_dir, "vault", "diff", a, b).stdout.splitlines()
    assert summary == ["D\tlibrary/lorebooks/栖水镇.json", "M\tcards/青梧/AGENTS.md"]
    one = pear_inprocess(home_dir, "vault", "diff", a, b, "cards/青梧/AGENTS.md").stdout
    assert "+山门外有一条河。" in one
    folder = pear_inprocess(home_dir, "vault", "diff", a, b, "library").stdout.splitlines()
    assert folder == ["D\tlibrary/lorebooks/栖水镇.json"]
    same = pear_inprocess(home_dir, "vault", "diff", a, a).stdout
    assert "没有变化" in same


def test_restore_one_file_and_undo_hint(home_dir: Path) -> None:
    make_library(home_dir)
    pear_inprocess(home_dir, "vault", "snapshot")
    [entry] = list_json(home_dir)
    book = home_dir / "cards" / "青梧" / "补充设定集.json"
    original = book.read_bytes()
    book.write_text("{}", encoding="utf-8")
    out = pear_inprocess(home_dir, "vault", "restore", str(entry["id"]), "cards/青梧/补充设定集.json").stdout
    assert book.read_bytes() == original
    before = list_json(home_dir)[-1]
    assert before["reason"] == f"before restore {entry['id']}"
    assert f"pear vault restore {before['id']}" in out


def test_failures_exit_non_zero_and_write_nothing(home_dir: Path, tmp_path: Path) -> None:
    make_library(home_dir)
    state = tree_bytes(home_dir)
    # Read-only and failing commands leave no vault (and so no lock file) behind.
    pear_inprocess(home_dir, "vault", "list")
    bad = pear(home_dir, "vault", "restore", "20260101-000000", check=False)
    assert bad.returncode != 0
    assert bad.stderr.startswith("pear: ") and "Traceback" not in bad.stderr
    bad_diff = pear_inprocess(home_dir, "vault", "diff", "甲", "乙", check=False)
    assert bad_diff.returncode != 0 and "Traceback" not in bad_diff.stderr
    assert not (home_dir / "vault").exists()
    assert tree_bytes(home_dir) == state

    missing = tmp_path / "还没有初始化"
    result = pear(missing, "vault", "snapshot", check=False)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert not missing.exists()

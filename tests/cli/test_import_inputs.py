"""`pear import` on the inputs issue 18 (point 8) found: names over 255 bytes, lone surrogates in
names, a FIFO, temp files a kill left behind, embedded lorebook `entries` as an object or as text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kit import workspace as kit
from kit.cli import pear_in_process as pear_here
from kit.cli import pear_process as pear


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_name_over_255_bytes_and_one_with_a_lone_surrogate_import(tmp_path: Path) -> None:
    home = tmp_path / "home"
    long_name = "青梧" * 60  # 360 bytes of UTF-8
    long_card = tmp_path / "long.json"
    long_card.write_text(json.dumps(kit.v2_card(long_name), ensure_ascii=False), encoding="utf-8")
    odd_card = tmp_path / "odd.json"
    # A lone surrogate as SillyTavern's JSON can carry it: an escape no file system can encode.
    odd_card.write_text(json.dumps(kit.v2_card("栖\ud800水")), encoding="utf-8")
    done = pear_here(home, "import", long_card, odd_card)
    assert done.returncode == 0, done.stderr
    folders = sorted(p.name for p in (home / "cards").iterdir())
    assert "栖_水" in folders
    (long_folder,) = [name for name in folders if name.startswith("青梧青梧")]
    assert len(long_folder.encode("utf-8")) <= 150
    assert (home / "cards" / long_folder / f"{long_folder}.json").is_file()


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "管道.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = pear(tmp_path / "home", "import", fifo)  # a real process: an old build would block forever
    assert time.monotonic() - started < 60
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "管道.json" in line and "FIFO" in line
    assert not (tmp_path / "home").exists()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temp_files_of_a_killed_import_go_on_the_next_start_and_are_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    cards = home / "cards" / "青梧"
    crashed = cards / f".大卡.png.{_dead_pid()}-k2x9_a1b.tmp"
    crashed.write_bytes(b"\x89PNG" + b"0" * 2_000_000)
    old_style = home / "library" / "lorebooks" / ".旧.json.zz99aa00.tmp"
    old_style.write_bytes(b"{")
    os.utime(old_style, (time.time() - 7200, time.time() - 7200))
    in_progress = cards / f".写着.json.{os.getpid()}-abcd1234.tmp"  # a live writer's: kept
    in_progress.write_bytes(b"{")
    lorebook = tmp_path / "江湖.json"
    lorebook.write_text('{"entries": {"0": {"uid": 0, "key": ["江湖"], "content": "江湖路远。"}}}', encoding="utf-8")
    done = pear_here(home, "import", lorebook)
    assert done.returncode == 0, done.stderr
    assert "清理了 2 个崩溃留下的临时文件，共 1.9 MB" in done.stderr
    assert not crashed.exists() and not old_style.exists() and in_progress.exists()
    again = pear_here(home, "import", lorebook)
    assert "清理了" not in again.stderr


def test_embedded_entries_as_an_object_are_listed_at_import_and_tavern_mode_reads_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    book = kit.embedded_book()
    entry = book["entries"][0]
    book["entries"] = {"1": {**entry, "id": 1, "keys": ["茶"], "content": "听雨轩的茶。"}, "0": entry}
    card = tmp_path / "说书人.png"
    card.write_bytes(kit.card_png(kit.v2_card("说书人", character_book=book)))
    done = pear_here(home, "import", card)
    assert done.returncode == 0, done.stderr
    assert "entries 已整理成列表" in done.stdout
    stored = kit.png_card_payloads((home / "cards" / "说书人" / "说书人.png").read_bytes())
    for payload in stored.values():
        listed = payload["data"]["character_book"]["entries"]
        assert [e["keys"] for e in listed] == [["醒木", "说书"], ["茶"]]  # in key order
    assembled = pear_here(home, "tavern", "assemble", "--card", "说书人", "--message", "醒木一响")
    assert assembled.returncode == 0, assembled.stderr
    assert "醒木是说书先生的镇堂之宝" in assembled.stdout


def test_embedded_entries_as_prose_are_refused_at_import(tmp_path: Path) -> None:
    home = tmp_path / "home"
    book = {**kit.embedded_book(), "entries": "醒木、说书、茶"}
    card = tmp_path / "说书人.json"
    card.write_text(json.dumps(kit.v2_card("说书人", character_book=book), ensure_ascii=False), encoding="utf-8")
    done = pear_here(home, "import", card)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "说书人.json" in line and "character_book.entries is text" in line
    assert not (home / "cards" / "说书人").exists()
    # Text that is JSON for a list of entries is read as that list.
    book["entries"] = json.dumps(kit.embedded_book()["entries"], ensure_ascii=False)
    card.write_text(json.dumps(kit.v2_card("说书人", character_book=book), ensure_ascii=False), encoding="utf-8")
    assert pear_here(home, "import", card).returncode == 0


def test_temp_files_a_killed_chat_left_go_when_pear_chat_starts(tmp_path: Path) -> None:
    """Not only an import: the next `pear chat` clears what a crash left (here a session rewrite's
    temp file beside a chat), and says how much, before it plays."""
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    chat_folder = home / "cards" / "青梧" / "chats" / "20261201-000000-abcd"
    chat_folder.mkdir(parents=True)
    crashed = chat_folder / f".session.jsonl.{_dead_pid()}-q8r7s6t5.tmp"
    crashed.write_bytes(b'{"type":"session"}\n' * 60_000)
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官请坐。")
        done = pear_here(
            home, "chat", "--once", "掌柜在吗？", "--card", "青梧", "--thinking", "off",
            "--base-url", server.base_url, "--model", "fake-model",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "清理了 1 个崩溃留下的临时文件，共 1.1 MB" in done.stderr
    assert not crashed.exists() and "客官请坐。" in done.stdout


def test_a_chat_import_killed_mid_write_leaves_no_folder_and_no_new_name(tmp_path: Path) -> None:
    """Issue 46, item 9: each killed `pear import` of a chat left an empty chat folder (its temp file
    cleared on the next start), and the next import of that chat was named `-2`, `-3` … (`-6` after
    five).  The folder here is what a kill leaves: a temp file of a writer that is gone."""
    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    chat = tmp_path / "雨夜.jsonl"
    header = {"user_name": "旅人", "character_name": "青梧", "chat_metadata": {}}
    rows = [header] + [{"name": "青梧", "is_user": False, "mes": f"第{n}句，雨还没有停。"} for n in range(50)]
    chat.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    chats = home / "cards" / "青梧" / "chats"
    for name in ("雨夜", "雨夜-2"):
        (chats / name).mkdir(parents=True)
        (chats / name / f".session.jsonl.{_dead_pid()}-k2x9_a1b.tmp").write_bytes(b'{"type":"session"')
    done = pear_here(home, "import", chat, "--card", "青梧")
    assert done.returncode == 0, done.stderr
    assert "cards/青梧/chats/雨夜/session.jsonl" in done.stdout  # the name the chat has, not 雨夜-3
    assert sorted(p.name for p in chats.iterdir()) == ["雨夜"]  # the other leftover folder went too
    assert "清理了 2 个崩溃留下的临时文件" in done.stderr

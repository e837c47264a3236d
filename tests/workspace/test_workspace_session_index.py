"""A long chat's session index on disk (``<chat>/.cache/session.idx``): the first open writes it,
the next ones read through it and see exactly what a full read sees, whatever happened to the file in
between (lines appended, a torn append, the file replaced, truncated, restored); a bad index is
ignored and rewritten; the index goes with its chat, never into the vault's snapshots, and one whose
chat is gone is removed on the next start."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kit.session_files import drawn, long_chat, meaning, same
from peargarden.app.library.snapshots import clear_leftovers
from peargarden.app.play.chat_summaries import chat_summaries
from peargarden.sessions import LoadedSession, decode_bytes, entry_line, message_entry
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chats import INDEX_FILE, INDEX_MIN_BYTES, REINDEX_TAIL_BYTES, SESSION_FILE, ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault

CHAT = "雨夜 渡口（导入）"  # an imported chat keeps its file's stem: CJK and a space
MESSAGES = 1600  # about 600 KB with swipes and side branches: over INDEX_MIN_BYTES


def _home(tmp_path: Path) -> tuple[Home, Path]:
    home = Home(tmp_path / "home")
    chats = home.card_dir("青梧") / "chats"
    (chats / CHAT).mkdir(parents=True)
    data = long_chat(MESSAGES, chat_id=CHAT)
    assert len(data) > INDEX_MIN_BYTES
    (chats / CHAT / SESSION_FILE).write_bytes(data)
    return home, chats


def _assert_full_read(chat: ChatFile) -> None:
    """The open chat holds what the full read of the bytes it read holds."""
    data = chat.path.read_bytes()[: chat.offset]
    whole = decode_bytes(data)
    assert chat.offset == len(data)
    assert same(meaning(LoadedSession(chat.header, chat.tree, chat.warnings, whole.torn_tail)), meaning(whole))
    assert [e.id for e in chat.tree.path()] == [e.id for e in whole.tree.path()]
    assert drawn(chat.tree) == drawn(whole.tree)
    assert chat.lines_read == whole.newlines


def _opened(chats: Path, *, indexed: bool, chat_id: str = CHAT) -> ChatFile:
    """The chat opened, through its index or not as *indexed* says, holding what a full read holds."""
    chat = ChatFile.open(chats, chat_id)
    assert chat.indexed is indexed
    _assert_full_read(chat)
    return chat


def _index(chats: Path, chat_id: str = CHAT) -> Path:
    return chats / chat_id / INDEX_FILE


def test_the_first_open_writes_the_index_and_the_next_reads_through_it(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    _opened(chats, indexed=False)
    assert _index(chats).is_file()
    _opened(chats, indexed=True)


def test_lines_appended_between_opens_are_read_after_the_index(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    writer = ChatFile.open(chats, CHAT)
    writer.append_message({"role": "user", "content": "掌柜，再添一壶茶。"})
    writer.move_leaf(writer.tree.path()[-3].id)  # a swipe back
    writer.append_message({"role": "assistant", "content": "好嘞。"})
    reader = _opened(chats, indexed=True)
    assert reader.tree.path()[-1].message["content"] == "好嘞。"


def test_a_torn_append_then_a_good_one_read_through_the_index(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    ChatFile.open(chats, CHAT)
    path = chats / CHAT / SESSION_FILE
    line = entry_line(message_entry("feedbeef", None, "2026-12-02T00:00:00.000Z", {"role": "user", "content": "半句"}))
    with path.open("ab") as handle:
        handle.write(line.encode()[:20])  # a crash in the middle of an append
    torn = _opened(chats, indexed=True)
    assert len(torn.warnings) == 1 and "不完整" in torn.warnings[0]  # reported, not dropped silently
    torn.append_message({"role": "user", "content": "重来一次"})
    after = _opened(chats, indexed=True)
    assert len(after.warnings) == 1 and "无法解析" in after.warnings[0]


@pytest.mark.parametrize("change", ["same size, another inode", "truncated in place", "rewritten in place"])
def test_a_file_replaced_or_changed_is_read_whole_and_indexed_again(tmp_path: Path, change: str) -> None:
    _, chats = _home(tmp_path)
    ChatFile.open(chats, CHAT)
    path = chats / CHAT / SESSION_FILE
    data = path.read_bytes()
    if change == "same size, another inode":  # a restore, or another process's atomic rewrite
        atomic.write_bytes(path, data.replace("掌柜（1）".encode(), "店家（1）".encode()))
    elif change == "truncated in place":
        os.truncate(path, len(data) - 1000)  # a few lines gone, the last one torn
    else:
        with path.open("r+b") as handle:  # an editor saving in place: the inode and size stay
            handle.seek(len(data) // 2)
            handle.write(b"X")
    _opened(chats, indexed=False)
    _opened(chats, indexed=True)


def test_a_bad_or_foreign_index_is_ignored_and_rewritten(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    ChatFile.open(chats, CHAT)
    index = _index(chats)
    good = index.read_bytes()
    other = "20261202-000000-0b0b"
    (chats / other).mkdir()
    (chats / other / SESSION_FILE).write_bytes(long_chat(MESSAGES, chat_id=other))
    for bad in (b"", good[: len(good) // 2], b"\x89PNG\r\n" + good[6:], "不是索引".encode()):
        index.write_bytes(bad)
        _opened(chats, indexed=False)
        assert index.read_bytes() == good  # written again, the same
    # Another chat's index copied in (a chat folder copied by hand): not this file's.
    ChatFile.open(chats, other)
    index.write_bytes(_index(chats, other).read_bytes())
    assert _opened(chats, indexed=False).chat_id == CHAT
    # An index that cannot be read or written (a folder in its place): the chat still opens.
    index.unlink()
    index.mkdir()
    _opened(chats, indexed=False)


def test_a_long_tail_is_read_once_then_indexed_again(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    ChatFile.open(chats, CHAT)
    path = chats / CHAT / SESSION_FILE
    filler = "雨" * 2000
    writer = ChatFile.open(chats, CHAT)
    indexed_size = path.stat().st_size
    while path.stat().st_size - indexed_size <= REINDEX_TAIL_BYTES:
        writer.append_message({"role": "user", "content": filler})
    _opened(chats, indexed=False)  # too much to read after the index: read whole, indexed again
    _opened(chats, indexed=True)


def test_a_short_chat_gets_no_index(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    chats = home.card_dir("青梧") / "chats"
    chat = ChatFile.create(chats, card="青梧", mode="stage")
    chat.append_message({"role": "user", "content": "你好"})
    assert not ChatFile.open(chats, chat.chat_id).indexed
    assert not _index(chats, chat.chat_id).exists()


def test_the_index_stays_out_of_snapshots_goes_with_its_chat_and_is_cleared_when_orphaned(tmp_path: Path) -> None:
    home, chats = _home(tmp_path)
    ChatFile.open(chats, CHAT)
    index = _index(chats)
    vault = Vault(home)
    info = vault.snapshot("before")
    assert info is not None
    files = vault.manifests.load(info.id).files
    assert f"cards/青梧/chats/{CHAT}/{SESSION_FILE}" in files
    assert not [p for p in files if p.endswith("session.idx") or "/.cache/" in p]
    # A restore that removes the chat (it was made after the snapshot) leaves only its index behind:
    # the next start removes it and the folder it leaves empty.
    later = "20261202-000000-0c0c"
    (chats / later).mkdir()
    (chats / later / SESSION_FILE).write_bytes(long_chat(MESSAGES, chat_id=later))
    ChatFile.open(chats, later)
    vault.restore(info.id)
    assert not (chats / later / SESSION_FILE).exists() and _index(chats, later).exists()
    said = clear_leftovers(home)
    assert said is not None and "1 个" in said and "stale chat indexes" in said
    assert not (chats / later).exists()
    assert index.is_file() and clear_leftovers(home) is None  # a chat that is there keeps its index
    # The restore left this chat's file as it was: its index still fits.
    _opened(chats, indexed=True)


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from peargarden.workspace.chats import ChatFile

    chats, chat_id, name, count = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    chat = ChatFile.open(chats, chat_id)
    for n in range(count):
        chat.append_message({"role": "user", "content": f"{name}的第{n}句：雨还没停。"})
        if n % 7 == 6:
            chat.move_leaf(chat.tree.path()[-3].id)
    """
)


def test_two_processes_appending_while_a_third_opens(tmp_path: Path) -> None:
    _, chats = _home(tmp_path)
    (chats / CHAT / INDEX_FILE).parent.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(chats), CHAT, name, "150"], env=env, stderr=subprocess.PIPE, text=True
        )
        for name in ("甲", "乙")
    ]
    opened = 0
    while any(w.poll() is None for w in writers) or opened < 3:
        chat = ChatFile.open(chats, CHAT)  # through the index, or whole (and indexed again)
        _assert_full_read(chat)
        opened += 1
    for writer in writers:
        assert writer.wait(timeout=120) == 0, writer.stderr.read() if writer.stderr else ""
    final = _opened(chats, indexed=True)
    said = [e.message.get("content", "") for e in final.tree if e.type == "message"]
    for name in ("甲", "乙"):
        assert sum(text.startswith(f"{name}的第") for text in said) == 150


def test_a_chat_list_uses_an_index_but_writes_none(tmp_path: Path) -> None:
    home, chats = _home(tmp_path)
    listed = chat_summaries(CardFolder(home, "青梧"))
    assert [s["id"] for s in listed] == [CHAT] and not _index(chats).exists()
    assert not ChatFile.open(chats, CHAT, write_index=False).indexed and not _index(chats).exists()
    _opened(chats, indexed=False)  # a chat opened to be read or played gets its index
    chat = ChatFile.open(chats, CHAT, write_index=False)
    assert chat.indexed
    _assert_full_read(chat)

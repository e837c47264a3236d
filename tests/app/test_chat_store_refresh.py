"""ChatFile reads what another process appended, and never replaces an imported chat's file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.errors import ConflictError
from peargarden.workspace.chat_import import IMPORTED_CHAT_FILE
from peargarden.workspace.chats import SESSION_FILE, ChatFile


def _imported(tmp_path: Path) -> Path:
    chats = tmp_path / "chats"
    folder = chats / "雨夜"
    folder.mkdir(parents=True)
    lines = [
        {"user_name": "旅人", "character_name": "青梧", "chat_metadata": {}},
        {"name": "青梧", "is_user": False, "mes": "雨还在下。", "swipes": ["雨还在下。", "雨停了。"], "swipe_id": 1},
        {"name": "旅人", "is_user": True, "mes": "借把伞。"},
    ]
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)
    (folder / IMPORTED_CHAT_FILE).write_text(text, encoding="utf-8")
    return chats


def test_two_handles_on_an_imported_chat_see_each_other(tmp_path: Path) -> None:
    chats = _imported(tmp_path)
    first, second = ChatFile.open(chats, "雨夜"), ChatFile.open(chats, "雨夜")
    first.append_message({"role": "assistant", "content": "伞在门后。"})
    # The second handle still holds the converted lines in memory: writing them now would replace
    # the file the first one wrote, so it refuses rather than lose the reply.
    with pytest.raises(ConflictError, match="chat changed"):
        second.append_message({"role": "user", "content": "谢了。"})
    assert "伞在门后。" in (chats / "雨夜" / SESSION_FILE).read_text(encoding="utf-8")
    # After a refresh it reads the file the first one made and continues where it ends.
    assert second.refresh() is True
    assert [e.message["content"] for e in second.tree.messages()] == ["雨停了。", "借把伞。", "伞在门后。"]
    second.append_message({"role": "user", "content": "谢了。"})
    assert first.refresh() is True and first.refresh() is False
    assert [e.id for e in first.tree.messages()] == [e.id for e in second.tree.messages()]
    assert first.warnings == second.warnings == []


def test_refresh_reads_only_whole_new_lines(tmp_path: Path) -> None:
    chat = ChatFile.create(tmp_path, card="青梧")
    other = ChatFile.open(tmp_path, chat.chat_id)
    chat.append_message({"role": "user", "content": "一"})
    with chat.path.open("ab") as handle:
        handle.write(b'{"id": "torn", "parentId"')  # an append still being written (or torn)
    assert other.refresh() is True
    assert [e.message["content"] for e in other.tree.messages()] == ["一"]
    assert other.refresh() is False


def test_an_unsaved_chat_keeps_its_entries_in_memory_and_writes_nothing(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    chat = ChatFile.unsaved(chats, card="青梧", mode="stage")
    first = chat.append_message({"role": "assistant", "content": "雨还在下。"})
    chat.append_message({"role": "assistant", "content": "雨停了。"})
    chat.tree.set_leaf(None)
    other = chat.append_message({"role": "assistant", "content": "门开着。"})
    chat.move_leaf(first.id)
    assert [e.message["content"] for e in chat.tree.messages()] == ["雨还在下。"]
    assert other.id in chat.tree and chat.header["card"] == "青梧"
    assert chat.refresh() is False  # there is no file to read
    assert not chats.exists()  # nothing was written, not even the chats folder


def test_every_chat_operation_only_appends_to_the_session_file(home_dir: Path) -> None:
    """Issue 18, point 2: in normal operation a session file only grows at its end (another process
    appending at the same time can never be overwritten): send, regenerate, swipe, continue, edit,
    delete, branch, each leaves the bytes before it as they were."""
    from peargarden.app.play.service import ChatOptions, PearApp
    from peargarden.app.settings.connections import Connection
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    home = Home(home_dir)
    seed_home(home)
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("青梧点了点头。")
        options = ChatOptions(mode="stage", thinking="off", connection=Connection(server.base_url, "fake-model", ""))
        session = PearApp(home, story_memory=False).new_chat("青梧", options)
        path = session.chat.path
        before = path.read_bytes()
        steps = [
            lambda: list(session.send("掌柜，来壶茶。")),
            lambda: list(session.regenerate()),
            lambda: session.swipe(-1),  # back to the first reply: a leaf move, no new reply
            lambda: list(session.continue_()),
            lambda: session.edit(len(session.messages()) - 1, "青梧摇了摇头。"),
            lambda: list(session.send("那就算了。")),
            lambda: session.delete(len(session.messages()) - 1),
            lambda: session.branch(0),
        ]
        for number, step in enumerate(steps):
            step()
            after = path.read_bytes()
            assert after.startswith(before) and len(after) > len(before), number
            before = after
    reread = ChatFile.open(path.parent.parent, path.parent.name)
    assert reread.warnings == [] and [e.id for e in reread.tree.path()] == [e.id for e in session.chat.tree.path()]


@pytest.mark.parametrize("grows", [True, False], ids=["larger", "same-size"])
def test_a_replaced_session_file_is_read_again_whole(tmp_path: Path, grows: bool) -> None:
    """A file rewritten by another process (a restore from the vault: a new file renamed over the
    old one) is never continued at the old offset, even when it is larger or the same size."""
    from peargarden.workspace import atomic

    chats = tmp_path / "chats"
    chat = ChatFile.create(chats, "20261202-000000-abcd", card="青梧")
    for text in ("掌柜，来壶茶。", "青梧点了点头。"):
        chat.append_message({"role": "user", "content": text})
    reader = ChatFile.open(chats, chat.chat_id)
    old = chat.path.read_text(encoding="utf-8")
    # The other process's version: the same header, other entries, written atomically.
    other = ChatFile.create(tmp_path / "other", "20261202-000000-abcd", card="青梧")
    other.append_message({"role": "user", "content": "雨停了吗？" if grows else "掌柜，来壶酒。"})
    other.append_message({"role": "user", "content": "还没停，客官再坐会儿。" if grows else "青梧摇了摇头。"})
    new = other.path.read_text(encoding="utf-8")
    assert new != old and (len(new.encode()) > len(old.encode()) if grows else len(new) == len(old))
    atomic.write_text(chat.path, new)
    assert reader.refresh() is True
    fresh = ChatFile.open(chats, chat.chat_id)
    assert [(e.id, e.message["content"]) for e in reader.tree.path()] == [
        (e.id, e.message["content"]) for e in fresh.tree.path()
    ]
    assert reader.warnings == [] and len(reader.tree) == len(fresh.tree) == 2

"""Chat lists come from a small summary per chat, re-read only for chats whose file changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.app.play import chat_summaries as summaries
from peargarden.workspace.cards import open_card
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def test_summaries_are_kept_and_follow_changes(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Home(home_dir)
    seed_home(home)
    card = open_card(home, "青梧")
    first = ChatFile.create(card.chats_dir, card="青梧", mode="stage")
    first.append_message({"role": "user", "content": "掌柜在吗？"})
    second = ChatFile.create(card.chats_dir, card="青梧", mode="tavern")
    rows = summaries.chat_summaries(card)
    assert [(r["id"], r["messages"], r["last"], r["mode"]) for r in rows] == sorted(
        [(first.chat_id, 1, "掌柜在吗？", "stage"), (second.chat_id, 0, "", "tavern")]
    )
    assert summaries.cache_file(card).is_file()

    opened: list[str] = []
    real_open = ChatFile.open

    def counting_open(chats_dir: Path, chat_id: str, *, write_index: bool = True) -> ChatFile:
        opened.append(chat_id)
        return real_open(chats_dir, chat_id, write_index=write_index)

    monkeypatch.setattr(ChatFile, "open", staticmethod(counting_open))
    assert summaries.chat_summaries(card) == rows and opened == []  # nothing changed: no file read
    first.append_message({"role": "assistant", "content": "在，客官请坐。"})
    again = summaries.chat_summaries(card)
    assert opened == [first.chat_id]  # only the chat that changed is read again
    assert {r["id"]: r["last"] for r in again}[first.chat_id] == "在，客官请坐。"
    summaries.cache_file(card).write_text("{not json", encoding="utf-8")  # a damaged cache is rebuilt
    assert summaries.chat_summaries(card) == again


def test_a_grown_chat_counts_only_what_it_grew_by_and_a_moved_branch_counts_again(home_dir: Path) -> None:
    """The chat list's message count after beats (appends) reads only the new part of the branch; after
    a branch moved (a deletion, a swipe) it counts the whole branch again — the same number either way."""
    home = Home(home_dir)
    seed_home(home)
    card = open_card(home, "青梧")
    chat = ChatFile.create(card.chats_dir, card="青梧", mode="stage")

    def counts() -> tuple[int, int]:
        listed = {r["id"]: r["visible"] for r in summaries.chat_summaries(card)}[chat.chat_id]
        whole = summaries.summarize(card, ChatFile.open(card.chats_dir, chat.chat_id))["visible"]
        return listed, whole

    for turn in range(3):
        chat.append_message({"role": "user", "content": f"第{turn}问"})
        chat.append_message({"role": "assistant", "content": f"第{turn}答"})
        chat.append_custom("note", {"turn": turn})
    assert counts() == (6, 6)
    chat.append_message({"role": "user", "content": "再来"})
    chat.append_message({"role": "tool", "content": "（工具）", "tool_call_id": "c1"})
    assert counts() == (7, 7)
    fork = chat.tree.messages()[1].id
    chat.move_leaf(fork)  # back to the first answer: the branch is shorter now
    assert counts() == (2, 2)
    chat.append_message({"role": "user", "content": "换个问法"})
    assert counts() == (3, 3)

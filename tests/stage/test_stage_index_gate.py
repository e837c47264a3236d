"""The title index (2,000 characters) and the write gate's word lists (spec §2.4, §8.6)."""

from __future__ import annotations

import pytest

from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.lore.gate import (
    DELETE_WORDS,
    WRITE_WORDS,
    check_write_gate,
)
from peargarden.stage.lore.index import LORE_INDEX_MAX_CHARS, index_titles, title_index_block


def test_index_lists_enabled_keyword_titles_in_order(town_entries: list[LoreEntry]) -> None:
    block = title_index_block(town_entries)
    assert block == "【设定集索引】共 5 条：听雨轩、怀瑾、镇北渡口、旧油纸伞、后院老梨树"
    assert "栖水镇概况" not in block  # constant entries are in the system prompt already


def test_index_is_packed_into_two_thousand_characters() -> None:
    entries = [LoreEntry(uid=i, keys=(f"地名{i:04d}",), content=f"第{i}处地方。") for i in range(1000)]
    titles = index_titles(entries)
    block = title_index_block(entries)
    listed = block.split("：", 1)[1].split("……")[0].split("、")
    assert listed == titles[: len(listed)]
    assert sum(len(t) + 1 for t in listed) <= LORE_INDEX_MAX_CHARS
    assert sum(len(t) + 1 for t in titles[: len(listed) + 1]) > LORE_INDEX_MAX_CHARS
    assert f"另 {1000 - len(listed)} 条未列出" in block
    assert title_index_block([]) == ""


@pytest.mark.parametrize(
    ("tool", "words", "allowed"),
    [
        ("lorebook_write", "把这个规矩记下来", True),
        ("lorebook_write", "她后来去了哪？", False),
        ("lorebook_delete", "那条设定记错了，删掉吧", True),
        ("lorebook_delete", "把这个规矩记下来", False),
        ("lorebook_update", "那条设定不对", True),
        ("lorebook_update", "存到设定集里", True),
        ("lorebook_update", "继续", False),
        ("lorebook_write", "Please REMEMBER this", True),
        ("lorebook_write", "", False),
    ],
)
def test_gate_reads_the_users_words_of_this_beat(tool: str, words: str, allowed: bool) -> None:
    verdict = check_write_gate(tool, words, "ask")
    assert verdict.allowed is allowed
    if not allowed:
        assert "不要" in verdict.receipt and "是否" in verdict.receipt


def test_gate_is_off_unless_creation_mode_is_ask() -> None:
    assert check_write_gate("lorebook_write", "她后来去了哪？", "silent").allowed
    assert check_write_gate("draft_write", "她后来去了哪？", "ask").allowed


def test_word_lists_match_the_spec() -> None:
    assert len(WRITE_WORDS) == 35 and len(DELETE_WORDS) == 21
    assert "改" not in WRITE_WORDS and "修改" not in DELETE_WORDS  # the known, accepted gap

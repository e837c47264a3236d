"""Prompt entries (spec §3): parse, render, toggle, edit, append, delete as surgical text edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.errors import BadInput, NotFound
from peargarden.stage.entries import (
    append_entry,
    delete_entry,
    find_entry,
    format_entry,
    parse_entries,
    render_for_model,
    set_entry_content,
    split_suffix,
    strip_entries_where,
    toggle_entry,
    unique_entry_name,
)

# The spec's test vector: four entries, the second-person style switched off.
VECTOR = (
    "# 扮演定义\n"
    "你是这场戏的执笔人。\n"
    "\n"
    "## 文风：第一人称\n"
    "以「我」叙述。\n"
    "\n"
    "<!--\n"
    "## 文风：第二人称\n"
    "以「你」叙述。\n"
    "-->\n"
    "\n"
    "## 岔口\n"
    "该问就问。\n"
)


def test_vector_has_four_entries_with_one_disabled() -> None:
    entries = parse_entries(VECTOR)
    assert [(e.name, e.enabled, e.level) for e in entries] == [
        ("扮演定义", True, 1),
        ("文风：第一人称", True, 2),
        ("文风：第二人称", False, 2),
        ("岔口", True, 2),
    ]
    assert entries[2].content == "以「你」叙述。"


def test_vector_render_drops_the_disabled_entry_and_markers() -> None:
    rendered = render_for_model(VECTOR)
    assert "以「我」叙述。" in rendered
    assert "第二人称" not in rendered and "以「你」叙述" not in rendered
    assert "<!--" not in rendered and "-->" not in rendered
    assert rendered.startswith("# 扮演定义\n你是这场戏的执笔人。")


def test_vector_toggle_round_trip_is_lossless() -> None:
    swapped = toggle_entry(toggle_entry(VECTOR, "文风：第二人称", True), "文风：第一人称", False)
    rendered = render_for_model(swapped)
    assert "以「你」叙述。" in rendered and "以「我」" not in rendered
    back = toggle_entry(toggle_entry(swapped, "文风：第一人称", True), "文风：第二人称", False)
    assert back == VECTOR


def test_unclosed_comment_disables_to_the_end() -> None:
    entries = parse_entries("## A\n甲\n<!--\n## B\n乙")
    assert [(e.name, e.enabled) for e in entries] == [("A", True), ("B", False)]
    assert render_for_model("## A\n甲\n<!--\n## B\n乙") == "## A\n甲"
    assert toggle_entry("## A\n甲\n<!--\n## B\n乙", "B", True) == "## A\n甲\n## B\n乙"


def test_notes_are_kept_but_never_sent() -> None:
    text = "<!--\n给自己的备注：这段别删\n-->\n## 规矩\n不替用户说话。\n<!--\n中间的备注\n-->\n少用形容词。\n"
    entries = parse_entries(text)
    assert [e.name for e in entries] == ["规矩"]
    assert entries[0].content == "不替用户说话。\n少用形容词。"
    assert "备注" not in render_for_model(text)
    # Switching the entry off and on again gives the file back, notes included.
    assert toggle_entry(toggle_entry(text, "规矩", False), "规矩", True) == text


def test_note_between_entries_survives_edits_of_its_neighbours() -> None:
    text = "## 甲\n一\n\n<!--\n关于乙的备注\n-->\n\n## 乙\n二\n"
    off = toggle_entry(text, "甲", False)
    assert off == "<!--\n## 甲\n一\n-->\n\n<!--\n关于乙的备注\n-->\n\n## 乙\n二\n"
    assert "关于乙的备注" in delete_entry(text, "甲")
    assert "关于乙的备注" in set_entry_content(text, "甲", "新内容")


def test_text_before_the_first_heading_is_an_untitled_entry() -> None:
    text = "开头的一段话。\n\n## 标题\n正文"
    entries = parse_entries(text)
    assert (entries[0].name, entries[0].level, entries[0].content) == ("", 0, "开头的一段话。")
    assert render_for_model(text) == "开头的一段话。\n\n## 标题\n正文"


def test_one_line_comments_stay_in_the_body() -> None:
    text = "## 规矩\n别跳戏。<!-- 这一行会被送出 -->\n"
    assert "<!-- 这一行会被送出 -->" in render_for_model(text)


def test_crlf_files_parse_and_toggle_keep_their_line_endings() -> None:
    text = "## 甲\r\n一\r\n\r\n## 乙\r\n二\r\n"
    assert [e.name for e in parse_entries(text)] == ["甲", "乙"]
    off = toggle_entry(text, "乙", False)
    assert off == "## 甲\r\n一\r\n\r\n<!--\r\n## 乙\r\n二\r\n-->\r\n"
    assert toggle_entry(off, "乙", True) == text
    assert render_for_model(text) == "## 甲\n一\n\n## 乙\n二"


def test_sub_headings_are_entries_and_render_at_their_level() -> None:
    text = "## 文风\n简洁。\n### 对白\n少用感叹号。\n"
    assert [(e.name, e.level) for e in parse_entries(text)] == [("文风", 2), ("对白", 3)]
    assert render_for_model(text) == "## 文风\n简洁。\n\n### 对白\n少用感叹号。"


def test_all_disabled_renders_empty() -> None:
    text = "<!--\n## 甲\n一\n-->\n<!--\n## 乙\n二\n-->\n"
    assert render_for_model(text) == ""
    assert render_for_model("") == ""


def test_duplicate_names_first_wins() -> None:
    text = "## 同名\n第一\n## 同名\n第二\n"
    entry = find_entry(text, "同名")
    assert entry is not None and entry.content == "第一"
    assert set_entry_content(text, "同名", "改了") == "## 同名\n改了\n## 同名\n第二\n"


def test_set_content_keeps_heading_wrapper_and_neighbours() -> None:
    changed = set_entry_content(VECTOR, "文风：第二人称", "以「你」叙述，现在时。")
    assert "<!--\n## 文风：第二人称\n以「你」叙述，现在时。\n-->" in changed
    assert changed.replace("以「你」叙述，现在时。", "以「你」叙述。") == VECTOR


def test_append_refuses_duplicates_and_adds_at_the_end() -> None:
    assert append_entry(VECTOR, "岔口", "重复") is None
    added = append_entry(VECTOR, "节奏", "一拍三百字左右。")
    assert added == VECTOR.rstrip() + "\n\n## 节奏\n一拍三百字左右。\n"
    assert append_entry("", "首条", "内容") == "## 首条\n内容\n"


def test_delete_removes_wrapper_and_collapses_the_seam() -> None:
    without = delete_entry(VECTOR, "文风：第二人称")
    assert "第二人称" not in without and "<!--" not in without
    assert "\n\n\n" not in without
    assert [e.name for e in parse_entries(without)] == ["扮演定义", "文风：第一人称", "岔口"]
    with pytest.raises(NotFound):
        delete_entry(VECTOR, "不存在")


def test_format_entry_escapes_headings_and_markers_inside_content() -> None:
    block = format_entry("开场（角色卡）", "# 不是标题\n正文\n<!--\n-->")
    assert block.startswith("## 开场（角色卡）\n\n＃ 不是标题")
    entries = parse_entries(block)
    assert len(entries) == 1 and entries[0].enabled
    disabled = format_entry("状态栏（预设）", "每轮附带状态栏。", enabled=False)
    assert disabled == "<!--\n## 状态栏（预设）\n\n每轮附带状态栏。\n-->\n"
    assert parse_entries(disabled)[0].enabled is False


def test_suffixes_name_the_owner() -> None:
    assert split_suffix("文风（预设）") == ("文风", "preset", None)
    assert split_suffix("性格（角色卡）") == ("性格", "card", None)
    assert split_suffix("栖水镇概况（世界书·栖水镇）") == ("栖水镇概况", "lorebook", "栖水镇")
    assert split_suffix("我的规矩") == ("我的规矩", None, None)


def test_unique_names_and_strip_program_entries() -> None:
    assert unique_entry_name("文风", "（预设）", ["文风（预设）", "文风·2（预设）"]) == "文风·3（预设）"
    assert unique_entry_name("  ", "（预设）", []) == "未命名（预设）"
    text = "## 我的规矩\n保留\n\n" + format_entry("文风（预设）", "删") + "\n" + format_entry("x（预设）", "删", False)
    stripped = strip_entries_where(text, lambda e: e.source == "preset")
    assert [e.name for e in parse_entries(stripped)] == ["我的规矩"]


_line = st.one_of(
    st.sampled_from(["## 甲", "## 乙", "### 丙", "<!--", "-->", "", "正文一行", "  ", "# 丁"]),
    st.text(alphabet="天地玄黄 #<!->", max_size=8),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_line, max_size=14))
def test_toggle_off_then_on_restores_any_file(lines: list[str]) -> None:
    text = "\n".join(lines)
    for entry in parse_entries(text):
        if not entry.name or not entry.enabled or find_entry(text, entry.name) != entry:
            continue
        try:
            off = toggle_entry(text, entry.name, False)
        except BadInput:
            # Refused only when a bare --> inside the entry would close the wrapper early.
            assert "-->" in [line.strip() for line in text.split("\n")[entry.start : entry.end]]
            continue
        assert find_entry(off, entry.name) is not None
        assert toggle_entry(off, entry.name, True) == text


def _view(text: str) -> list[tuple[str, bool, str]]:
    return [(e.name, e.enabled, e.content) for e in parse_entries(text) if e.name]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_line, max_size=14), st.sampled_from(["新的内容", "两行\n内容", ""]))
def test_edits_touch_only_their_entry(lines: list[str], new: str) -> None:
    text = "\n".join(lines)
    before = _view(text)
    names = [name for name, _, _ in before]
    for name in {n for n in names if names.count(n) == 1}:
        index = names.index(name)
        edited = _view(set_entry_content(text, name, new))
        assert edited == [*before[:index], (name, before[index][1], new), *before[index + 1 :]]
        if _untitled_text_follows(text, name):
            # Loose text after a deleted block joins the entry above it (Markdown has no other
            # place for it): the text sent is unchanged, only its owner is.
            continue
        assert _view(delete_entry(text, name)) == [*before[:index], *before[index + 1 :]]


def _untitled_text_follows(text: str, name: str) -> bool:
    entries = parse_entries(text)
    position = next(i for i, e in enumerate(entries) if e.name == name)
    after = entries[position + 1] if position + 1 < len(entries) else None
    return after is not None and not after.name and bool(after.content.strip()) and position > 0

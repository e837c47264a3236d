"""The draft sheet and the ask tool's rules (spec §9.3, §9.7)."""

from __future__ import annotations

import pytest

from peargarden.errors import BadInput, ConflictError
from peargarden.stage.ask import answer_text, parse_ask
from peargarden.stage.draft import EMPTY_BEAT_WARNING, UNSEALED_WARNING, DraftSheet, finish_beat


def test_write_edit_seal_with_versions() -> None:
    sheet = DraftSheet()
    assert sheet.write("青梧放下茶壶。\n她没有回答。") == 1
    assert sheet.edit("她没有回答。", "她望向那把旧伞。", version=1) == 2
    with pytest.raises(ConflictError):
        sheet.edit("青梧", "她", version=1)
    with pytest.raises(BadInput):
        sheet.edit("不存在的句子", "x")
    sheet.append("雨还在下。")
    sheet.seal()
    with pytest.raises(ConflictError):
        sheet.write("再改")
    prose = finish_beat(sheet)
    assert prose.text == "青梧放下茶壶。\n她望向那把旧伞。\n\n雨还在下。"
    assert prose.sealed and prose.warnings == ()


def test_edit_needs_a_unique_passage() -> None:
    sheet = DraftSheet()
    sheet.write("雨。雨。")
    with pytest.raises(BadInput, match="2 次"):
        sheet.edit("雨。", "风。")


def test_streamed_text_without_draft_tools_is_the_prose() -> None:
    sheet = DraftSheet()
    sheet.capture("青梧抬起头。")
    sheet.capture("“客官要住几日？”")
    prose = finish_beat(sheet)
    assert prose.text == "青梧抬起头。\n\n“客官要住几日？”" and prose.sealed


def test_unsealed_draft_is_kept_and_flagged_and_free_text_after_it_dropped() -> None:
    sheet = DraftSheet()
    sheet.capture("我先查一下设定。")
    sheet.write("青梧擦着那把旧伞。")
    sheet.capture("写好了。<status>好感：10</status>")
    prose = finish_beat(sheet)
    assert prose.text == "青梧擦着那把旧伞。\n\n<status>好感：10</status>"
    assert not prose.sealed and prose.warnings == (UNSEALED_WARNING,)


def test_empty_beat_is_flagged() -> None:
    assert finish_beat(DraftSheet()).warnings == (EMPTY_BEAT_WARNING,)
    with pytest.raises(BadInput):
        DraftSheet().seal()


def test_ask_needs_two_to_four_distinct_options() -> None:
    card = parse_ask({"question": "你要在听雨轩住几日？", "options": ["一日", "三日", "一日", "住到雨停"]})
    assert card.options == ("一日", "三日", "住到雨停") and card.free_text
    for bad in (["只有一个"], ["1", "2", "3", "4", "5"], []):
        with pytest.raises(BadInput):
            parse_ask({"question": "问？", "options": bad})
    with pytest.raises(BadInput):
        parse_ask({"question": " ", "options": ["甲", "乙"]})
    assert answer_text(" 住到雨停 ") == "用户已作答：「住到雨停」。"

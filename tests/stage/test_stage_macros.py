"""The stage's macro function runs SillyTavern's pipeline (either engine) over any text it sends."""

from __future__ import annotations

import pytest

from peargarden.stage import StageCard, stage_macros
from peargarden.stage.language import text_language


@pytest.mark.parametrize("engine", ["legacy", "new"])
def test_stage_macros_cover_legacy_markers_variables_random_and_card_fields(engine: str) -> None:
    card = StageCard(name="砚秋", description="{{char}}开书铺。", personality="话少")
    run = stage_macros(card, user_name="旅人", random=lambda: 0.99, engine=engine)  # type: ignore[arg-type]
    assert run("<user>见<BOT>。") == "旅人见砚秋。"
    # 1.12's pipeline runs getvar before setvar on one line, so the set comes a line earlier.
    assert run("{{setvar::茶::龙井}}\n{{getvar::茶}}") == "\n龙井"
    assert run("{{random::甲::乙}}") == "乙"  # the injected roll picks the last
    assert run("{{description}}｜{{personality}}") == "砚秋开书铺。｜话少"
    assert run("{{// 注释 }}正文") == "正文"
    assert run("") == ""


def test_stage_macros_variables_live_for_one_macro_function() -> None:
    card = StageCard(name="砚秋")
    first = stage_macros(card, user_name="旅人")
    first("{{setvar::x::1}}")
    assert first("{{getvar::x}}") == "1"
    assert stage_macros(card, user_name="旅人")("{{getvar::x}}") == ""


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("青梧是栖水镇听雨轩的掌柜，记得每位熟客的口味，也记得十年前那场雨。", "中文"),
        ("Mira keeps the lighthouse on the northern cliff and writes letters she never sends to anyone.", "英语"),
        ("ミラは北の崖の灯台を守っている。誰にも送らない手紙を書いている。", "日语"),
        ("미라는 북쪽 절벽의 등대를 지킨다. 그녀는 보내지 않을 편지를 쓴다. 폭풍이 오면 문을 연다.", "韩语"),
        ("短句", ""),
        ("<div class='status'>{{char}}</div> https://example.com/x", ""),
    ],
)
def test_card_language_from_its_script(text: str, language: str) -> None:
    assert text_language(text) == language

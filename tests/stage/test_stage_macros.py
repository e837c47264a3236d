"""The stage's macro function runs SillyTavern's pipeline (either engine) over any text it sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.stage import StageCard, stage_macros
from peargarden.stage.language import text_language, user_name_for


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


def test_an_english_prompt_calls_the_user_user_unless_a_name_was_chosen() -> None:
    """Issue 49: an English card's prompt called the user 旅人, the seeded ``user_name``."""
    assert user_name_for("英语", "旅人", "旅人") == "User"
    assert user_name_for("英语", "Rowan", "旅人") == "Rowan"  # a name the user chose (a persona)
    assert user_name_for("中文", "旅人", "旅人") == "旅人"
    assert user_name_for("", "旅人", "旅人") == "旅人"  # no language known: as set
    assert user_name_for("英语", "小满", "旅人") == "小满"  # chosen, though Chinese


def test_an_english_cards_stage_prompt_names_the_user_in_english(tmp_path: Path) -> None:
    """The small-model profile's prompt for an English card in a data folder ``pear init`` made."""
    from peargarden.app.library.imports import import_files
    from peargarden.modes.stage.materials import load_stage_materials, with_user
    from peargarden.modes.stage.request import compact_for, greeting_turns
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    home = Home(tmp_path / "home")
    seed_home(home)
    panel = Path(__file__).resolve().parents[2] / "bench" / "panels" / "en"
    import_files(home, [panel / "Wren.json", panel / "Thornwood.json"], book="mount", card="Wren")
    materials = load_stage_materials(home, "Wren")
    materials.stage = with_user(materials, "旅人", "")  # the chat's user with no persona chosen
    system = compact_for(materials, greeting_turns(materials), "Hello... where am I?").system
    assert "The user plays User." in system and "Never speak or act for User" in system
    assert "旅人" not in system
    materials.stage = with_user(materials, "Rowan", "a courier")  # a persona
    assert "The user plays Rowan: a courier" in compact_for(materials, [], "Hi").system

"""The bundled content: the card 青梧, the lorebook 栖水镇, the prompt files and the config template."""

from __future__ import annotations

import io
import re
from typing import Any

import msgspec
import pytest
from PIL import Image

from peargarden.formats import read_card, read_lorebook
from peargarden.workspace.config import Settings, parse_settings
from peargarden.workspace.seed import bundled

SEED_QUESTION = "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？"


@pytest.fixture(scope="module")
def card() -> Any:
    return read_card(bundled("cards", "青梧.png"), "青梧.png")


@pytest.fixture(scope="module")
def entries() -> list[dict[str, Any]]:
    book = read_lorebook(bundled("lorebooks", "栖水镇.json"), "栖水镇.json")
    return list(book["entries"].values())


def _by_title(entries: list[dict[str, Any]], title: str) -> dict[str, Any]:
    (found,) = [e for e in entries if e["comment"] == title]
    return found


def _keyword_hits(entries: list[dict[str, Any]], text: str) -> set[str]:
    """Titles of the keyword entries whose keys occur in *text* (plain substring, as the stage does
    for keys of three or more characters and as it must for two-character Chinese keys)."""
    return {e["comment"] for e in entries if not e["constant"] and any(k in text for k in e["key"])}


def test_card_is_v3_png_named_qingwu(card: Any) -> None:
    assert card.source_spec == "v3"
    assert card.name == "青梧"
    data = card.data
    assert "栖水镇" in data["description"] and "听雨轩" in data["description"]
    assert "油纸伞" in data["description"], "the umbrella she never explains belongs to her description"
    assert "雨" in data["scenario"] and "{{user}}" in data["scenario"]


def test_card_avatar_is_a_real_picture() -> None:
    with Image.open(io.BytesIO(bundled("cards", "青梧.png"))) as image:
        image.load()
        assert image.size == (400, 600)
        # Not a flat fill: a drawn picture has many colours.
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colours is not None and len(colours) > 500


def test_greeting_names_the_inn_and_triggers_only_it(card: Any, entries: list[dict[str, Any]]) -> None:
    first_mes = card.data["first_mes"]
    assert "听雨轩" in first_mes
    umbrella = _by_title(entries, "旧油纸伞")
    assert not [k for k in umbrella["key"] if k in first_mes], "the greeting must not trigger 旧油纸伞"
    assert _keyword_hits(entries, first_mes) == {"听雨轩"}


def test_seed_question_with_greeting_hits_three_entries(card: Any, entries: list[dict[str, Any]]) -> None:
    text = card.data["first_mes"] + "\n" + SEED_QUESTION
    assert _keyword_hits(entries, text) == {"听雨轩", "怀瑾", "镇北渡口"}


def test_lorebook_shape(entries: list[dict[str, Any]]) -> None:
    constant = [e for e in entries if e["constant"]]
    keyword = [e for e in entries if not e["constant"]]
    assert len(constant) == 1
    assert len(keyword) >= 5
    titles = {e["comment"] for e in keyword}
    assert {"听雨轩", "怀瑾", "镇北渡口", "旧油纸伞"} <= titles
    assert {"怀瑾", "怀瑾公子"} <= set(_by_title(entries, "怀瑾")["key"])
    for entry in keyword:
        assert entry["key"], entry["comment"]
        assert len(entry["content"]) >= 40, entry["comment"]
        assert not entry["disable"]
    uids = [e["uid"] for e in entries]
    assert len(set(uids)) == len(uids)


def test_ferry_is_mentioned_once_and_only_by_huaijin(entries: list[dict[str, Any]]) -> None:
    others = [e for e in entries if e["comment"] != "镇北渡口"]
    mentioning = [e["comment"] for e in others if "镇北渡口" in e["content"]]
    assert mentioning == ["怀瑾"]
    assert _by_title(entries, "怀瑾")["content"].count("镇北渡口") == 1
    (constant,) = [e for e in entries if e["constant"]]
    assert "镇北渡口" not in constant["content"]
    # Search for 镇北渡口 must find 怀瑾 only through its body: no key or title of it overlaps.
    huaijin = _by_title(entries, "怀瑾")
    assert not [k for k in huaijin["key"] if k in "镇北渡口" or "镇北渡口" in k]


def test_prose_is_chinese(card: Any, entries: list[dict[str, Any]]) -> None:
    han = re.compile(r"[\u4e00-\u9fff]")
    for text in [card.data["description"], card.data["first_mes"], *(e["content"] for e in entries)]:
        assert len(han.findall(text)) / len(text) > 0.6


def test_prompt_files() -> None:
    system = bundled("SYSTEM.md").decode("utf-8")
    assert "梨园" in system and len(system) < 400
    append = bundled("APPEND_SYSTEM.md").decode("utf-8")
    headings = re.findall(r"^## (.+)$", append, flags=re.M)
    assert len(headings) >= 4
    assert "lorebook_search" in append and "`ask`" in append and "draft_seal" in append
    assert "<!--" not in append  # nothing disabled by default
    authoring = bundled("AUTHORING.md").decode("utf-8")
    assert "创作/" in authoring and re.findall(r"^## ", authoring, flags=re.M)


def test_config_template_is_the_code_defaults_except_creation_mode_and_st_version() -> None:
    text = bundled("config.toml").decode("utf-8")
    template = parse_settings(text)
    code = Settings()
    assert code.creation_mode == "silent"
    assert template.creation_mode == "ask"
    # New data folders match SillyTavern 1.18; folders made before the setting keep 1.12.
    assert code.st_version == "1.12"
    assert template.st_version == "1.18"
    assert template.user_name == "旅人" and template.language == ""
    assert template.scan_depth == 4 and template.max_lore_injections == 3
    assert msgspec.structs.replace(template, creation_mode="silent", st_version="1.12") == code
    # Every setting is written out (commented), none left to guess.
    for key in (
        "user_name",
        "language",
        "scan_depth",
        "max_lore_injections",
        "st_version",
        "[model]",
        "[side_model]",
        "thinking",
        "[sandbox]",
        "blacklist",
        "no_ask_prefixes",
        "providers.",
    ):
        assert key in text


def test_role_play_definition_is_switchable_entries() -> None:
    from peargarden.stage.entries import parse_entries, render_for_model

    text = bundled("APPEND_SYSTEM.md").decode("utf-8")
    entries = parse_entries(text)
    names = [e.name for e in entries if e.level == 2]
    assert names == ["一拍", "稿纸", "写之前先查", "岔口交给用户", "记账不用你操心"]
    assert all(e.enabled and not e.program_owned and e.content for e in entries)
    assert render_for_model(text).startswith("# 角色扮演")

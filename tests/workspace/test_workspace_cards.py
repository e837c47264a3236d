"""The card-folder API: naming, listing, opening, mounting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from kit.workspace import card_png, v2_card
from peargarden.errors import BadInput, NotFound
from peargarden.workspace.cards import (
    CardFolder,
    folder_name,
    list_cards,
    mount_lorebook,
    new_folder_name,
    open_card,
    unique_name,
    unmount_lorebook,
)
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home(tmp_path)
    seed_home(home)
    return home


def test_folder_name_sanitises_unsafe_characters() -> None:
    assert folder_name('青:梧*?"<>|/\\') == "青_梧" + "_" * 8
    assert folder_name("  沈砚. ") == "沈砚"


@pytest.mark.parametrize("name", ["？？！", "...", "  ", "", "/:*"])
def test_a_name_of_only_punctuation_is_an_error(name: str) -> None:
    with pytest.raises(BadInput):
        folder_name(name)


def test_duplicates_get_numbers(home: Home) -> None:
    assert unique_name("青梧", ["青梧"]) == "青梧-2"
    assert unique_name("青梧", ["青梧", "青梧-2"]) == "青梧-3"
    assert new_folder_name(home, "青梧") == "青梧-2"
    assert new_folder_name(home, "青梧", reserved=["青梧-2"]) == "青梧-3"
    assert new_folder_name(home, "沈砚") == "沈砚"


def test_list_and_open(home: Home) -> None:
    other = home.card_dir("说书人")
    other.mkdir()
    (other / "说书人.png").write_bytes(card_png(v2_card("说书人")))
    (home.cards_dir / ".隐藏").mkdir()
    assert [c.folder for c in list_cards(home)] == ["说书人", "青梧"]
    assert open_card(home, "说书人").load_card().name == "说书人"
    assert open_card(home, "说书人").settings() == {}
    with pytest.raises(NotFound):
        open_card(home, "不存在的卡")
    with pytest.raises(BadInput):
        open_card(home, "？？")


def test_card_file_prefers_the_folder_name(home: Home) -> None:
    folder = home.card_dir("说书人")
    folder.mkdir()
    (folder / "卡.json").write_text("{}", encoding="utf-8")
    (folder / "补充设定集.json").write_text('{"entries": {}}', encoding="utf-8")
    assert CardFolder(home, "说书人").card_file() is None
    (folder / "a.json").write_text(json.dumps(v2_card("说书人")), encoding="utf-8")
    assert CardFolder(home, "说书人").card_file() == folder / "a.json"
    (folder / "说书人.png").write_bytes(card_png(v2_card("说书人")))
    assert CardFolder(home, "说书人").card_file() == folder / "说书人.png"
    with pytest.raises(NotFound):
        CardFolder(home, "空").load_card()


def test_mount_and_unmount(home: Home) -> None:
    (home.lorebooks_dir / "茶馆.json").write_text('{"entries": {}}', encoding="utf-8")
    assert mount_lorebook(home, "青梧", "茶馆.json") is True
    assert mount_lorebook(home, "青梧", "茶馆") is False
    card = open_card(home, "青梧")
    assert card.lorebooks() == ["栖水镇", "茶馆"]
    with pytest.raises(NotFound):
        mount_lorebook(home, "青梧", "没有这本")
    assert unmount_lorebook(home, "青梧", "栖水镇") is True
    assert unmount_lorebook(home, "青梧", "栖水镇") is False
    assert card.lorebooks() == ["茶馆"]


def test_mount_keeps_other_card_settings(home: Home) -> None:
    card = open_card(home, "青梧")
    card.write_settings({"userName": "沈砚", "sandboxBash": True, "lorebooks": ["栖水镇"]})
    (home.lorebooks_dir / "茶馆.json").write_text('{"entries": {}}', encoding="utf-8")
    mount_lorebook(home, "青梧", "茶馆")
    assert card.settings() == {"userName": "沈砚", "sandboxBash": True, "lorebooks": ["栖水镇", "茶馆"]}
    merged = card.effective_settings(Settings())
    assert merged.user_name == "沈砚" and merged.lorebooks == ("栖水镇", "茶馆")


def test_broken_card_settings_are_a_one_line_error(home: Home) -> None:
    card = open_card(home, "青梧")
    card.settings_file.write_text("{坏了", encoding="utf-8")
    with pytest.raises(BadInput) as caught:
        card.settings()
    assert "卡.json" in str(caught.value) and "\n" not in str(caught.value)


@given(st.text(min_size=1, max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_folder_names_are_safe_and_stable(name: str) -> None:
    try:
        cleaned = folder_name(name)
    except BadInput:
        assert not any(ch.isalnum() for ch in name)
        return
    assert not set(cleaned) & set('\\/:*?"<>|')
    assert cleaned == cleaned.strip() and not cleaned.endswith(".")
    assert cleaned not in (".", "..")
    assert folder_name(cleaned) == cleaned


def test_a_mistyped_card_name_is_answered_with_the_near_names(home: Home) -> None:
    with pytest.raises(NotFound) as info:
        open_card(home, "青")
    assert "「青梧」" in info.value.message and "did you mean" in info.value.message
    with pytest.raises(NotFound) as far:
        open_card(home, "完全不同")
    # The listing command is the terminal's hint (a page never shows it).
    assert "pear cards" in far.value.hint and "pear cards" in str(far.value) and "did you mean" not in str(far.value)

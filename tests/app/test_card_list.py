"""The character list at scale: search (name, creator, tags, creator notes; CJK, full-width), sort
(name, last chat, date added; favourites first), the user's own tags and favourites kept in 卡.json
(the card file untouched), a damaged card listed with its error, rows kept while files are unchanged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kit.apps import seeded_home
from kit.workspace import card_png, v2_card
from peargarden.app.library import card_list
from peargarden.app.library.card_list import card_rows, search, set_marks
from peargarden.errors import BadInput
from peargarden.workspace.cards import open_card
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home


def _card(home: Home, folder: str, when: float, **data: object) -> Path:
    path = home.card_dir(folder) / f"{folder}.png"
    path.parent.mkdir(parents=True)
    path.write_bytes(card_png(v2_card(folder, **data)))
    os.utime(path, (when, when))
    return path


@pytest.fixture
def home(home_dir: Path) -> Home:
    home = seeded_home(home_dir)  # 青梧, the bundled card
    _card(home, "说书人", 1_000, tags=["江南", "说书"], creator="阿梨", creator_notes="适合慢节奏的茶馆故事。")
    _card(home, "Ｌｉｎａ", 2_000, tags=["奇幻"], creator="pear", creator_notes="A wandering mage. 会说中文。")
    _card(home, "渡口船夫", 3_000, tags=["江南"], creator="阿梨", creator_notes="不爱说话，只摆渡。")
    broken = home.card_dir("坏卡") / "坏卡.png"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot a card")
    return home


def _names(rows: list[card_list.CardRow]) -> list[str]:
    return [row.folder for row in rows]


def test_search_finds_name_creator_tags_and_notes_in_any_width_and_case(home: Home) -> None:
    rows = card_rows(home)
    assert {row.folder for row in rows} == {"青梧", "说书人", "Ｌｉｎａ", "渡口船夫", "坏卡"}
    assert next(r for r in rows if r.folder == "坏卡").error  # listed, with its problem
    assert _names(search(rows, "江南")) == ["渡口船夫", "说书人"]  # a tag
    assert _names(search(rows, "阿梨 茶馆")) == ["说书人"]  # creator and notes, both words
    assert _names(search(rows, "lina")) == _names(search(rows, "ＬＩＮＡ")) == ["Ｌｉｎａ"]  # width, case
    assert _names(search(rows, "中文")) == ["Ｌｉｎａ"]  # CJK inside English notes
    assert _names(search(rows, "摆渡")) == ["渡口船夫"]
    assert search(rows, "没有这个词") == []
    assert _names(search(rows, tag="江南")) == ["渡口船夫", "说书人"]


def test_sorts_by_name_last_chat_and_date_added_with_favourites_first(home: Home) -> None:
    rows = card_rows(home)
    older = {r.folder: r.added for r in rows}
    assert older["渡口船夫"] > older["Ｌｉｎａ"] > older["说书人"]  # the card files' own times
    added = _names(search(rows, "", sort="added"))
    assert added.index("渡口船夫") < added.index("Ｌｉｎａ") < added.index("说书人")
    chat = ChatFile.create(open_card(home, "说书人").chats_dir, card="说书人", mode="stage")
    chat.append_message({"role": "user", "content": "先生，今天说哪一段？"})
    rows = card_rows(home)
    assert next(r for r in rows if r.folder == "说书人").chats == 1
    assert _names(search(rows, "", sort="last_chat"))[0] == "说书人"
    set_marks(open_card(home, "渡口船夫"), favorite=True)
    rows = card_rows(home)
    for order in card_list.SORTS:
        assert _names(search(rows, "", sort=order))[0] == "渡口船夫"
    assert _names(search(rows, favorites=True)) == ["渡口船夫"]
    with pytest.raises(BadInput):
        search(rows, sort="按心情")


def test_own_tags_and_the_favourite_live_in_the_card_settings(home: Home) -> None:
    folder = open_card(home, "说书人")
    card_bytes = folder.card_file().read_bytes()  # type: ignore[union-attr]
    row = set_marks(folder, tags=[" 长篇 ", "江南", "长篇", ""], favorite=True)
    assert row.own_tags == ["长篇", "江南"] and row.tags == ["江南", "说书", "长篇"] and row.favorite
    assert json.loads(folder.settings_file.read_text(encoding="utf-8")) == {"tags": ["长篇", "江南"], "favorite": True}
    assert folder.card_file().read_bytes() == card_bytes  # type: ignore[union-attr]
    assert _names(search(card_rows(home), "长篇")) == ["说书人"]
    row = set_marks(folder, tags=[], favorite=False)
    assert row.own_tags == [] and not row.favorite and json.loads(folder.settings_file.read_text("utf-8")) == {}
    with pytest.raises(BadInput):
        set_marks(folder, tags=["长" * 41])


def test_rows_are_read_again_only_when_a_card_changed(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    card_rows(home)
    read: list[str] = []
    real = card_list._read_row
    monkeypatch.setattr(card_list, "_read_row", lambda folder, path: read.append(folder.folder) or real(folder, path))
    card_rows(home)
    assert read == []
    path = _card(home, "新来的", 4_000, tags=["新"])
    set_marks(open_card(home, "说书人"), favorite=True)
    card_rows(home)
    assert sorted(read) == sorted(["新来的", "说书人"]) and path.is_file()

"""Importing a card that is here already: beside it (copy, the CLI's default), in its place (replace:
the folder, its chats, 卡.json and mounted books kept; a card file of another kind replaced), or
refused with the names (ask) and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.workspace import card_png, embedded_book, tree_digest, v2_card
from peargarden.formats import read_card
from peargarden.workspace.home import Home
from peargarden.workspace.importer import CardExists, apply_plan, plan_import
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    home = Home(home_dir)
    seed_home(home)
    return home


def _card(tmp: Path, name: str, file: str, **data: object) -> Path:
    path = tmp / file
    path.parent.mkdir(parents=True, exist_ok=True)
    card = v2_card(name, **data)
    path.write_bytes(card_png(card) if file.endswith(".png") else json.dumps(card, ensure_ascii=False).encode())
    return path


def test_copy_replace_and_ask(home: Home, tmp_path: Path) -> None:
    first = _card(tmp_path, "说书人", "a/说书人.json", description="旧")
    apply_plan(plan_import(home, [first]))
    folder = home.card_dir("说书人")
    (folder / "chats" / "20260101-000000-aaaa").mkdir(parents=True)
    (folder / "卡.json").write_text(json.dumps({"lorebooks": ["栖水镇"], "persona": "旅人"}), encoding="utf-8")
    again = _card(tmp_path, "说书人", "b/说书人.png", description="新", character_book=embedded_book("书场旧事"))

    before = tree_digest(home.root)
    with pytest.raises(CardExists) as asked:
        plan_import(home, [again], on_conflict="ask")
    assert asked.value.names == ["说书人"] and tree_digest(home.root) == before

    apply_plan(plan_import(home, [again], on_conflict="replace"))
    assert not (folder / "说书人.json").exists()  # the card of another kind is replaced, not kept beside
    assert read_card((folder / "说书人.png").read_bytes(), "说书人.png").data["description"] == "新"
    settings = json.loads((folder / "卡.json").read_text(encoding="utf-8"))
    assert settings["persona"] == "旅人" and settings["lorebooks"] == ["栖水镇", "书场旧事"]
    assert (folder / "chats" / "20260101-000000-aaaa").is_dir()
    assert not home.card_dir("说书人-2").exists()

    apply_plan(plan_import(home, [again]))  # the default: beside it
    assert (home.card_dir("说书人-2") / "说书人-2.png").is_file()

"""seed_home: creates the data folder, is idempotent, never overwrites the user's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.workspace import tree_digest
from peargarden.errors import BadInput
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home
from peargarden.workspace.seed import bundled, seed_home


def test_seed_creates_everything(tmp_path: Path) -> None:
    home = Home(tmp_path / "梨园数据")
    created = seed_home(home)
    for path in (home.config_file, home.system_file, home.append_system_file, home.authoring_file):
        assert path.is_file() and path in created
    assert (home.lorebooks_dir / "栖水镇.json").read_bytes() == bundled("lorebooks", "栖水镇.json")
    for folder in (home.presets_dir, home.personas_dir, home.skills_dir):
        assert folder.is_dir() and not any(folder.iterdir())
    card = open_card(home, "青梧")
    assert card.card_file() == home.card_dir("青梧") / "青梧.png"
    assert card.lorebooks() == ["栖水镇"]
    assert json.loads(card.settings_file.read_text(encoding="utf-8")) == {"lorebooks": ["栖水镇"]}
    assert card.load_card().name == "青梧"


def test_seed_is_idempotent_and_keeps_user_edits(tmp_path: Path) -> None:
    home = Home(tmp_path)
    seed_home(home)
    home.system_file.write_text("我自己的底座。\n", encoding="utf-8")
    home.config_file.write_text('user_name = "阿砚"\n', encoding="utf-8")
    (home.card_dir("青梧") / "卡.json").write_text('{"lorebooks": []}', encoding="utf-8")
    before = tree_digest(home.root)
    assert seed_home(home) == []
    assert tree_digest(home.root) == before
    assert home.system_file.read_text(encoding="utf-8") == "我自己的底座。\n"


def test_an_empty_user_file_is_still_the_users(tmp_path: Path) -> None:
    home = Home(tmp_path)
    tmp_path.joinpath("APPEND_SYSTEM.md").write_bytes(b"")
    seed_home(home)
    assert home.append_system_file.read_bytes() == b""


def test_missing_files_are_restored_individually(tmp_path: Path) -> None:
    home = Home(tmp_path)
    seed_home(home)
    home.authoring_file.unlink()
    assert seed_home(home) == [home.authoring_file]


def test_an_existing_card_folder_is_left_alone(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.card_dir("青梧").mkdir(parents=True)
    seed_home(home)
    assert list(home.card_dir("青梧").iterdir()) == []


def test_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(BadInput):
        seed_home(Home(target))

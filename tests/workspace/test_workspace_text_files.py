"""The data folder's hand-edited files as Windows editors save them: a UTF-8 byte-order mark and CRLF
(Notepad), UTF-16 ("Unicode"), GBK ("ANSI" on a Chinese Windows).  Read like the files our own code
writes, or refused with one line that names the file — never a traceback, never a silent loss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.cli import pear_in_process
from peargarden.app.library.personas import load_persona
from peargarden.errors import BadInput
from peargarden.modes.stage.materials import load_stage_materials
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(tmp_path: Path) -> Home:
    seeded = Home(tmp_path / "梨园")
    seed_home(seeded)
    return seeded


def notepad(path: Path, encoding: str = "utf-8-sig") -> None:
    """Save *path* again as Windows Notepad would: CRLF line ends, in *encoding* (with its mark)."""
    text = path.read_text(encoding="utf-8").replace("\n", "\r\n")
    path.write_bytes(text.encode(encoding))


def test_config_toml_with_a_mark_reads_and_gbk_is_one_line(home: Home) -> None:
    home.config_file.write_text('user_name = "陆行舟"\n', encoding="utf-8")
    notepad(home.config_file)
    assert load_settings(home.config_file).user_name == "陆行舟"  # was "Invalid statement (line 1)"
    home.config_file.write_bytes('# 设置\nuser_name = "陆行舟"\n'.encode("gbk"))
    with pytest.raises(BadInput) as info:
        load_settings(home.config_file)  # was a UnicodeDecodeError traceback
    assert "config.toml" in str(info.value) and "GBK" in str(info.value)
    result = pear_in_process(home.root, "stage", "assemble", "--card", "青梧", "--message", "你好")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_cards_settings_saved_by_notepad_read_as_before(home: Home, encoding: str) -> None:
    card = open_card(home, "青梧")
    before = card.settings()
    notepad(card.settings_file, encoding)
    assert open_card(home, "青梧").settings() == before  # was "卡设置不是合法的 JSON：第 1 行"


def test_a_persona_saved_with_a_mark_keeps_its_description(home: Home) -> None:
    home.personas_dir.mkdir(parents=True, exist_ok=True)
    path = home.personas_dir / "陆行舟.json"
    persona = {"name": "陆行舟", "description": "县城来的书生。"}
    path.write_text(json.dumps(persona, ensure_ascii=False), encoding="utf-8")
    notepad(path)
    assert load_persona(home.personas_dir, "陆行舟").description == "县城来的书生。"  # was silently ""


def test_prompt_files_saved_by_notepad_give_the_same_stage(home: Home) -> None:
    before = load_stage_materials(home, "青梧")
    for path in (home.root / "SYSTEM.md", home.root / "APPEND_SYSTEM.md"):
        notepad(path)
    after = load_stage_materials(home, "青梧")
    assert after.files == before.files  # no mark in the prompt, no CR, the same ## entries

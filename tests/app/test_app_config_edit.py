"""config.toml edits keep the user's comments and layout and never write an invalid file."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.app.settings.config_edit import set_value, set_values
from peargarden.errors import BadInput
from peargarden.workspace.config import load_settings, parse_settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def test_edit_the_seeded_config_keeps_every_comment(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    before = home.config_file.read_text(encoding="utf-8")
    settings = set_values(
        home.config_file,
        {
            ("", "scan_depth"): 8,
            ("", "creation_mode"): "silent",
            ("model", "thinking"): "high",
            ("model", "provider"): "深度求索",
            ("providers.深度求索", "base_url"): "https://api.example.com/v1",
            ("sandbox", "no_ask_prefixes"): ["ls", "cat", "git status"],
            ("sandbox", "blacklist"): [r"\brm\s+-rf\s+/"],
        },
    )
    after = home.config_file.read_text(encoding="utf-8")
    comments = [line for line in before.splitlines() if line.lstrip().startswith("#")]
    assert all(line in after for line in comments)
    assert settings.scan_depth == 8 and settings.creation_mode == "silent"
    assert settings.main().thinking == "high" and settings.main().provider == "深度求索"
    assert settings.providers["深度求索"].base_url == "https://api.example.com/v1"
    assert settings.sandbox.no_ask_prefixes == ("ls", "cat", "git status")
    assert settings.sandbox.blacklist == (r"\brm\s+-rf\s+/",)
    assert load_settings(home.config_file) == settings
    # The side model's table was not touched.
    assert after.splitlines().count("[side_model]") == 1 and 'thinking = "low"' in after


def test_missing_keys_and_tables_are_added() -> None:
    text = 'user_name = "旅人"\n\n[model]\nprovider = "local"\n'
    edited = set_value(set_value(text, "", "greeting", False), "model", "model", "deepseek-chat")
    edited = set_value(edited, "side_model", "thinking", "off")
    settings = parse_settings(edited)
    assert settings.greeting is False and settings.model.model == "deepseek-chat"
    assert settings.side_model.thinking == "off"
    assert edited.index("greeting") < edited.index("[model]")


def test_an_invalid_value_writes_nothing(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    before = home.config_file.read_bytes()
    with pytest.raises(BadInput):
        set_values(home.config_file, {("", "mode"): "歌剧"})
    with pytest.raises(BadInput):
        set_values(home.config_file, {("model", "thinking"): "very"})
    assert home.config_file.read_bytes() == before

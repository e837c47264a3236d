"""Keys typed into a front: stored 0600 in the data folder, used only when config gives none."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from peargarden.app.settings.stored_keys import forget_key, has_stored_key, store_key, with_stored_key
from peargarden.errors import BadInput
from peargarden.workspace.config import parse_settings
from peargarden.workspace.home import Home

CONFIG = """
[providers."深度"]
base_url = "http://127.0.0.1:9/v1"
[providers.own]
base_url = "http://127.0.0.1:9/v1"
api_key = "sk-in-config"
"""


def test_store_use_and_forget(home_dir: Path) -> None:
    home = Home(home_dir)
    store_key(home, "深度", " sk-甲乙 ")
    path = home.root / "keys" / "深度.key"
    assert path.read_text(encoding="utf-8") == "sk-甲乙"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    settings = with_stored_key(home, parse_settings(CONFIG))
    assert settings.providers["深度"].api_key == "sk-甲乙"
    store_key(home, "own", "sk-stored")
    assert with_stored_key(home, parse_settings(CONFIG)).providers["own"].api_key == "sk-in-config"
    assert has_stored_key(home, "深度")
    forget_key(home, "深度")
    assert not has_stored_key(home, "深度")
    assert with_stored_key(home, parse_settings(CONFIG)).providers["深度"].api_key == ""


def test_bad_names_and_keys_are_refused(home_dir: Path) -> None:
    home = Home(home_dir)
    for name in ("../config", "a/b", ""):
        with pytest.raises(BadInput):
            store_key(home, name, "sk-x")
    with pytest.raises(BadInput):
        store_key(home, "深度", "sk x")
    assert not (home.root / "keys").exists()

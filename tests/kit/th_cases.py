"""The recorded TavernHelper cases (SillyTavern 1.18.0 + TavernHelper 4.9.3, ``../shared/tavernhelper``,
copied to ``tests/scripting/cases``): where they are, a data folder holding one case for ``pear serve``,
and the one comparison of a run with the recording that the CLI's and the page's tests both make."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kit.mvu_chats import card_home
from peargarden.app.play.script_cases import read_case
from peargarden.workspace.home import Home
from peargarden.workspace.quick_reply_files import write_global_variables

CASES = Path(__file__).parents[1] / "scripting" / "cases"
CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "expected.json").exists())
STATE_KEYS = ("chat", "chat_metadata_variables", "global_variables", "character_tavern_helper")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def normalised(value: Any) -> Any:
    """The recordings' normalisation of time stamps (their README): ISO dates → ``<ISO_DATE>``."""
    if isinstance(value, str) and _ISO.match(value):
        return "<ISO_DATE>"
    if isinstance(value, dict):
        return {key: normalised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalised(item) for item in value]
    return value


def expected_of(case_dir: Path) -> dict[str, Any]:
    return json.loads((case_dir / "expected.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def check_case(got: dict[str, Any], expected: dict[str, Any], request_keys: tuple[str, ...] | None = None) -> None:
    """A run (``script_output``, ``state_after``, ``requests``; dates normalised) equals the recording:
    the steps' values and errors and the events the script heard, the chat, variables and card after,
    the request bodies (only their *request_keys* when given)."""
    assert got["script_output"] == expected["script_output"]
    for key in STATE_KEYS:
        assert got["state_after"][key] == expected["state_after"][key], key
    if request_keys is None:
        assert got["requests"] == expected["requests"]
    else:
        keep = [{key: body.get(key) for key in request_keys} for body in expected["requests"]]
        assert [{key: body.get(key) for key in request_keys} for body in got["requests"]] == keep


def case_home(home_dir: Path, case_dir: Path, config: str) -> tuple[Home, str]:
    """A fresh data folder holding the case as ``pear script replay`` reads it (:func:`read_case`): the
    case's card (its scripts allowed, as the recording allowed them), its worlds mounted on it, the
    common preset as ``Oracle`` and user name, the global variables the case began with; *config* is
    its ``config.toml``.  Returns the folder and the card's name."""
    case_input, overrides, preset = read_case(case_dir)
    card = case_input["card"]
    name = str(case_input.get("character") or card.get("name"))
    files = home_dir.parent / f"{home_dir.name}-案例文件"
    files.mkdir()
    card_file = files / f"{name}.json"
    card_file.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    books = []
    for book, data in (case_input.get("worlds") or {}).items():
        books.append(files / f"{book}.json")
        books[-1].write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    settings = {"userName": str(overrides.get("username") or "User"), "scripts_allowed": True}
    preset_bytes = None if preset is None else json.dumps(preset, ensure_ascii=False).encode("utf-8")
    home = card_home(home_dir, card_file, books, name, settings, preset_bytes)
    home.config_file.write_text(config, encoding="utf-8")
    given = case_input.get("global_variables_before")
    write_global_variables(home, given if isinstance(given, dict) else {})
    return home, name


__all__ = ["CASES", "CASE_DIRS", "STATE_KEYS", "case_home", "check_case", "expected_of", "normalised"]

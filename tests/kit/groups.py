"""Group chats on a seeded data folder: a recorded SillyTavern group case laid out as our files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from peargarden.workspace.home import Home

GROUP_CASES = Path(__file__).parents[1] / "tavern" / "oracle_cases_118_group"


def case_settings(case: Path) -> dict[str, Any]:
    value = json.loads((case / "settings.json").read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


def add_card(home: Home, folder: str, card: dict[str, Any] | bytes) -> None:
    """A card folder ``cards/<folder>/<folder>.json``."""
    path = home.card_dir(folder)
    path.mkdir(parents=True, exist_ok=True)
    data = card if isinstance(card, bytes) else json.dumps(card, ensure_ascii=False).encode("utf-8")
    (path / f"{folder}.json").write_bytes(data)


def chinese_card(name: str, description: str, first_mes: str, **extensions: Any) -> dict[str, Any]:
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": name,
            "description": description,
            "personality": "",
            "scenario": "",
            "first_mes": first_mes,
            "mes_example": "",
            "extensions": dict(extensions),
        },
    }


def lay_out_case(home: Home, case: Path, group: str = "Tea House") -> Path:
    """The case's member cards as card folders (``Lin Yue.png`` → ``cards/Lin Yue/``), its preset in
    the library, its group file as ``groups/<group>/group.json`` and a ``群.json`` that plays it in
    tavern mode with the case's preset, release, user name and power-user settings."""
    settings = case_settings(case)
    for member in settings["members"]:
        stem = member["file"].rsplit(".", 1)[0]
        add_card(home, stem, (case / f"{member['card']}.json").read_bytes())
    home.presets_dir.mkdir(parents=True, exist_ok=True)
    (home.presets_dir / "Oracle.json").write_bytes((case / "preset.json").read_bytes())
    folder = home.root / "groups" / group
    folder.mkdir(parents=True)
    (folder / "group.json").write_bytes((case / "group.json").read_bytes())
    power_user = settings["st_settings_overrides"].get("power_user", {})
    ours = {"mode": "tavern", "preset": "Oracle", "stVersion": "1.18", "userName": "User",
            "tavern": {"power_user": power_user}}  # fmt: skip
    (folder / "群.json").write_text(json.dumps(ours, ensure_ascii=False), encoding="utf-8")
    return folder


def tea_house(home: Home) -> Home:
    """Three Chinese cards for group tests: 林月, 周明 and 小桃 (in that order), and 旅人 as the user."""
    add_card(home, "林月", chinese_card("林月", "茶馆的老板娘，说话温和。", "欢迎光临，{{user}}。"))
    add_card(home, "周明", chinese_card("周明", "常来喝茶的诗人。", "雨天正好作诗。"))
    add_card(home, "小桃", chinese_card("小桃", "手脚麻利的小伙计。", "客官里边请！"))
    home.config_file.write_text('user_name = "旅人"\n', encoding="utf-8")
    return home


def connect(home: Home, base_url: str) -> None:
    """config.toml: the user 旅人 and the main model at *base_url* (the fake OpenAI server)."""
    home.config_file.write_text(
        f'user_name = "旅人"\n[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{base_url}"\n',
        encoding="utf-8",
    )

"""Personas as SillyTavern keeps them in power_user, and our library file."""

from __future__ import annotations

import json

import pytest

from peargarden.errors import FormatError
from peargarden.formats import (
    Persona,
    persona_to_json,
    personas_from_power_user,
    personas_to_backup_json,
    personas_to_power_user,
    read_personas,
)

POWER_USER = {
    "personas": {"user-default.png": "小明", "1700000000000-书生.png": "书生"},
    "persona_descriptions": {
        "user-default.png": {
            "description": "{{user}}是爱喝龙井的大学生。",
            "position": 0,
            "depth": 2,
            "role": 0,
        },
        "1700000000000-书生.png": {
            "description": "赶考的书生",
            "position": 4,
            "depth": "3",
            "role": 1,
            "lorebook": "栖水镇",
            "title": "落第书生",
        },
    },
    "default_persona": "user-default.png",
    "persona_description": "{{user}}是爱喝龙井的大学生。",
    "other_setting": True,
}


def test_from_power_user() -> None:
    first, second = personas_from_power_user(POWER_USER)
    assert first == Persona("小明", "{{user}}是爱喝龙井的大学生。", 0, 2, 0, "user-default.png")
    assert (second.name, second.position, second.depth, second.role) == ("书生", 4, 3, 1)
    assert second.extra == {"lorebook": "栖水镇", "title": "落第书生"}


def test_to_power_user_round_trip_keeps_other_settings() -> None:
    personas = personas_from_power_user(POWER_USER)
    personas[0].description = "改过的描述"
    out = personas_to_power_user(personas, POWER_USER)
    assert out["other_setting"] is True and out["default_persona"] == "user-default.png"
    assert out["persona_descriptions"]["user-default.png"]["description"] == "改过的描述"
    assert out["persona_descriptions"]["1700000000000-书生.png"]["lorebook"] == "栖水镇"
    assert personas_from_power_user(out) == personas
    assert POWER_USER["persona_descriptions"]["user-default.png"]["description"] != "改过的描述"  # type: ignore[index]


def test_persona_without_avatar_gets_one_from_its_name() -> None:
    out = personas_to_power_user([Persona("阿梨", "园中小妖")])
    assert out["personas"] == {"阿梨.png": "阿梨"}


def test_read_settings_backup_and_library_file() -> None:
    settings = json.dumps({"power_user": POWER_USER}, ensure_ascii=False).encode()
    assert [p.name for p in read_personas(settings, "settings.json")] == ["小明", "书生"]
    personas = personas_from_power_user(POWER_USER)
    backup = personas_to_backup_json(personas, "user-default.png")
    assert read_personas(backup, "personas.json") == personas
    assert json.loads(backup)["default_persona"] == "user-default.png"
    single = persona_to_json(personas[1])
    assert read_personas(single, "书生.json") == [personas[1]]
    assert "\\u" not in single.decode("utf-8")


@pytest.mark.parametrize("data", [b'{"entries": {}}', b"[]", b'{"spec": "chara_card_v2", "name": "x"}'])
def test_no_personas(data: bytes) -> None:
    with pytest.raises(FormatError):
        read_personas(data, "p.json")

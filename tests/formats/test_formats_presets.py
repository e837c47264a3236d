"""Chat Completion presets: validated, and kept byte for byte."""

from __future__ import annotations

import json

import pytest

from kit.thirdparty import thirdparty
from peargarden.errors import FormatError
from peargarden.formats import detect_kind, load_preset, read_preset


def _preset() -> bytes:
    obj = {
        "temperature": 0.8,
        "openai_max_context": 8192,
        "prompts": [{"identifier": "main", "name": "主提示", "role": "system", "content": "你是{{char}}。"}],
        "prompt_order": [{"character_id": 100001, "order": [{"identifier": "main", "enabled": True}]}],
        "未知键": {"保留": True},
    }
    # odd spacing on purpose: the stored bytes must be exactly these
    return json.dumps(obj, ensure_ascii=False, indent=1).replace(": ", " :  ").encode("utf-8")


def test_read_and_load_keep_the_exact_bytes() -> None:
    raw = _preset()
    assert detect_kind(raw, "古风.json") == "preset"
    assert read_preset(raw, "古风.json")["prompts"][0]["name"] == "主提示"
    loaded = load_preset(raw, "古风.json")
    assert loaded.raw == raw and loaded.data["未知键"] == {"保留": True}


@pytest.mark.parametrize("version", ["sillytavern-1.12.6", "sillytavern-1.18.0"])
def test_default_preset_fixture(version: str) -> None:
    raw = thirdparty(version, "Default.json").read_bytes()
    assert detect_kind(raw, "Default.json") == "preset"
    preset = load_preset(raw, "Default.json")
    assert preset.raw == raw
    assert preset.data["openai_max_context"] == 4095
    assert any(p["identifier"] == "main" for p in preset.data["prompts"])


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ({"hello": "world"}, "不是对话补全预设"),
        ({"entries": {}, "prompts": []}, "不是对话补全预设"),
        ({"prompts": {"main": {}}}, "不是列表"),
        ({"prompts": [{"name": "无标识"}]}, "identifier"),
        ({"prompt_order": "main"}, "不是列表"),
    ],
)
def test_bad_presets(obj: dict, needle: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(FormatError) as info:
        read_preset(json.dumps(obj, ensure_ascii=False).encode(), "坏预设.json")
    assert needle in info.value.message and info.value.path == "坏预设.json"


def test_invalid_json_preset() -> None:
    with pytest.raises(FormatError, match="第 1 行"):
        load_preset(b'{"prompts": [', "坏.json")

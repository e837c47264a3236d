"""``pear slash replay``: a recorded STscript case (``input.json`` + the shared ``common/`` folder of
card, settings and preset) replayed on SillyTavern's state; the result has ``expected.json``'s keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from peargarden.errors import FormatError, NotFound
from peargarden.formats import card_to_object, read_card
from peargarden.tavern.slash_replay import replay_slash

from .tavern_cases import _read_bytes, _read_json


def _object(path: Path) -> dict[str, Any]:
    value = _read_json(path)
    if not isinstance(value, dict):
        raise FormatError("必须是 JSON 对象", path=path)
    return value


def _card(common: Path) -> dict[str, Any]:
    for name in ("card.json", "card.png"):
        path = common / name
        if path.is_file():
            if path.suffix == ".json":
                return _object(path)
            card = card_to_object(read_card(_read_bytes(path), str(path)), "v2")
            if isinstance(card, dict):
                return card
    raise NotFound("common 文件夹里没有 card.png 或 card.json", path=common)


def replay_slash_case(case_dir: Path, common: Path | None = None) -> dict[str, Any]:
    """Replay ``case_dir/input.json`` with the card, settings and preset of ``common`` (default
    ``case_dir/../../common``, where the recordings keep them)."""
    if not case_dir.is_dir():
        raise NotFound(f"找不到案例文件夹 {case_dir}")
    common = common or case_dir.parent.parent / "common"
    if not common.is_dir():
        raise NotFound(f"找不到 common 文件夹 {common}", hint="用 --common 指定")
    case_input = _object(case_dir / "input.json")
    if not isinstance(case_input.get("script", ""), str):
        raise FormatError("input.json 的 script 必须是文本", path=case_dir / "input.json")
    preset_path = common / "preset.json"
    preset = _object(preset_path) if preset_path.exists() else None
    return replay_slash(case_input, _object(common / "settings.json"), _card(common), preset)


__all__ = ["replay_slash_case"]

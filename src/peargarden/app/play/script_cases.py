"""``pear script replay``: a recorded TavernHelper case (``input.json`` + the shared ``common/``
folder's settings and preset) played on SillyTavern's state, the card's scripts in their own
process (``script_process.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from peargarden.errors import FormatError, NotFound
from peargarden.scripting.replay import replay_script_case

from .script_process import ScriptLimits, ScriptProcess
from .tavern_cases import _read_json


def _object(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise NotFound("找不到文件", path=path)
    value = _read_json(path)
    if not isinstance(value, dict):
        raise FormatError("必须是 JSON 对象", path=path)
    return value


CaseFiles = tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]  # input.json, overrides, preset


def read_case(case_dir: Path, common: Path | None = None) -> CaseFiles:
    """A recorded case: ``case_dir/input.json``, and ``common``'s ``st_settings_overrides.json`` and
    ``preset.json`` (default ``case_dir/../../common``, where the recordings keep them)."""
    if not case_dir.is_dir():
        raise NotFound(f"找不到案例文件夹 {case_dir}")
    common = common or case_dir.parent.parent / "common"
    if not common.is_dir():
        raise NotFound(f"找不到 common 文件夹 {common}", hint="用 --common 指定")
    input_path = case_dir / "input.json"
    case_input = _object(input_path)
    if not isinstance(case_input.get("card"), dict):
        raise FormatError("input.json 里没有角色卡（card 必须是对象）", path=input_path)
    overrides = _object(common / "st_settings_overrides.json")
    preset_path = common / "preset.json"
    preset = _object(preset_path) if preset_path.exists() else None
    return case_input, overrides, preset


def replay_case(case_dir: Path, common: Path | None = None, limits: ScriptLimits | None = None) -> dict[str, Any]:
    """Replay a recorded case (:func:`read_case`), the card's scripts in their own process."""
    case_input, overrides, preset = read_case(case_dir, common)
    channel = ScriptProcess(limits)
    return replay_script_case(case_input, overrides, preset, channel=channel, clock=lambda: datetime.now(UTC))


__all__ = ["read_case", "replay_case"]

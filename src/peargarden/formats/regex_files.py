"""SillyTavern regex-script files: what the Regex extension exports and imports.

ST exports one script as a JSON object (``scriptName``, ``findRegex``, ``replaceString``,
``placement``, …) and several as a JSON array of such objects.  Both are read here; the scripts are
kept exactly as written (unknown fields too), so a script file can be stored byte for byte.
"""

from __future__ import annotations

from typing import Any

from peargarden.errors import FormatError

from ._common import JsonObject, check_size, decode_utf8, loads_json

__all__ = ["is_regex_script_value", "read_regex_scripts"]


def _is_script(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("findRegex"), str)


def is_regex_script_value(value: Any) -> bool:
    """One script object, or a non-empty array whose items are all script objects."""
    if isinstance(value, list):
        return bool(value) and all(_is_script(item) for item in value)
    return _is_script(value)


def read_regex_scripts(data: bytes, filename: str) -> list[JsonObject]:
    """The scripts of a regex-script file (a single script becomes a list of one)."""
    check_size(data, filename)
    value = loads_json(decode_utf8(data, filename, "正则脚本文件"), filename, "正则脚本文件")
    if not is_regex_script_value(value):
        raise FormatError(
            "不是 SillyTavern 正则脚本：每个脚本须是带 findRegex 文本的对象（not a regex script file）", path=filename
        )
    scripts = value if isinstance(value, list) else [value]
    for index, script in enumerate(scripts):
        placement = script.get("placement", [])
        if not isinstance(placement, list):
            raise FormatError(
                f"第 {index + 1} 个正则脚本的 placement 不是数组（placement is not a list）", path=filename
            )
    return scripts

"""Edits of a card's regex scripts (``data.extensions.regex_scripts``) as SillyTavern's regex editor
stores them.

Pure: each function returns a new list and leaves its argument alone.  A change names only the fields
it sets; the others, and fields we do not know (newer SillyTavern versions, other tools), stay as they
were.  A pattern that cannot compile is refused before anything is written.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats._values import flag_value, text_value
from peargarden.text.jsregex import regex_from_string

# Where a script runs: 1 user input, 2 AI output, 3 slash commands, 5 world info, 6 reasoning
# (0 was the old "markdown display" and is kept when a card has it, never offered).
PLACEMENTS = (0, 1, 2, 3, 5, 6)
# Macros in the pattern: 0 not substituted, 1 raw, 2 escaped (older cards store true / false).
SUBSTITUTE = (0, 1, 2)


def new_script(script_id: str | None = None) -> dict[str, Any]:
    """A new script with the regex editor's defaults, in the order SillyTavern writes them."""
    return {
        "id": script_id or str(uuid.uuid4()),
        "scriptName": "",
        "findRegex": "",
        "replaceString": "",
        "trimStrings": [],
        "placement": [],
        "disabled": False,
        "markdownOnly": False,
        "promptOnly": False,
        "runOnEdit": True,
        "substituteRegex": 0,
        "minDepth": None,
        "maxDepth": None,
    }


def _find(field: str, value: Any) -> str:
    pattern = text_value(field, value)
    if pattern and regex_from_string(pattern) is None:
        raise BadInput(f"{field} 无法编译：{pattern[:60]!r}（invalid regex）")
    return pattern


def _trims(field: str, value: Any) -> list[str]:
    """A list, or text with one string per line (the editor's box); empty lines dropped."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").split("\n")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadInput(f"{field} 需要字符串列表，收到 {value!r}")
    return [v for v in value if v]


def _placement(field: str, value: Any) -> list[int]:
    if not isinstance(value, list) or any(isinstance(p, bool) or p not in PLACEMENTS for p in value):
        raise BadInput(f"{field} 只能列出 {' / '.join(map(str, PLACEMENTS))}，收到 {value!r}")
    return sorted(set(value))


def _depth(field: str, value: Any) -> int | None:
    """Blank is ``null`` (no limit); -1 is allowed, as in the editor."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise BadInput(f"{field} 需要 ≥ -1 的整数或留空，收到 {value!r}")
    return value


def _substitute(field: str, value: Any) -> int | bool:
    if isinstance(value, bool) or value in SUBSTITUTE:
        return value  # type: ignore[no-any-return]
    raise BadInput(f"{field} 只能是 0（不替换）、1（原样）或 2（转义），收到 {value!r}")


_RULES: dict[str, Callable[[str, Any], Any]] = {
    "scriptName": text_value,
    "findRegex": _find,
    "replaceString": text_value,
    "trimStrings": _trims,
    "placement": _placement,
    "disabled": flag_value,
    "markdownOnly": flag_value,
    "promptOnly": flag_value,
    "runOnEdit": flag_value,
    "substituteRegex": _substitute,
    "minDepth": _depth,
    "maxDepth": _depth,
}


def checked(changes: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(changes) - set(_RULES))
    if unknown:
        raise BadInput(f"正则编辑器没有这些字段：{', '.join(unknown)}（unknown fields）")
    return {field: _RULES[field](field, value) for field, value in changes.items()}


def _at(scripts: Sequence[Any], index: int, name: str | None) -> dict[str, Any]:
    if not 0 <= index < len(scripts) or not isinstance(scripts[index], dict):
        raise NotFound(f"卡里没有第 {index + 1} 个正则脚本（no such regex script）")
    script: dict[str, Any] = scripts[index]
    if name is not None and str(script.get("scriptName") or "") != name:
        raise ConflictError("卡里的正则脚本已经变了，请刷新页面（the card changed）")
    return script


def update_script(scripts: Sequence[Any], index: int, changes: Mapping[str, Any],
                  name: str | None = None) -> list[Any]:  # fmt: skip
    """The scripts with script *index* changed; *name* (the name the page saw) guards a stale page."""
    out = copy.deepcopy(list(scripts))
    script = _at(out, index, name)
    script.update(checked(changes))
    return out


def add_script(scripts: Sequence[Any], changes: Mapping[str, Any]) -> list[Any]:
    """The scripts with a new one at the end (a script needs a name, as in the editor)."""
    fields = checked(changes)
    if not str(fields.get("scriptName") or "").strip():
        raise BadInput("正则脚本需要一个名字（a script needs a name）")
    return [*copy.deepcopy(list(scripts)), {**new_script(), **fields}]


def delete_script(scripts: Sequence[Any], index: int, name: str | None = None) -> list[Any]:
    out = copy.deepcopy(list(scripts))
    _at(out, index, name)
    del out[index]
    return out

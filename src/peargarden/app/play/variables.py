"""Chat variables (MVU / TavernHelper) for the fronts: one reply applied to a variables file.

``pear vars apply`` reads a variables record (MVU's ``stat_data``, ``schema``, ``display_data``,
``delta_data``, ``initialized_lorebooks``) or bare ``stat_data`` (then seeded as an ``[initvar]``
entry would seed it: schema generated, extensibility markers read), applies the reply's update
commands, and gives the record after.  The engine is ``peargarden.variables`` (pure); the files are
read here.  ``variables at message N`` of a stored chat waits for variables in the session tree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, FormatError
from peargarden.formats import decode_utf8
from peargarden.variables.initvar import Lorebook, initialize
from peargarden.variables.jsvalues import from_json, json_stringify
from peargarden.variables.update import update_variables
from peargarden.workspace.inputs import read_input

__all__ = ["AppliedReply", "apply_reply", "apply_reply_files", "record_json"]


@dataclass
class AppliedReply:
    """The variables after one reply, the change lines it wrote, and the commands MVU refused."""

    variables: dict[str, Any]
    modified: bool
    changes: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _seeded(stat_data: dict[str, Any]) -> dict[str, Any]:
    """Bare ``stat_data`` made a record the way a new chat's ``[initvar]`` entry would make it."""
    book = Lorebook("vars apply", [{"comment": "[initvar]", "content": json.dumps(stat_data, ensure_ascii=False)}])
    record = initialize(None, [book]).variables
    record["initialized_lorebooks"] = {}
    return record


def apply_reply(variables: Any, reply: str, *, source: str = "variables") -> AppliedReply:
    """``reply``'s update commands applied to ``variables`` (a record or bare ``stat_data``)."""
    if not isinstance(variables, dict):
        raise BadInput("变量文件应是一个 JSON 对象（expected a JSON object）", path=source)
    record = from_json(variables) if "stat_data" in variables else _seeded(from_json(variables))
    result = update_variables(reply, record)
    delta = record.get("delta_data")
    return AppliedReply(record, result.modified, delta if isinstance(delta, dict) else {}, result.warnings)


def apply_reply_files(variables_path: Path, reply_path: Path) -> AppliedReply:
    """``apply_reply`` on two files; a missing or broken file is a ``BadInput`` naming it."""
    raw = decode_utf8(read_input(variables_path), str(variables_path))
    try:
        variables = json.loads(raw)
    except json.JSONDecodeError as error:
        raise FormatError(f"不是有效的 JSON：{error.msg}（第 {error.lineno} 行）", path=variables_path) from None
    reply = decode_utf8(read_input(reply_path), str(reply_path))
    return apply_reply(variables, reply, source=str(variables_path))


def record_json(record: dict[str, Any]) -> str:
    """A variables record as JavaScript writes it (``JSON.stringify(record, null, 2)``: its key order, its numbers)."""
    return json_stringify(record, 2) or "{}"

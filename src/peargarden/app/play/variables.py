"""Chat variables (MVU / TavernHelper) for the fronts: one reply applied to a variables file.

``pear vars apply`` reads a variables record (MVU's ``stat_data``, ``schema``, ``display_data``,
``delta_data``, ``initialized_lorebooks``) or bare ``stat_data`` (then seeded as an ``[initvar]``
entry would seed it: schema generated, extensibility markers read), applies the reply's update
commands, and gives the record after.  With a card (a file, or a card of the library with its
preset), the zod schema its TavernHelper scripts register is applied as MVU applies it (the seed
parsed by it, every command checked against it).  The engine is ``peargarden.variables`` (pure); the files are
read here.  ``variables at message N`` of a stored chat waits for variables in the session tree.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, FormatError, PearError
from peargarden.formats import decode_utf8, read_card
from peargarden.modes.tavern.variables import schema_for
from peargarden.variables.bounds import depth_message, problem
from peargarden.variables.initvar import Lorebook, initialize
from peargarden.variables.jsvalues import from_json, json_stringify
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.update import update_variables
from peargarden.variables.zod_schema import MvuSchema
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.inputs import read_input
from peargarden.workspace.remote_modules import pinned_sources

__all__ = ["AppliedReply", "apply_reply", "apply_reply_files", "card_schema", "folder_schema", "record_json"]


class AppliedReply(msgspec.Struct):
    """The variables after one reply, the change lines it wrote, and the commands MVU refused."""

    variables: dict[str, Any]
    modified: bool
    changes: dict[str, Any] = msgspec.field(default_factory=dict)
    warnings: list[str] = msgspec.field(default_factory=list)


def _seeded(stat_data: dict[str, Any]) -> dict[str, Any]:
    """Bare ``stat_data`` made a record the way a new chat's ``[initvar]`` entry would make it."""
    book = Lorebook("vars apply", [{"comment": "[initvar]", "content": json.dumps(stat_data, ensure_ascii=False)}])
    record = initialize(None, [book]).variables
    record["initialized_lorebooks"] = {}
    return record


def apply_reply(
    variables: Any, reply: str, *, source: str = "variables", schema: MvuSchema | None = None
) -> AppliedReply:
    """``reply``'s update commands applied to ``variables`` (a record or bare ``stat_data``);
    *schema*: a card's registered zod schema."""
    if not isinstance(variables, dict):
        raise BadInput("变量文件应是一个 JSON 对象（expected a JSON object）", path=source)
    too_large = problem(variables.get("stat_data", variables)) or problem(variables, record=True)
    if too_large:
        raise BadInput(f"变量{too_large}，不读", path=source)
    warnings: list[str] = []
    if "stat_data" in variables:
        record = from_json(variables)
    else:
        record = _seeded(from_json(variables))
        if schema is not None:  # a new chat's seed goes through the schema before any reply
            warnings += schema.initialized(record, 0).warnings
    result = update_variables(reply, record, schema=schema)
    delta = record.get("delta_data")
    if isinstance(delta, dict):
        changes: dict[str, Any] = delta
    else:  # a zod card's record keeps no change lines: the changes are the difference
        changes = _changed(variables.get("stat_data", variables), record.get("stat_data")) or {}
    return AppliedReply(record, result.modified, changes, warnings + result.warnings)


def _changed(before: Any, after: Any) -> Any:
    """The leaves that differ, nested like MVU's ``delta_data`` (``{"a": {"b": "old->new"}}``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = {}
        for key in dict.fromkeys([*before, *after]):
            inner = _changed(before.get(key), after.get(key))
            if inner != {}:
                out[key] = inner
        return out
    if before == after:
        return {}
    shown = [json_stringify(value) if value is not None else "（无）" for value in (before, after)]
    return f"{shown[0]}->{shown[1]}"


def card_schema(home: Home, card: str) -> MvuSchema | None:
    """The zod schema registered by *card*: a card file (PNG or JSON), or the name of a library card
    (its preset's scripts too); ``None`` when its scripts register none.  Its scripts get one beat's
    CPU budget for the command."""
    path = Path(card)
    if path.suffix.lower() in (".png", ".json") and path.exists():
        loaded = _guarded(path, read_card, read_input(path), str(path))
        return schema_for(home, loaded.data.get("extensions"), None, ScriptBudget(time.thread_time))
    return folder_schema(open_card(home, card))


def folder_schema(folder: CardFolder) -> MvuSchema | None:
    """The zod schema a library card's scripts (and its preset's) register, as :func:`card_schema`."""
    settings = folder.effective_settings(load_settings(folder.home.config_file))
    extensions = folder.load_card().data.get("extensions")
    return schema_for(folder.home, extensions, settings.preset, ScriptBudget(time.thread_time), pinned_sources(folder))


def _guarded(path: Path, read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except PearError:
        raise
    except ValueError as error:
        raise FormatError(f"读不出角色卡：{error}", path=path) from None


def apply_reply_files(variables_path: Path, reply_path: Path, *, schema: MvuSchema | None = None) -> AppliedReply:
    """``apply_reply`` on two files (and a card's *schema*, :func:`card_schema`); a missing or broken
    file is a ``BadInput`` naming it."""
    raw = decode_utf8(read_input(variables_path), str(variables_path))
    try:
        variables = json.loads(raw)
    except json.JSONDecodeError as error:
        raise FormatError(f"不是有效的 JSON：{error.msg}（第 {error.lineno} 行）", path=variables_path) from None
    except RecursionError:
        raise FormatError(f"变量{depth_message()}，不读", path=variables_path) from None
    reply = decode_utf8(read_input(reply_path), str(reply_path))
    return apply_reply(variables, reply, source=str(variables_path), schema=schema)


def record_json(record: dict[str, Any]) -> str:
    """A variables record as JavaScript writes it (``JSON.stringify(record, null, 2)``: its key order, its numbers)."""
    return json_stringify(record, 2) or "{}"

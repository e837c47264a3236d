"""TavernHelper's variables: ``getVariables``, ``replaceVariables``, ``insertOrAssignVariables``,
``insertVariables``, ``deleteVariable`` (``updateVariablesWith`` runs on the script's side: its
updater is JavaScript).

Where each scope lives (TavernHelper 4.9.3 ``function/variables.ts``, read for behaviour):

- ``chat`` — ``chat_metadata.variables``;
- ``message`` — ``chat[i].variables[swipe_id]``, one table per swipe; ``message_id`` is an index,
  negative from the end, or ``'latest'``/absent: for reading, the newest message that is not hidden,
  for writing simply the last one (TavernHelper's two code paths differ, and so do their error texts);
- ``global`` — ``extension_settings.variables.global``;
- ``character`` — the card's ``data.extensions.tavern_helper.variables``;
- ``script`` — the running script's ``data`` in the card's ``tavern_helper.scripts``;
- ``preset`` — the preset's ``extensions.tavern_helper.variables``;
- ``extension`` — ``extension_settings`` at ``extension_id``.

The recordings (``../shared/tavernhelper``) show what the declarations do not say:
``insertOrAssignVariables`` merges objects deeply and replaces arrays; ``insertVariables`` keeps what
exists; ``deleteVariable`` reports ``delete_occurred: true`` even for a path that did not exist; a
message written for the first time gets one table per swipe.
"""

from __future__ import annotations

from typing import Any

from peargarden.variables import lodash
from peargarden.variables.jsvalues import UNDEFINED, clone, is_plain_object

from . import card_settings
from .host import ScriptError, ScriptHost

TYPES = ("chat", "message", "global", "character", "script", "preset", "extension")


def _option(option: Any) -> dict[str, Any]:
    if option is None or option is UNDEFINED:
        return {"type": "chat"}
    if not isinstance(option, dict):
        raise ScriptError(f"变量选项必须是对象，你提供的是: {option!r}")
    if option.get("type") not in TYPES:
        raise ScriptError(f"不支持的变量类型 '{option.get('type')}'，可用: {', '.join(TYPES)}")
    return option


def _js_id(value: Any) -> str:
    """The message id as a template string prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "undefined" if value is None else str(value)


def _message_index(chat: list[dict[str, Any]], message_id: Any) -> int:
    if isinstance(message_id, bool) or not isinstance(message_id, int | float):
        raise ScriptError(f"提供的消息楼层号 '{_js_id(message_id)}' 超出了范围 [{-len(chat)}, {len(chat)})")
    return int(message_id)


def _read_message(chat: list[dict[str, Any]], message_id: Any) -> dict[str, Any]:
    latest = message_id in (None, UNDEFINED, "latest")
    index = -1 if latest else _message_index(chat, message_id)
    if not -len(chat) <= index < len(chat):
        shown = "latest" if message_id == "latest" else _js_id(message_id)
        raise ScriptError(f"提供的消息楼层号 '{shown}' 超出了范围 [{-len(chat)}, {len(chat)})")
    if latest:
        visible = [m for m in chat if not m.get("is_system")]
        return visible[index] if visible else {}
    return chat[index]


def _swipe(message: dict[str, Any]) -> int:
    swipe_id = message.get("swipe_id")
    return int(swipe_id) if isinstance(swipe_id, int | float) and not isinstance(swipe_id, bool) else 0


def _swipe_count(message: dict[str, Any]) -> int:
    swipes = message.get("swipes")
    return len(swipes) if isinstance(swipes, list) else 1


def per_swipe_tables(message: dict[str, Any]) -> list[Any]:
    """``message.variables`` as TavernHelper writes it: a list, one table per swipe.  The prompt
    template extension keeps one object instead; TavernHelper turns it into the list."""
    tables = message.get("variables")
    if isinstance(tables, dict):
        tables = [tables.get(str(i), {}) for i in range(_swipe_count(message))]
        message["variables"] = tables
    elif not isinstance(tables, list):
        tables = [{} for _ in range(_swipe_count(message))]
        message["variables"] = tables
    return tables


def _script_entry(host: ScriptHost, script_id: str) -> dict[str, Any] | None:
    helper = host.tavern_helper() or {}
    scripts = helper.get("scripts")
    for script in scripts if isinstance(scripts, list) else []:
        if isinstance(script, dict) and script.get("id") == script_id:
            return script
    return None


def read(host: ScriptHost, option: Any, script_id: str | None) -> Any:
    """The table of one scope as it is stored (not copied)."""
    option = _option(option)
    kind = option["type"]
    if kind == "message":
        message = _read_message(host.chat, option.get("message_id"))
        tables = message.get("variables")
        table = _at(tables, _swipe(message))
        return {} if table is None or table is UNDEFINED else table
    if kind == "chat":
        found = host.chat_metadata.get("variables", UNDEFINED)
        return {} if found is UNDEFINED else found
    if kind == "global":
        return host.global_variables()
    if kind == "character":
        helper = host.tavern_helper()
        return (helper or {}).get("variables", {})
    if kind == "preset":
        preset = host.preset_tavern_helper()
        return (preset or {}).get("variables", {})
    if kind == "script":
        script_id = option.get("script_id") or script_id
        if not script_id:
            raise ScriptError("获取变量失败, 未指定 script_id")
        script = _script_entry(host, str(script_id))
        data = script.get("data") if script is not None else None
        return data if data is not None else {}
    found = lodash.get(host.extension_settings(), str(option.get("extension_id", "")), UNDEFINED)
    return {} if found is UNDEFINED else found


def _at(tables: Any, index: int) -> Any:
    if isinstance(tables, list):
        return tables[index] if 0 <= index < len(tables) else None
    if isinstance(tables, dict):
        return tables.get(str(index))
    return None


def get(host: ScriptHost, option: Any, script_id: str | None) -> Any:
    """``getVariables``: a copy of the scope's table."""
    return clone(read(host, option, script_id))


def replace(host: ScriptHost, variables: Any, option: Any, script_id: str | None) -> None:
    """``replaceVariables``: the scope's table becomes ``variables``."""
    option = _option(option)
    kind = option["type"]
    if kind == "message":
        message_id = option.get("message_id")
        latest = message_id in (None, UNDEFINED, "latest")
        index = -1 if latest else _message_index(host.chat, message_id)
        chat = host.chat
        if not -len(chat) <= index < len(chat):
            # This path prints the id after 'latest' became -1, in round brackets (as TavernHelper does).
            raise ScriptError(f"提供的消息楼层号 '{index}' 超出了范围 ({-len(chat)}, {len(chat)})")
        message = chat[index]
        tables = per_swipe_tables(message)
        swipe = _swipe(message)
        while len(tables) <= swipe:  # lodash's set pads with holes, which JSON reads as null
            tables.append(None)
        tables[swipe] = variables
        host.changed("chat")
    elif kind == "chat":
        host.chat_metadata["variables"] = variables
        host.changed("chat_metadata")
    elif kind == "global":
        host.set_global_variables(variables)
        host.changed("globals")
    elif kind == "character":
        helper = host.tavern_helper()
        if helper is None:
            raise ScriptError("当前没有打开角色卡，保存角色卡变量失败")
        helper["variables"] = variables
        card_settings.saved(helper)
        host.changed("character")
    elif kind == "preset":
        preset = host.preset_tavern_helper()
        if preset is None:
            raise ScriptError("当前没有可以保存变量的预设")
        preset["variables"] = variables
        host.changed("preset")
    elif kind == "script":
        script_id = option.get("script_id") or script_id
        if not script_id:
            raise ScriptError("保存变量失败, 未指定 script_id")
        script = _script_entry(host, str(script_id))
        if script is not None:
            script["data"] = variables
            card_settings.saved(host.tavern_helper() or {})
            host.changed("character")
    else:
        lodash.set_(host.extension_settings(), str(option.get("extension_id", "")), variables)
        host.changed("globals")


def _update(host: ScriptHost, option: Any, script_id: str | None, change: Any) -> Any:
    """``updateVariablesWith`` with a Python updater: read a copy, change it, store it."""
    result = change(get(host, option, script_id))
    replace(host, result, option, script_id)
    return clone(result)


def _keep_arrays(_current: Any, incoming: Any) -> Any:
    return incoming if isinstance(incoming, list) else UNDEFINED


def insert_or_assign(host: ScriptHost, variables: Any, option: Any, script_id: str | None) -> Any:
    """``insertOrAssignVariables``: merged in, objects deeply, arrays replaced; the new table."""
    return _update(host, option, script_id, lambda old: lodash.merge(old, variables, customizer=_keep_arrays))


def insert(host: ScriptHost, variables: Any, option: Any, script_id: str | None) -> Any:
    """``insertVariables``: only what is missing is added (the old values win); the new table."""
    return _update(
        host, option, script_id, lambda old: lodash.merge({}, clone(variables), old, customizer=_keep_arrays)
    )


def delete(host: ScriptHost, path: Any, option: Any, script_id: str | None) -> dict[str, Any]:
    """``deleteVariable``: ``{variables, delete_occurred}``; lodash's ``unset`` says true even when
    there was nothing to delete."""
    occurred = False

    def change(old: Any) -> Any:
        nonlocal occurred
        occurred = lodash.unset(old, str(path)) if is_plain_object(old) or isinstance(old, list) else True
        return old

    variables = _update(host, option, script_id, change)
    return {"variables": variables, "delete_occurred": occurred}


__all__ = ["TYPES", "delete", "get", "insert", "insert_or_assign", "per_swipe_tables", "read", "replace"]

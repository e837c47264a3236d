"""TavernHelper's API, one implementation for every place a card's script runs.

A call arrives by its TavernHelper name with its arguments as JSON values (``undefined`` members
absent) and the id of the script that made it; it returns a JSON value (``UNDEFINED`` for
``undefined``) or raises :class:`~.host.ScriptError`, which the script receives as an ``Error``.
``SYNC`` functions answer at once (TavernHelper returns their value directly); ``ASYNC`` ones return
a promise in TavernHelper, and the runtime runs them when the script's side is idle, so that what
they do — a generation, new messages, their events — happens between the script's turns as in a
browser.  Functions TavernHelper builds from others with a JavaScript callback
(``updateVariablesWith``, ``updateWorldbookWith``, ``eventOn``…) live in the runtime's prelude.

``REFUSED`` names the functions a script may call that are not carried over, each with the reason a
script's error (and ``docs/variables.md``) gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from peargarden.text.macros import string_hash
from peargarden.variables.jsvalues import UNDEFINED, clone

from . import card_settings, messages, variables, worldbooks
from .host import Emit, GenerateRequest, ScriptError, ScriptHost
from .injected import checked

TAVERN_HELPER_VERSION = "4.9.3"  # the release whose behaviour this follows (JS-Slash-Runner @ c62cdc3)
TAVERN_VERSION = "1.18.0"

Handler = Callable[["TavernHelperApi", list[Any], str | None], Any]

_PAGE = "需要网页（pear serve 的聊天页）"
REFUSED: dict[str, str] = {
    **dict.fromkeys(
        [
            "audioEnable",
            "audioImport",
            "audioMode",
            "audioPlay",
            "audioSelect",
            "playAudio",
            "pauseAudio",
            "getAudioList",
            "replaceAudioList",
            "appendAudioList",
            "getAudioSettings",
            "setAudioSettings",
            "getCurrentAudio",
        ],
        "音频播放" + _PAGE,
    ),
    **dict.fromkeys(["retrieveDisplayedMessage", "reloadIframe"], "网页元素" + _PAGE),
    **dict.fromkeys(
        [
            "createCharacter",
            "createOrReplaceCharacter",
            "deleteCharacter",
            "replaceCharacter",
            "updateCharacterWith",
            "createPreset",
            "createOrReplacePreset",
            "deletePreset",
            "renamePreset",
            "replacePreset",
            "updatePresetWith",
            "setPreset",
            "loadPreset",
            "createPersona",
            "createOrReplacePersona",
            "deletePersona",
            "replacePersona",
            "updatePersonaWith",
            "importRawCharacter",
            "importRawPreset",
            "importRawChat",
            "importRawWorldbook",
            "importRawTavernRegex",
            "replaceTavernRegexes",
            "updateTavernRegexesWith",
            "replaceScriptTrees",
            "updateScriptTreesWith",
        ],
        "脚本不能改写角色卡、预设、人设、正则或脚本库：这些文件只由梨园自己的编辑和导入改写",
    ),
    **dict.fromkeys(
        [
            "installExtension",
            "uninstallExtension",
            "reinstallExtension",
            "updateExtension",
            "updateTavernHelper",
            "updateFrontendVersion",
        ],
        "梨园没有 SillyTavern 扩展可以安装或更新",
    ),
    **dict.fromkeys(["getModelList", "getProxyPresetNames"], "脚本不能查看或改用连接：生成一律走当前聊天的连接"),
    **dict.fromkeys(
        ["registerMacroLike", "unregisterMacroLike", "registerVariableSchema"],
        "宏和变量结构在提示词组装时由 Python 展开，不能回调脚本里的 JavaScript 函数",
    ),
    **dict.fromkeys(
        [
            "getLorebookEntries",
            "replaceLorebookEntries",
            "updateLorebookEntriesWith",
            "setLorebookEntries",
            "createLorebookEntries",
            "createLorebookEntry",
            "deleteLorebookEntries",
            "deleteLorebookEntry",
            "getLorebookSettings",
            "setLorebookSettings",
            "getCharLorebooks",
            "setCurrentCharLorebooks",
            "getLorebooks",
            "deleteLorebook",
            "createLorebook",
            "getCurrentCharPrimaryLorebook",
            "getChatLorebook",
            "setChatLorebook",
            "getOrCreateChatLorebook",
        ],
        "旧的 Lorebook 函数已被 TavernHelper 弃用：请用 getWorldbook / replaceWorldbook 等 Worldbook 函数",
    ),
    **dict.fromkeys(
        ["rebindGlobalWorldbooks", "rebindCharWorldbooks", "rebindChatWorldbook", "getOrCreateChatWorldbook"],
        "脚本不能改绑世界书：绑定由玩家在梨园里设置",
    ),
    **dict.fromkeys(
        [
            "RawCharacter",
            "builtin",
            "default_preset",
            "getCharacter",
            "getCharAvatarPath",
            "getChatHistoryBrief",
            "getChatHistoryDetail",
            "getPreset",
            "getPresetNames",
            "getLoadedPresetName",
            "isPresetNormalPrompt",
            "isPresetPlaceholderPrompt",
            "isPresetSystemPrompt",
            "getPersona",
            "getPersonaIds",
            "getCurrentPersonaId",
            "getPersonaAvatarPath",
            "getTavernRegexes",
            "isCharacterTavernRegexesEnabled",
            "formatAsTavernRegexedString",
            "isAdmin",
            "getExtensionType",
            "getExtensionStatus",
            "isInstalledExtension",
        ],
        "还没有实现（读取角色卡、预设、人设、正则或扩展的信息）",
    ),
}


def _arg(args: list[Any], index: int) -> Any:
    return args[index] if index < len(args) else UNDEFINED


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScriptError(f"{name} 必须是数字，你提供的是: {value!r}")
    return int(value)


class TavernHelperApi:
    """The API over one host.  ``emit`` runs the scripts' listeners of a tavern event to the end;
    ``pick`` draws ``random(0, n-1)`` where TavernHelper draws at random (a world-book uid)."""

    def __init__(self, host: ScriptHost, emit: Emit, *, pick: Callable[[int], int] | None = None) -> None:
        self.host = host
        self.emit = emit
        self.pick = pick or (lambda n: 0)

    # -- dispatch ----------------------------------------------------------------------------------

    def call(self, name: str, args: list[Any], script_id: str | None) -> Any:
        """Run one function (``SYNC`` or ``ASYNC``); an unknown or refused name is a ``ScriptError``."""
        handler = SYNC.get(name) or ASYNC.get(name)
        if handler is None:
            reason = REFUSED.get(name)
            raise ScriptError(f"{name} 不可用：{reason}" if reason else f"TavernHelper 没有 {name} 这个函数")
        return handler(self, args, script_id)

    # -- helpers -----------------------------------------------------------------------------------

    def script(self, script_id: str | None) -> dict[str, Any]:
        helper = self.host.tavern_helper() or {}
        for script in helper.get("scripts") or []:
            if isinstance(script, dict) and script.get("id") == script_id:
                return script
        return {}

    def expand(self, text: str) -> str:
        return self.host.expand_macros(text)

    def last_message_id(self) -> int:
        text = self.expand("{{lastMessageId}}").strip()
        try:
            return int(float(text)) if text else 0
        except ValueError:
            return 0


# -- the functions -----------------------------------------------------------------------------------


def _get_variables(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return variables.get(api.host, _arg(args, 0), script)


def _replace_variables(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    variables.replace(api.host, clone(_arg(args, 0)), _arg(args, 1), script)
    return UNDEFINED


def _insert_or_assign(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return variables.insert_or_assign(api.host, clone(_arg(args, 0)), _arg(args, 1), script)


def _insert(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return variables.insert(api.host, clone(_arg(args, 0)), _arg(args, 1), script)


def _delete(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return variables.delete(api.host, _arg(args, 0), _arg(args, 1), script)


def _all_variables(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    merged: dict[str, Any] = {}
    for option in ({"type": "global"}, {"type": "character"}, {"type": "script"}, {"type": "chat"}):
        table = variables.read(api.host, option, script)
        if isinstance(table, dict):
            merged.update(table)
    return clone(merged)


def _get_chat_messages(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    range_value = _arg(args, 0)
    text = str(int(range_value)) if isinstance(range_value, int | float) else str(range_value)
    return messages.get_chat_messages(api.host.chat, text, _arg(args, 1), api.expand)


def _set_chat_messages(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    touched = messages.set_chat_messages(api.host.chat, clone(_arg(args, 0)))
    api.host.changed("chat")
    options = _arg(args, 1)
    refresh = options.get("refresh", "affected") if isinstance(options, dict) else "affected"
    if refresh == "affected":  # refreshOneMessage draws each changed message again
        for index in touched:
            if 0 <= index < len(api.host.chat):
                user = bool(api.host.chat[index].get("is_user"))
                api.emit("user_message_rendered" if user else "character_message_rendered", [index])
    return UNDEFINED


def _create_chat_messages(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    names = (api.host.user_name, api.host.char_name)
    messages.create_chat_messages(api.host.chat, clone(_arg(args, 0)), _arg(args, 1), names, api.emit)
    api.host.changed("chat")
    return UNDEFINED


def _delete_chat_messages(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    if messages.delete_chat_messages(api.host.chat, _arg(args, 0)):
        api.host.changed("chat")
    return UNDEFINED


def _rotate_chat_messages(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    messages.rotate_chat_messages(api.host.chat, _arg(args, 0), _arg(args, 1), _arg(args, 2))
    api.host.changed("chat")
    return UNDEFINED


def _last_message_id(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.last_message_id()


def _substitude_macros(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.expand(str(_arg(args, 0)))


def _trigger_slash(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    command = str(_arg(args, 0))
    outcome = api.host.run_slash(command)
    if outcome.thrown is not None:
        raise ScriptError(outcome.thrown)
    if outcome.error is not None:
        raise ScriptError(f"运行 Slash 命令 '{command}' 时出错: {outcome.error}")
    return outcome.pipe


def _format_displayed(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    options = _arg(args, 1)
    wanted = options.get("message_id", "last") if isinstance(options, dict) else "last"
    chat = api.host.chat
    if not isinstance(wanted, int | float) and wanted not in ("last", "last_user", "last_char"):
        raise ScriptError(
            "提供的 message_id 无效, 请提供 'last', 'last_user', 'last_char' 或楼层消息号 "
            f"(-1 表示倒数第一楼), 你提供的是: {wanted}"
        )
    if not chat:
        raise ScriptError("未找到任何消息楼层")
    last = len(chat) - 1
    if wanted in ("last_user", "last_char"):
        user = wanted == "last_user"
        found = [i for i, m in enumerate(chat) if bool(m.get("is_user")) == user and not m.get("is_system")]
        if not found:
            kind = "user" if user else "char"
            raise ScriptError(f"未找到任何 {kind} 消息楼层, 你提供的是: {wanted}")
        index = found[-1]
    else:
        index = last if wanted == "last" else int(wanted)
    if index < 0:
        index += len(chat)
    if not 0 <= index < len(chat):
        raise ScriptError(f"提供的 message_id 不在 [{-last - 1}, {last}] 内, 你提供的是: {wanted}")
    return api.host.format_message(str(_arg(args, 0)), index)


def _generate_request(config: Any, *, raw: bool) -> GenerateRequest:
    if config is UNDEFINED or config is None:
        config = {}
    if not isinstance(config, dict):
        raise ScriptError("generate 需要一个配置对象")
    if config.get("custom_api"):
        raise ScriptError("custom_api 不可用：脚本不能改用别的连接，生成一律走当前聊天的连接")
    if config.get("image"):
        raise ScriptError("image 不可用：梨园的脚本生成还不能附带图片")
    if config.get("tools") or config.get("json_schema"):
        raise ScriptError("tools / json_schema 不可用：梨园的脚本生成只返回文本")
    if not raw and config.get("preset_name") not in (None, "in_use"):
        raise ScriptError("preset_name 不可用：脚本生成只用当前聊天的预设")
    history = config.get("max_chat_history")
    overrides = config.get("overrides")
    return GenerateRequest(
        user_input=str(config.get("user_input") or ""),
        use_preset=not raw,
        stream=bool(config.get("should_stream", False)),
        max_chat_history=int(history) if isinstance(history, int | float) and not isinstance(history, bool) else None,
        order=config.get("ordered_prompts") if raw and isinstance(config.get("ordered_prompts"), list) else None,
        overrides=overrides if isinstance(overrides, dict) else None,
        injects=[i for i in config.get("injects") or [] if isinstance(i, dict)],
        generation_id=str(config.get("generation_id") or ""),
    )


def _generate(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.host.generate(_generate_request(_arg(args, 0), raw=False), api.emit)


def _generate_raw(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.host.generate(_generate_request(_arg(args, 0), raw=True), api.emit)


def _stop(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    # A generation runs to its end before the script's side runs again: none is ever in flight here.
    return False


def _script_name(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return str(api.script(script).get("name") or "")


def _script_id(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    if not script:
        raise ScriptError("你只能在脚本 iframe 内获取 getScriptId!")
    return script


def _script_info(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return str(api.script(script).get("info") or "")


def _replace_script_info(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    entry = api.script(script)
    if entry:
        entry["info"] = str(_arg(args, 0))
        card_settings.saved(api.host.tavern_helper() or {})
        api.host.changed("character")
    return UNDEFINED


def _buttons(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    button = api.script(script).get("button")
    buttons = button.get("buttons") if isinstance(button, dict) else None
    return clone(buttons) if isinstance(buttons, list) else []


def _replace_buttons(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    entry = api.script(script)
    wanted = _arg(args, 1) if isinstance(_arg(args, 0), str) else _arg(args, 0)
    if entry and isinstance(wanted, list):
        button = entry.get("button") if isinstance(entry.get("button"), dict) else None
        if button is None:
            button = entry["button"] = {"enabled": True, "buttons": []}
        if button.get("buttons") != wanted:
            button["buttons"] = clone(wanted)
            card_settings.saved(api.host.tavern_helper() or {})
            api.host.changed("character")
    return UNDEFINED


def _button_event(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return f"{script}_{string_hash(str(_arg(args, 0)))}"


def _iframe_name(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return f"TH-script--{api.script(script).get('name') or ''}--{script}"


def _current_message_id(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    name = _iframe_name(api, args, script)
    raise ScriptError(f"获取 {name} 所在楼层 id 时出错: 不要对全局脚本 iframe 调用 getMessageId!")


def _worldbook_names(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return list(api.host.world_names())


def _global_worldbook_names(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return list(api.host.global_worlds())


def _char_worldbook_names(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    name = _arg(args, 0)
    if name not in ("current", api.host.char_name):
        return {"primary": None, "additional": []}
    primary, additional = api.host.character_worlds()
    return {"primary": primary, "additional": list(additional)}


def _chat_worldbook_name(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    if _arg(args, 0) != "current":
        raise ScriptError("目前不支持对非当前聊天调用 getChatWorldbookName")
    return api.host.chat_world()


def _get_worldbook(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return worldbooks.get_worldbook(api.host, _arg(args, 0))


def _replace_worldbook(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    worldbooks.replace_worldbook(api.host, _arg(args, 0), clone(_arg(args, 1)), api.pick)
    return UNDEFINED


def _create_worldbook(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    entries = _arg(args, 1)
    given = [] if entries is UNDEFINED else clone(entries)
    return worldbooks.create_worldbook(api.host, _arg(args, 0), given, api.pick)


def _create_or_replace_worldbook(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    entries = _arg(args, 1)
    return worldbooks.write_worldbook(
        api.host, str(_arg(args, 0)), [] if entries is UNDEFINED else clone(entries), api.pick
    )


def _delete_worldbook(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    deleted = api.host.delete_world(str(_arg(args, 0)))
    if deleted:
        api.host.changed(f"world:{_arg(args, 0)}")
    return deleted


def _refresh_one_message(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    index = _int(_arg(args, 0), "message_id")
    if 0 <= index < len(api.host.chat):
        user = bool(api.host.chat[index].get("is_user"))
        api.emit("user_message_rendered" if user else "character_message_rendered", [index])
    return UNDEFINED


def _inject(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    given = checked(_arg(args, 0))  # text only, bounded: the page's frames and QuickJS alike
    options = _arg(args, 1)
    once = bool(options.get("once")) if isinstance(options, dict) else False
    api.host.inject(given, once=once)
    # The returned object's ``uninject`` is made on the script's side (it names these ids).
    return [p["id"] for p in given]


def _uninject(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    ids = _arg(args, 0)
    api.host.uninject([str(i) for i in ids] if isinstance(ids, list) else [])
    return UNDEFINED


def _char_name(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.host.char_name or None


def _char_names(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    # A script sees its own card only: the library's other cards are not its to read.
    return [api.host.char_name]


def _char_ids(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return [api.host.character_id]


def _char_id(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.host.character_id


def _char_data(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    name = _arg(args, 0)
    if name in (None, UNDEFINED, "", "current", api.host.char_name):
        return clone(api.host.character())
    return None


def _user_name(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    return api.host.user_name


def _message_id(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    name = str(_arg(args, 0))
    match = re.match(r"^TH-message--(\d+)--\d+(_\d+)?$", name)
    if not match:
        raise ScriptError(f"获取 {name} 所在楼层 id 时出错: 不要对全局脚本 iframe 调用 getMessageId!")
    return int(match.group(1))


def _script_trees(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    option = _arg(args, 0)
    kind = option.get("type") if isinstance(option, dict) else None
    if kind != "character":
        return []  # no global or preset scripts are kept
    return clone((api.host.tavern_helper() or {}).get("scripts") or [])


def _enabled_buttons(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    out: dict[str, Any] = {}
    for entry in _card_scripts(api.host.tavern_helper() or {}):
        found = entry.get("button")
        button: dict[str, Any] = found if isinstance(found, dict) else {}
        shown = [b for b in button.get("buttons") or [] if isinstance(b, dict) and b.get("visible")]
        if entry.get("enabled") and button.get("enabled", True) and shown:
            script_id = str(entry.get("id"))
            out[script_id] = [{"button_id": f"{script_id}_{string_hash(str(b.get('name')))}",
                               "button_name": b.get("name")} for b in shown]  # fmt: skip
    return out


def _card_scripts(helper: dict[str, Any]) -> list[dict[str, Any]]:
    """The card's scripts, folders opened (an enabled folder's scripts only)."""
    out: list[dict[str, Any]] = []
    for item in helper.get("scripts") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "folder":
            if item.get("enabled"):
                out.extend(s for s in item.get("scripts") or [] if isinstance(s, dict))
        else:
            out.append(item)
    return out


def _context(api: TavernHelperApi, args: list[Any], script: str | None) -> Any:
    """What ``SillyTavern.getContext()`` gives a script, as far as scripts read it: the chat as
    SillyTavern holds it (a copy), the names, the chat's metadata."""
    return {
        "chat": clone(api.host.chat),
        "chatMetadata": clone(api.host.chat_metadata),
        "name1": api.host.user_name,
        "name2": api.host.char_name,
        "characterId": 0,
        "groupId": None,
        "mainApi": "openai",
    }


def _version(value: str) -> Handler:
    return lambda api, args, script: value


SYNC: dict[str, Handler] = {
    "getVariables": _get_variables,
    "replaceVariables": _replace_variables,
    "insertOrAssignVariables": _insert_or_assign,
    "insertVariables": _insert,
    "deleteVariable": _delete,
    "getAllVariables": _all_variables,
    "getChatMessages": _get_chat_messages,
    "getLastMessageId": _last_message_id,
    "substitudeMacros": _substitude_macros,
    "formatAsDisplayedMessage": _format_displayed,
    "stopGenerationById": _stop,
    "stopAllGeneration": _stop,
    "getScriptName": _script_name,
    "getScriptId": _script_id,
    "getScriptInfo": _script_info,
    "replaceScriptInfo": _replace_script_info,
    "getScriptButtons": _buttons,
    "replaceScriptButtons": _replace_buttons,
    "getButtonEvent": _button_event,
    "getIframeName": _iframe_name,
    "getCurrentMessageId": _current_message_id,
    "getWorldbookNames": _worldbook_names,
    "getGlobalWorldbookNames": _global_worldbook_names,
    "getCharWorldbookNames": _char_worldbook_names,
    "getChatWorldbookName": _chat_worldbook_name,
    "_injectPrompts": _inject,  # injectPrompts (the prelude gives back its ``{uninject}``)
    "uninjectPrompts": _uninject,
    "getCurrentCharacterName": _char_name,
    "getCharacterNames": _char_names,
    "getCharacterIds": _char_ids,
    "getCurrentCharacterId": _char_id,
    "getCharData": _char_data,
    "getPersonaNames": lambda api, args, script: [api.host.user_name],
    "getCurrentPersonaName": _user_name,
    "getMessageId": _message_id,
    "getScriptTrees": _script_trees,
    "getAllEnabledScriptButtons": _enabled_buttons,
    "getTavernHelperExtensionId": _version("JS-Slash-Runner"),
    "getTavernHelperVersion": _version(TAVERN_HELPER_VERSION),
    "getFrontendVersion": _version(TAVERN_HELPER_VERSION),
    "getTavernVersion": _version(TAVERN_VERSION),
    "_getContext": _context,  # SillyTavern.getContext() (the prelude adds the event names)
}

ASYNC: dict[str, Handler] = {
    "setChatMessages": _set_chat_messages,
    "createChatMessages": _create_chat_messages,
    "deleteChatMessages": _delete_chat_messages,
    "rotateChatMessages": _rotate_chat_messages,
    "refreshOneMessage": _refresh_one_message,
    "triggerSlash": _trigger_slash,
    "triggerSlashWithResult": _trigger_slash,
    "generate": _generate,
    "generateRaw": _generate_raw,
    "getWorldbook": _get_worldbook,
    "replaceWorldbook": _replace_worldbook,
    "createWorldbook": _create_worldbook,
    "createOrReplaceWorldbook": _create_or_replace_worldbook,
    "deleteWorldbook": _delete_worldbook,
}


# SillyTavern 1.18's ``event_types`` as TavernHelper hands them to scripts (``tavern_events``), and its
# own frame events (``iframe_events``): one table for the command line's scripts and the page's.
TAVERN_EVENTS = {
    "APP_READY": "app_ready", "MESSAGE_SWIPED": "message_swiped", "MESSAGE_SENT": "message_sent",
    "MESSAGE_RECEIVED": "message_received", "MESSAGE_EDITED": "message_edited", "MESSAGE_DELETED": "message_deleted",
    "MESSAGE_UPDATED": "message_updated", "MESSAGE_SWIPE_DELETED": "message_swipe_deleted",
    "IMPERSONATE_READY": "impersonate_ready", "CHAT_CHANGED": "chat_id_changed",
    "GENERATION_AFTER_COMMANDS": "GENERATION_AFTER_COMMANDS", "GENERATION_STARTED": "generation_started",
    "GENERATION_STOPPED": "generation_stopped", "GENERATION_ENDED": "generation_ended",
    "SETTINGS_UPDATED": "settings_updated", "WORLDINFO_UPDATED": "worldinfo_updated",
    "CHARACTER_EDITED": "character_edited", "USER_MESSAGE_RENDERED": "user_message_rendered",
    "CHARACTER_MESSAGE_RENDERED": "character_message_rendered", "CHAT_DELETED": "chat_deleted",
    "CHAT_CREATED": "chat_created", "GENERATE_BEFORE_COMBINE_PROMPTS": "generate_before_combine_prompts",
    "GENERATE_AFTER_COMBINE_PROMPTS": "generate_after_combine_prompts", "GENERATE_AFTER_DATA": "generate_after_data",
    "WORLD_INFO_ACTIVATED": "world_info_activated", "CHAT_COMPLETION_SETTINGS_READY": "chat_completion_settings_ready",
    "CHAT_COMPLETION_PROMPT_READY": "chat_completion_prompt_ready",
    "CHARACTER_FIRST_MESSAGE_SELECTED": "character_first_message_selected",
    "STREAM_TOKEN_RECEIVED": "stream_token_received", "STREAM_REASONING_DONE": "stream_reasoning_done",
    "WORLDINFO_SCAN_DONE": "worldinfo_scan_done", "TOOL_CALLS_PERFORMED": "tool_calls_performed",
    "PRESET_CHANGED": "preset_changed",
    # A group chat's: its round (``generateGroupWrapper``) and each speaker's turn in it.
    "GROUP_UPDATED": "group_updated", "GROUP_MEMBER_DRAFTED": "group_member_drafted",
    "GROUP_WRAPPER_STARTED": "group_wrapper_started", "GROUP_WRAPPER_FINISHED": "group_wrapper_finished",
}  # fmt: skip
IFRAME_EVENTS = {
    "MESSAGE_IFRAME_RENDER_STARTED": "message_iframe_render_started",
    "MESSAGE_IFRAME_RENDER_ENDED": "message_iframe_render_ended",
    "GENERATION_STARTED": "js_generation_started",
    "STREAM_TOKEN_RECEIVED_FULLY": "js_stream_token_received_fully",
    "STREAM_TOKEN_RECEIVED_INCREMENTALLY": "js_stream_token_received_incrementally",
    "GENERATION_ENDED": "js_generation_ended",
}


def exported() -> dict[str, Any]:
    """What the script's side defines: the names answered at once, those answered later, the refused,
    and the event names (``tavern_events``, ``iframe_events``)."""
    public = sorted(name for name in SYNC if not name.startswith("_"))
    return {"sync": public, "async": sorted(ASYNC), "refused": dict(sorted(REFUSED.items())),
            "tavern_events": dict(TAVERN_EVENTS), "iframe_events": dict(IFRAME_EVENTS)}  # fmt: skip


__all__ = [
    "ASYNC",
    "IFRAME_EVENTS",
    "REFUSED",
    "SYNC",
    "TAVERN_EVENTS",
    "TAVERN_HELPER_VERSION",
    "TavernHelperApi",
    "exported",
]

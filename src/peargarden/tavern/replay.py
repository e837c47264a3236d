"""Replaying an oracle case: SillyTavern settings + card + chat + steps → the last request body.

The case files are read by the caller (CLI or tests) and passed in as :class:`CaseData`; the
replay itself is pure.  Steps: ``send`` (a typed message, or a slash command when it starts with
``/``), ``slash``, ``regenerate``, ``swipe``, ``continue``, ``impersonate`` and ``ui`` (a user
action in words: importing the card's embedded book, answering the embedded-regex popup).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from peargarden.text.jsstring import js_trim
from peargarden.text.macros import chat_id_hash, substitute
from peargarden.text.regex_scripts import Placement
from peargarden.text.tokens import TextCounter
from peargarden.worldinfo.sources import character_book_to_world

from . import defaults as d
from .assemble import Assembly, Generation, generate
from .request import request_body
from .state import TavernState, apply_preset, deep_merge, effective_settings
from .version import case_version, for_version, normalize_version


class CaseData(msgspec.Struct):
    settings: dict[str, Any]  # the case's settings.json (steps, st_settings_overrides, …)
    card: dict[str, Any]
    preset: dict[str, Any] | None = None
    chat_header: dict[str, Any] | None = None
    chat: list[dict[str, Any]] | None = None  # None: ST creates a new chat from the greeting
    worlds: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    # A group case: the group file, and its members' cards by avatar file name (``card`` is then
    # the first member's).  Replayed by ``peargarden.tavern.group_replay.replay_group``.
    group: dict[str, Any] | None = None
    members: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)


class ReplayResult(msgspec.Struct):
    body: dict[str, Any] | None
    assembly: Assembly | None
    state: TavernState
    warnings: list[str]
    generations: list[dict[str, Any]] = msgspec.field(default_factory=list)  # every request body, in order
    assemblies: list[Assembly] = msgspec.field(default_factory=list)  # and the assembly of each


def build_state(case: CaseData, counter: TextCounter | None = None, *, version: str | None = None) -> TavernState:
    """The state SillyTavern had when the case's steps began.

    ``version`` overrides the one the case's ``settings.json`` names (``sillytavern.version``);
    1.18 cases may add ``st118_extra_overrides`` on top of ``st_settings_overrides``.
    """
    state = settings_state(case, counter, version=version)
    # {{pick}} seeds from getChatIdHash: the stored chat_id_hash, else the hash of main_chat ?? the
    # chat's id (the card's ``chat`` field names the chat file ST opens, or creates for a new chat).
    chat_id = state.chat_metadata.get("main_chat")
    if chat_id is None:
        chat_id = state.card.get("chat")
    state.chat_id_hash = chat_id_hash(chat_id)
    if case.chat is None:
        start_new_chat(state)
    restore_script_injects(state)
    return state


def settings_state(case: CaseData, counter: TextCounter | None = None, *, version: str | None = None) -> TavernState:
    """The case's settings, preset, card, chat and books as a state (no chat created yet)."""
    st_version = normalize_version(version) if version else case_version(case.settings)
    overrides = case.settings.get("st_settings_overrides") or {}
    overrides = overrides if isinstance(overrides, dict) else {}
    extra = case.settings.get("st118_extra_overrides")
    if isinstance(extra, dict):
        overrides = deep_merge(overrides, extra)
    st = effective_settings(overrides, st_version)
    oai = st["oai_settings"]
    if case.preset is not None:
        name = str(case.settings.get("preset_name") or "Oracle")
        oai = apply_preset(oai, case.preset, version=st_version, name=name)
    power_user = st["power_user"]
    user_avatar = str(st.get("user_avatar") or "user-default.png")
    personas = power_user.get("personas") if isinstance(power_user.get("personas"), dict) else {}
    # ST sets name1 from settings.username at load; the persona map is only a fallback here.
    user_name = str(st.get("username") or personas.get(user_avatar) or "User")
    card = copy.deepcopy(case.card)
    char_name = str(card.get("name") or (card.get("data") or {}).get("name") or "")
    avatar = str(case.settings.get("character_file") or f"{char_name}.png")
    header = case.chat_header or {}
    metadata = copy.deepcopy(header.get("chat_metadata") or {}) if isinstance(header, dict) else {}
    state = TavernState(
        oai=oai,
        power_user=power_user,
        extension_settings=st["extension_settings"],
        wi_settings=st["world_info_settings"],
        user_name=user_name,
        card=card,
        avatar=avatar,
        chat=copy.deepcopy(case.chat) if case.chat is not None else [],
        chat_metadata=metadata if isinstance(metadata, dict) else {},
        worlds=copy.deepcopy(case.worlds),
        counter=counter,
        user_avatar=user_avatar,
        compat=for_version(st_version, power_user),
        random=case_rolls(case.settings),
    )
    return state


def case_rolls(settings: Mapping[str, Any]) -> Callable[[], float]:
    """The case's ``Math.random()``: its ``"rolls"`` list in order (then again from the start), or
    0.0 when it has none (the oracle cases set every probability to 100, so no roll decides)."""
    raw = settings.get("rolls")
    rolls = [float(r) for r in raw if isinstance(r, int | float) and 0 <= r < 1] if isinstance(raw, list) else []
    if not rolls:
        return lambda: 0.0
    position = iter(range(1 << 62))
    return lambda: rolls[next(position) % len(rolls)]


def start_new_chat(state: TavernState) -> None:
    """Opening a character without a chat: ``getFirstMessage`` (raw greeting, AI-output regex).

    Macros are not expanded here; every generation re-substitutes the first message in place.
    """
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    data = state.card_data
    first_raw = state.card.get("first_mes")
    if not isinstance(first_raw, str):
        first_raw = data.get("first_mes")
    first = first_raw if isinstance(first_raw, str) else ""
    message: dict[str, Any] = {
        "name": state.char_name,
        "is_user": False,
        "is_system": False,
        "mes": gen.regexed(first, Placement.AI_OUTPUT),
        "extra": {},
    }
    alternates = data.get("alternate_greetings")
    if isinstance(alternates, list) and alternates:
        swipes = [message["mes"], *(gen.regexed(str(g), Placement.AI_OUTPUT) for g in alternates)]
        if not message["mes"]:
            swipes.pop(0)
            message["mes"] = swipes[0]
        message.update({"swipe_id": 0, "swipes": swipes, "swipe_info": []})
    if message["mes"]:
        state.chat.append(message)


def restore_script_injects(state: TavernState) -> None:
    injects = state.chat_metadata.get("script_injects")
    if isinstance(injects, dict):
        for key, v in injects.items():
            if isinstance(v, dict):
                state.table.set(
                    d.SCRIPT_INJECT_PREFIX + key,
                    v.get("value"),
                    v.get("position"),
                    v.get("depth"),
                    v.get("scan"),
                    v.get("role"),
                )


_BIAS = re.compile(r"""\{\{bias\s+(?:"([^"]*)"|'([^']*)')\s*\}\}""")


def _remove_macros(text: str) -> str:
    """ST's ``removeMacros``: every ``{{…}}`` dropped, then trimmed."""
    return js_trim(re.sub(r"\{\{[\s\S]*?\}\}", "", text))


def user_message(state: TavernState, text: str, *, bias_only_as_system: bool = True) -> dict[str, Any]:
    """What ``Generate`` adds for typed text: ``sendMessageAsUser``, or for text that is only a
    ``{{bias "…"}}`` a hidden generic system message carrying the bias ("Start Reply With").
    A group round that nobody answers posts even such text as a user message
    (``bias_only_as_system=False``)."""
    bias_parts = [m.group(1) if m.group(1) is not None else m.group(2) for m in _BIAS.finditer(text)]
    message_bias = " " + " ".join(bias_parts) if bias_parts else ""  # extractMessageBias
    if message_bias and bias_only_as_system and not _remove_macros(text):
        return {
            "name": "SillyTavern System",
            "force_avatar": "img/five.png",
            "is_user": False,
            "is_system": True,
            "mes": " ",
            "extra": {"bias": message_bias, "type": "generic"},
        }
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    text = gen.regexed(text, Placement.USER_INPUT)
    message: dict[str, Any] = {
        "name": state.user_name,
        "is_user": True,
        "is_system": False,
        "mes": gen.sub(text),
        "extra": {"isSmallSys": False},
    }
    personas = state.power_user.get("personas")
    if isinstance(personas, dict) and state.user_avatar in personas:
        message["force_avatar"] = f"User Avatars/{state.user_avatar}"
    if message_bias:
        message["extra"]["bias"] = message_bias
        message["mes"] = _remove_macros(message["mes"])
    return message


_INJECT_POSITIONS = {"before": d.BEFORE_PROMPT, "after": d.IN_PROMPT, "chat": d.IN_CHAT, "none": d.NONE}


def _parse_named(args: str) -> tuple[dict[str, str], str]:
    named: dict[str, str] = {}
    rest = args
    while True:
        m = re.match(r"\s*([A-Za-z_][\w-]*)=(\"[^\"]*\"|'[^']*'|\S+)", rest)
        if not m:
            break
        value = m.group(2)
        if value[:1] in "\"'" and value[-1:] == value[:1]:
            value = value[1:-1]
        named[m.group(1)] = value
        rest = rest[m.end() :]
    return named, rest.strip()


def _js_parse_int(text: str) -> int | None:
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else None


def _string_to_range(text: str, last: int) -> tuple[int, int] | None:
    """ST's ``stringToRange(text, 0, last)``: ``N`` or ``A-B`` (parseInt each side); a range that
    is reversed or reaches outside ``0..last`` is refused as a whole, not clipped."""
    if "-" in text:
        parts = text.split("-")
        start = _js_parse_int(parts[0]) if parts[0] else None
        end = _js_parse_int(parts[1]) if parts[1] else None
    else:
        start = end = _js_parse_int(text)
    if start is None or end is None or start > end or start < 0 or end > last:
        return None
    return start, end


def _insert_at(state: TavernState, named: dict[str, str], message: dict[str, Any]) -> None:
    """``at=N`` puts the message at index N (negative: from the end), else it is appended."""
    try:
        at = int(named["at"]) if "at" in named else None
    except ValueError:
        at = None
    if at is not None and at < 0:
        at += len(state.chat)
    if at is not None and 0 <= at <= len(state.chat):
        state.chat.insert(at, message)
    else:
        state.chat.append(message)


def _context(state: TavernState) -> Generation:
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    return gen


_VAR_COMMANDS = {
    "setvar": ("local", "set"),
    "addvar": ("local", "add"),
    "incvar": ("local", "inc"),
    "decvar": ("local", "dec"),
    "flushvar": ("local", "flush"),
    "setglobalvar": ("global", "set"),
    "addglobalvar": ("global", "add"),
    "incglobalvar": ("global", "inc"),
    "decglobalvar": ("global", "dec"),
    "flushglobalvar": ("global", "flush"),
}


def run_slash(state: TavernState, text: str, warnings: list[str]) -> None:
    """Slash commands as typed into ST's input box; ``|`` chains several (``/sys … | /hide 3``)."""
    for part in re.split(r"\|\s*(?=/)", text):
        _run_one_slash(state, part.strip(), warnings)


def _run_one_slash(state: TavernState, text: str, warnings: list[str]) -> None:
    m = re.match(r"\s*/(\S+)\s*(.*)", text, re.DOTALL)
    if not m:
        return
    command, args = m.group(1).lower(), m.group(2)
    named, body = _parse_named(args)
    if command in ("sys", "nar", "narrate"):
        if not body:
            return
        name = state.chat_metadata.get("narrator_name") or "System"
        message = {
            "name": name,
            "is_user": False,
            "is_system": False,
            "mes": _context(state).sub(body.strip()),
            "force_avatar": "img/five.png",
            "extra": {"type": "narrator", "bias": None, "isSmallSys": False, "api": "manual"},
        }
        _insert_at(state, named, message)
    elif command == "comment":
        if body:
            message = {
                "name": "Note",
                "is_user": False,
                "is_system": True,  # comments are shown but never sent
                "mes": _context(state).sub(body.strip()),
                "extra": {"type": "comment", "isSmallSys": False, "api": "manual"},
            }
            _insert_at(state, named, message)
    elif command == "sendas":
        if not body:
            return
        name = (named.get("name") or "").strip() or state.char_name
        gen = _context(state)
        text_out = gen.regexed(body.strip(), Placement.SLASH_COMMAND)
        message = {"name": name, "is_user": False, "is_system": False, "mes": gen.sub(text_out), "extra": {}}
        if name != state.char_name:
            message["force_avatar"] = "img/ai4.png"  # another speaker: ST forces an avatar (name prefix)
        _insert_at(state, named, message)
    elif command in ("hide", "unhide"):
        rng = args.strip()
        bounds = _string_to_range(rng, len(state.chat) - 1)
        if bounds is None:
            warnings.append(f"/{command} 的范围无效：{rng!r}")
            return
        for i in range(bounds[0], bounds[1] + 1):
            state.chat[i]["is_system"] = command == "hide"
    elif command == "inject":
        ident = named.get("id")
        if not ident:
            warnings.append("/inject 缺少 id，已忽略")
            return
        position = _INJECT_POSITIONS.get(named.get("position", "after"), d.IN_PROMPT)
        try:
            depth = float(named["depth"]) if "depth" in named else 4.0
        except ValueError:
            depth = 4.0
        role_raw = named.get("role", "system").lower().strip()
        role = {"system": d.ROLE_SYSTEM, "user": d.ROLE_USER, "assistant": d.ROLE_ASSISTANT}.get(role_raw, 0)
        scan = named.get("scan", "false").strip().lower() in ("true", "on", "1")  # isTrueBoolean
        injects = state.chat_metadata.setdefault("script_injects", {})
        depth_value: int | float = int(depth) if depth.is_integer() else depth
        if body:
            injects[ident] = {"value": body, "position": position, "depth": depth_value, "scan": scan, "role": role}
        else:
            injects.pop(ident, None)
        state.table.set(d.SCRIPT_INJECT_PREFIX + ident, body, position, depth_value, scan, role)
    elif command == "note":
        state.fill_note_metadata()
        state.chat_metadata["note_prompt"] = body
    elif command in ("depth", "freq", "interval"):
        try:
            value = abs(float(body))
        except ValueError:
            warnings.append(f"/{command} 需要数字：{body!r}")
            return
        key = "note_depth" if command == "depth" else "note_interval"
        state.fill_note_metadata()
        state.chat_metadata[key] = int(value) if value.is_integer() else value
    elif command == "pos":
        # 1.12.6 updates the radio button with an event its handler does not listen to: no effect.
        warnings.append("/pos 在 SillyTavern 1.12.6 中不生效，已忽略")
    elif command in _VAR_COMMANDS:
        scope, action = _VAR_COMMANDS[command]
        variables = _context(state).variables
        var_name = (named.get("key") or named.get("name") or "").strip()
        var_value = body
        if not var_name and action in ("inc", "dec", "flush"):
            var_name, var_value = body.strip(), ""
        if not var_name:
            warnings.append(f"/{command} 缺少变量名")
            return
        store = variables.local if scope == "local" else variables.global_
        if action == "set":
            store[var_name] = var_value
        elif action == "add":
            variables.add(scope, var_name, var_value)
        elif action == "inc":
            variables.add(scope, var_name, 1)
        elif action == "dec":
            variables.add(scope, var_name, -1)
        else:
            store.pop(var_name, None)
    else:
        warnings.append(f"未实现的斜杠命令 /{command}，已忽略")


def run_ui(state: TavernState, text: str, warnings: list[str]) -> None:
    lowered = text.lower()
    if "import card lore" in lowered:
        book = (state.card.get("data") or {}).get("character_book")
        if not isinstance(book, Mapping):
            warnings.append("角色卡没有内嵌世界书，无法导入")
            return

        name, world = character_book_to_world(
            book, state.char_name, editor_resave=state.compat.embedded_book_editor_resave
        )
        state.worlds[name] = world
        data = state.card.setdefault("data", {})
        data.setdefault("extensions", {})["world"] = name
        return
    if "regex" in lowered:
        accepted = not re.search(r"\b(cancel|decline|no)\b", lowered)
        allowed = state.extension_settings.setdefault("character_allowed_regex", [])
        if accepted and state.avatar not in allowed:
            allowed.append(state.avatar)
        return
    if "popup" in lowered and "cancel" in lowered:
        return
    warnings.append(f"无法回放的界面步骤：{text[:60]}")


def _reply(number: int) -> str:
    return f"ORACLE_REPLY #{number}"


def assistant_message(state: TavernState, text: str) -> dict[str, Any]:
    """A received reply: AI-output regex scripts run on it before it is stored (as in ST)."""
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    text = gen.regexed(text.strip() if state.power_user.get("trim_spaces", True) else text, Placement.AI_OUTPUT)
    return {
        "name": state.char_name,
        "is_user": False,
        "is_system": False,
        "mes": text,
        "extra": {},
        "swipe_id": 0,
        "swipes": [text],
    }


def replay(
    case: CaseData,
    *,
    counter: TextCounter | None = None,
    reply: Callable[[int], str] = _reply,
    version: str | None = None,
) -> ReplayResult:
    state = build_state(case, counter, version=version)
    warnings: list[str] = []
    steps = case.settings.get("steps") or []
    last: Assembly | None = None
    body: dict[str, Any] | None = None
    generations: list[dict[str, Any]] = []
    assemblies: list[Assembly] = []
    count = 0

    def run(gen_type: str) -> None:
        nonlocal last, body, count
        last = generate(state, gen_type)
        warnings.extend(last.warnings)
        body = request_body(
            state.oai, last.messages, gen_type, stop=last.stop, omit_empty_bias=state.compat.omit_empty_logit_bias
        )
        generations.append(body)
        assemblies.append(last)
        count += 1

    for step in steps:
        if not isinstance(step, dict):
            continue
        if "send" in step:
            text = str(step["send"])
            if text.lstrip().startswith("/"):
                run_slash(state, text, warnings)
                continue
            if text:
                state.chat.append(user_message(state, text))
            elif str(state.oai.get("send_if_empty") or "").strip():
                # An empty send posts the "replace empty message" text as a real user message.
                state.chat.append(user_message(state, str(state.oai["send_if_empty"]).strip()))
            run("normal")
            state.chat.append(assistant_message(state, reply(count)))
        elif "slash" in step:
            run_slash(state, str(step["slash"]), warnings)
        elif step.get("regenerate"):
            if state.chat and not state.chat[-1].get("is_user"):
                state.chat.pop()
            run("regenerate")
            state.chat.append(assistant_message(state, reply(count)))
        elif step.get("swipe"):
            run("swipe")
            if state.chat:
                target = state.chat[-1]
                target.setdefault("swipes", [target.get("mes", "")]).append(reply(count))
                target["swipe_id"] = len(target["swipes"]) - 1
                target["mes"] = reply(count)
        elif step.get("continue"):
            run("continue")
            if state.chat:
                state.chat[-1]["mes"] = str(state.chat[-1].get("mes", "")) + reply(count)
        elif step.get("impersonate"):
            run("impersonate")
        elif "ui" in step:
            run_ui(state, str(step["ui"]), warnings)
        else:
            warnings.append(f"未知步骤：{list(step)}")
    return ReplayResult(
        body=body, assembly=last, state=state, warnings=warnings, generations=generations, assemblies=assemblies
    )


__all__ = [
    "CaseData",
    "ReplayResult",
    "assistant_message",
    "build_state",
    "case_rolls",
    "replay",
    "run_slash",
    "run_ui",
    "settings_state",
    "start_new_chat",
    "substitute",
    "user_message",
]

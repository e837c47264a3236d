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

from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import Interpreter, run_script
from peargarden.text.macros import chat_id_hash, substitute
from peargarden.text.tokens import TextCounter
from peargarden.worldinfo.sources import character_book_to_world

from . import defaults as d
from .assemble import Assembly, generate
from .chat_messages import add_swipe, assistant_message, start_new_chat, user_message
from .request import request_body
from .slash_host import TavernSlashHost
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


def run_slash(
    state: TavernState, text: str, warnings: list[str], *, generate: Callable[[str, str], None] | None = None
) -> None:
    """Slash commands as typed into SillyTavern's input box, run by the STscript interpreter on the
    state; *generate* (kind, text) makes the replies ``/trigger`` and its kin ask for."""
    host = TavernSlashHost(state, on_generate=generate)
    outcome = run_script(Interpreter(default_registry(), host), text)
    warnings.extend(host.warnings)
    if outcome.error is not None:
        warnings.append(f"斜杠命令出错：{outcome.error.message}")
    warnings.extend(t["message"].split("\n")[0] for t in host.toasts if t["type"] in ("error", "warning"))


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

    def play(kind: str) -> None:
        """One generation of *kind* and what it does to the chat (a step, or a script's /trigger …)."""
        if kind == "regenerate" and state.chat and not state.chat[-1].get("is_user"):
            state.chat.pop()
        run(kind)
        text = reply(count)
        if kind in ("normal", "regenerate"):
            state.chat.append(assistant_message(state, text))
        elif kind == "swipe" and state.chat:
            add_swipe(state.chat[-1], text)
        elif kind == "continue" and state.chat:
            state.chat[-1]["mes"] = str(state.chat[-1].get("mes", "")) + text

    def slash(text: str) -> None:
        run_slash(state, text, warnings, generate=lambda kind, _text: play(kind))

    for step in steps:
        if not isinstance(step, dict):
            continue
        if "send" in step:
            text = str(step["send"])
            if text.lstrip().startswith("/"):
                slash(text)
                continue
            if text:
                state.chat.append(user_message(state, text))
            elif str(state.oai.get("send_if_empty") or "").strip():
                # An empty send posts the "replace empty message" text as a real user message.
                state.chat.append(user_message(state, str(state.oai["send_if_empty"]).strip()))
            play("normal")
        elif "slash" in step:
            slash(str(step["slash"]))
        elif step.get("regenerate"):
            play("regenerate")
        elif step.get("swipe"):
            play("swipe")
        elif step.get("continue"):
            play("continue")
        elif step.get("impersonate"):
            play("impersonate")
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

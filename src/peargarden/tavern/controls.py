"""User controls for tavern mode and the state built from a user's own card, preset and chat.

Where a control lives follows SillyTavern: context size, response length and the prompt order /
switches belong to the Chat Completion **preset** (when a preset is named) — otherwise to the card's
``卡.json`` ``"tavern"`` object, which also holds what ST keeps in ``power_user`` (pin examples,
persona text and position) and the Author's Note defaults (``extension_settings.note``).  The
Author's Note of one chat is **chat metadata** (``"tavern" → "chats" → <id>``).  Everything here is
pure: dicts in, dicts out; the caller reads and writes the files.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from peargarden.errors import BadInput
from peargarden.text.rolls import live_random
from peargarden.text.tokens import TextCounter
from peargarden.worldinfo.sources import LorebookCache

from .defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID
from .state import TavernState, apply_preset, effective_settings
from .version import V112, for_version

_ON = {"on", "true", "1", "yes", "开", "是"}
_OFF = {"off", "false", "0", "no", "关", "否"}

PRESET_KEYS = {"context": "openai_max_context", "response": "openai_max_tokens"}
POWER_USER_KEYS = {
    "pin_examples": "pin_examples",
    "strip_examples": "strip_examples",
    "persona": "persona_description",
    "persona_position": "persona_description_position",
    "persona_depth": "persona_description_depth",
    "persona_role": "persona_description_role",
}
NOTE_KEYS = {
    "note.prompt": ("note_prompt", "default"),
    "note.interval": ("note_interval", "defaultInterval"),
    "note.depth": ("note_depth", "defaultDepth"),
    "note.position": ("note_position", "defaultPosition"),
    "note.role": ("note_role", "defaultRole"),
}
_ROLES = {"system": 0, "user": 1, "assistant": 2}
_NOTE_POSITIONS = {"after": 0, "after_main": 0, "chat": 1, "in_chat": 1, "before": 2, "before_main": 2}
_PERSONA_POSITIONS = {"prompt": 0, "in_prompt": 0, "top_an": 2, "bottom_an": 3, "depth": 4, "at_depth": 4, "none": 9}

KEYS_HELP = (
    "context, response, prompt.<identifier> (on/off), order (identifiers, comma separated), "
    "pin_examples, strip_examples, persona, persona_position (prompt/top_an/bottom_an/depth/none), "
    "persona_depth, persona_role, note.prompt, note.interval, note.depth, note.position "
    "(after/chat/before), note.role (system/user/assistant), regex (on/off: the card's own regex scripts)"
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(key: str, value: str, *, minimum: int = 0) -> int:
    try:
        number = int(value)
    except ValueError:
        raise BadInput(f"{key} 需要一个整数，收到 {value!r}") from None
    if number < minimum:
        raise BadInput(f"{key} 不能小于 {minimum}")
    return number


def _bool(key: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _ON:
        return True
    if lowered in _OFF:
        return False
    raise BadInput(f"{key} 只接受 on / off，收到 {value!r}")


def parse_on_off(key: str, value: str) -> bool:
    """``on``/``off`` (and their synonyms, Chinese too) for a switch named *key*."""
    return _bool(key, value)


def _enum(key: str, value: str, names: Mapping[str, int]) -> int:
    lowered = value.strip().lower()
    if lowered in names:
        return names[lowered]
    if lowered.lstrip("-").isdigit() and int(lowered) in set(names.values()):
        return int(lowered)
    raise BadInput(f"{key} 只接受 {' / '.join(sorted(set(names)))}，收到 {value!r}")


def _order(oai: dict[str, Any]) -> list[dict[str, Any]]:
    orders = oai.setdefault("prompt_order", [])
    if not isinstance(orders, list):
        orders = oai["prompt_order"] = []
    for item in orders:
        if isinstance(item, dict) and str(item.get("character_id")) == str(GLOBAL_ORDER_ID):
            if not isinstance(item.get("order"), list):
                item["order"] = copy.deepcopy(DEFAULT_ORDER)
            order: list[dict[str, Any]] = item["order"]
            return order
    entry = {"character_id": GLOBAL_ORDER_ID, "order": copy.deepcopy(DEFAULT_ORDER)}
    orders.append(entry)
    return entry["order"]  # type: ignore[return-value]


def _known_identifiers(oai: Mapping[str, Any]) -> set[str]:
    prompts = oai.get("prompts")
    known = {p["identifier"] for p in DEFAULT_PROMPTS}
    if isinstance(prompts, list):
        known |= {str(p.get("identifier")) for p in prompts if isinstance(p, dict)}
    return known


def apply_control(
    key: str,
    value: str,
    *,
    tavern: dict[str, Any],
    preset: dict[str, Any] | None = None,
    chat_id: str | None = None,
) -> str:
    """Apply ``key = value``; mutates ``tavern`` (卡.json's "tavern") or ``preset``.  Returns where."""
    key = key.strip()
    oai_target = preset if preset is not None else tavern.setdefault("oai", {})
    where_oai = "preset" if preset is not None else "卡.json"
    if key in PRESET_KEYS:
        oai_target[PRESET_KEYS[key]] = _int(key, value, minimum=1)
        return where_oai
    if key.startswith("prompt."):
        identifier = key[len("prompt.") :]
        merged = {**tavern.get("oai", {}), **(preset or {})}
        if identifier not in _known_identifiers(merged):
            raise BadInput(f"没有叫 {identifier!r} 的提示词条目")
        enabled = _bool(key, value)
        order = _order(oai_target)
        for entry in order:
            if entry.get("identifier") == identifier:
                entry["enabled"] = enabled
                break
        else:
            order.append({"identifier": identifier, "enabled": enabled})
        return where_oai
    if key == "order":
        wanted = [part.strip() for part in value.split(",") if part.strip()]
        order = _order(oai_target)
        by_id = {e.get("identifier"): e for e in order}
        new = [by_id.get(i, {"identifier": i, "enabled": True}) for i in wanted]
        new += [e for e in order if e.get("identifier") not in wanted]
        order[:] = new
        return where_oai
    if key in POWER_USER_KEYS:
        target = tavern.setdefault("power_user", {})
        name = POWER_USER_KEYS[key]
        if key in ("pin_examples", "strip_examples"):
            target[name] = _bool(key, value)
        elif key == "persona":
            target[name] = value
        elif key == "persona_position":
            target[name] = _enum(key, value, _PERSONA_POSITIONS)
        elif key == "persona_role":
            target[name] = _enum(key, value, _ROLES)
        else:
            target[name] = _int(key, value)
        return "卡.json"
    if key in NOTE_KEYS:
        meta_key, default_key = NOTE_KEYS[key]
        parsed: Any
        if key == "note.prompt":
            parsed = value
        elif key == "note.role":
            parsed = _enum(key, value, _ROLES)
        elif key == "note.position":
            parsed = _enum(key, value, _NOTE_POSITIONS)
        else:
            parsed = _int(key, value)
        if chat_id:
            tavern.setdefault("chats", {}).setdefault(chat_id, {})[meta_key] = parsed
            return f"对话 {chat_id} 的元数据"
        tavern.setdefault("note", {})[default_key] = parsed
        return "卡.json（作者注释默认值）"
    raise BadInput(f"不认识的设置 {key!r}；可用：{KEYS_HELP}")


def user_state(
    card: dict[str, Any],
    *,
    tavern: Mapping[str, Any],
    preset: Mapping[str, Any] | None,
    chat_lines: list[dict[str, Any]] | None,
    chat_id: str | None,
    worlds: dict[str, dict[str, Any]],
    character_books: list[str],
    user_name: str,
    counter: TextCounter | None,
    lorebooks: LorebookCache | None = None,
    version: str = V112,
    global_regex: list[dict[str, Any]] | None = None,
    regex_allowed: bool = False,
    seed: int | None = None,
    own_chat: bool = False,
) -> TavernState:
    """A :class:`TavernState` for the user's own card / preset / chat / lorebooks.

    ``version``: the SillyTavern release to match (``st_version`` of the settings).
    ``global_regex``: the library's regex scripts (ST's global scripts); ``regex_allowed``: the user
    allowed the card's own scripts (ST's ``character_allowed_regex``).  ``seed``: repeatable live
    rolls (world-info probability, ``{{random}}``); without it they are unseeded.

    ``lorebooks``: a cache the caller keeps for the whole session (the same ``worlds`` dicts each
    time), so a state rebuilt for every generation does not re-parse the books.

    ``own_chat``: the caller made the list ``chat_lines`` for this state alone and hands it over, so it
    is not deep-copied (the copy of a 20,000-message chat was most of a tavern beat).  The assembly
    only rewrites the first line's ``mes`` in place: the caller must not share that one dict.
    """
    note = _dict(tavern.get("note"))
    power_user = _dict(tavern.get("power_user"))
    st = effective_settings({"power_user": power_user, "extension_settings": {"note": note}}, version)
    oai = st["oai_settings"]
    oai.update({"chat_completion_source": "custom"})
    if preset is not None:
        oai = apply_preset(oai, preset, version=version)
    extra = tavern.get("oai")
    if isinstance(extra, dict):
        oai = apply_preset(oai, extra, version=version)
    header = chat_lines[0] if chat_lines else {}
    metadata = copy.deepcopy(header.get("chat_metadata") or {}) if isinstance(header, dict) else {}
    chats = _dict(tavern.get("chats"))
    if chat_id:
        metadata.update(copy.deepcopy(_dict(chats.get(chat_id))))
    name = str(card.get("name") or (card.get("data") or {}).get("name") or "")
    card = copy.deepcopy(card)
    if character_books:
        # Mounted books act as the character's linked world plus ST's "extra books".
        ext = card.setdefault("data", {}).setdefault("extensions", {})
        ext["world"] = character_books[0]
        st["world_info_settings"].setdefault("world_info", {})["charLore"] = [
            {"name": name, "extraBooks": character_books[1:]}
        ]
    state = TavernState(
        oai=oai,
        power_user=st["power_user"],
        extension_settings=st["extension_settings"],
        wi_settings=st["world_info_settings"],
        user_name=user_name,
        card=card,
        avatar=f"{name}.png",
        chat=(chat_lines[1:] if own_chat else copy.deepcopy(chat_lines[1:])) if chat_lines else [],
        chat_metadata=metadata,
        worlds=worlds,
        counter=counter,
        compat=for_version(version, st["power_user"]),
        random=live_random(seed),
    )
    if global_regex:
        state.extension_settings["regex"] = copy.deepcopy(global_regex)
    if regex_allowed:
        state.extension_settings["character_allowed_regex"] = [state.avatar]
    if lorebooks is not None:
        state.lorebooks = lorebooks
    return state

"""Tavern mode's controls for the fronts (``pear tavern set``, the web's tavern panel): prompt order
and switches, context size and response length, pinned examples, the Author's Note (per chat), the
card's preset and regex scripts — each kept where SillyTavern keeps it.

A control goes through :func:`peargarden.tavern.controls.apply_control` into the card's ``卡.json``
(``"tavern"``; the card-level values win over the active preset), into a preset file when one is
named (the CLI only), or into a chat's metadata (the Author's Note of that chat).
"""

from __future__ import annotations

from typing import Any

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.modes.tavern.sources import preset_file, read_named_preset
from peargarden.modes.work.project import write_card
from peargarden.tavern.controls import KEYS_HELP, apply_control, parse_on_off
from peargarden.tavern.defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID
from peargarden.tavern.state import apply_preset, effective_settings
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.script_allowance import set_scripts_allowance

from .regex_allowance import set_allowance

_NOTE_POSITIONS = {0: "after", 1: "chat", 2: "before"}
_ROLES = {0: "system", 1: "user", 2: "assistant"}
# Keys that live in a preset when ``--preset`` is given (the others are the card's or a chat's).
_PRESET_KEYS = ("context", "response", "order")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# -- pear tavern set -------------------------------------------------------------------------------


def set_regex(home: Home, card: str, value: str) -> bool:
    """May the card's own regex scripts run (``on``/``off``; 卡.json ``regex_allowed``)?"""

    allowed = parse_on_off("regex", value)
    set_allowance(home, card, allowed)
    return allowed


def set_scripts(home: Home, card: str, value: str) -> bool:
    """May the card's TavernHelper scripts act here (``on``/``off``; 卡.json ``scripts_allowed``)?
    What runs is the built-in MVU, never the scripts' own code."""
    allowed = parse_on_off("scripts", value)
    set_scripts_allowance(open_card(home, card), allowed)
    return allowed


def set_card_preset(home: Home, card: str, preset: str) -> None:
    """The card's preset for tavern mode (卡.json ``preset``): a preset of the library."""
    read_named_preset(home, preset)
    folder = open_card(home, card)
    settings = dict(folder.settings())
    settings["preset"] = preset
    folder.write_settings(settings)


def set_control(home: Home, key: str, value: str, *, card: str | None, chat: str | None, preset: str | None) -> str:
    """One control where SillyTavern keeps it: the preset *preset* for preset-level keys when given,
    else the card's 卡.json (a chat's metadata for the Author's Note with *chat*).  Where it went."""
    preset_data = None
    if preset is not None and (key in _PRESET_KEYS or key.startswith("prompt.")):
        preset_data = read_named_preset(home, preset)
    if card is None and preset_data is None:
        raise BadInput(f"需要一张卡（或对预设的设置给一个预设）；可用的设置：{KEYS_HELP}", hint="--card 或 --preset")
    folder = None
    card_json: dict[str, Any] = {}
    if card is not None:
        folder = open_card(home, card)
        card_json = folder.settings()
    tavern = card_json.setdefault("tavern", {})
    if not isinstance(tavern, dict):
        tavern = card_json["tavern"] = {}
    where = apply_control(key, value, tavern=tavern, preset=preset_data, chat_id=chat)
    if preset_data is not None and preset is not None:
        atomic.write_json(preset_file(home, preset), preset_data)
    elif folder is not None:
        folder.write_settings(card_json)
    return where


# -- the web's tavern panel ------------------------------------------------------------------------


def _preset(folder: CardFolder, name: str) -> dict[str, Any] | None:
    """The card's preset, or None when it has none or the library lost it (the panel shows defaults)."""
    if not name:
        return None
    try:
        return read_named_preset(folder.home, name)
    except NotFound:
        return None


def _state(home: Home, card: str) -> tuple[CardFolder, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(card folder, 卡.json, its "tavern" object, the effective SillyTavern settings)."""
    folder = open_card(home, card)
    card_json = dict(folder.settings())
    tavern = _dict(card_json.get("tavern"))
    st = effective_settings({"power_user": _dict(tavern.get("power_user")),
                             "extension_settings": {"note": _dict(tavern.get("note"))}})  # fmt: skip
    oai = st["oai_settings"]
    settings = folder.effective_settings(load_settings(home.config_file))
    preset = _preset(folder, settings.preset)
    if preset is not None:
        oai = apply_preset(oai, preset)
    if isinstance(tavern.get("oai"), dict):
        oai = apply_preset(oai, tavern["oai"])
    st["oai_settings"] = oai
    st["preset"] = settings.preset if preset is not None else ""
    return folder, card_json, tavern, st


def _order(oai: dict[str, Any]) -> list[dict[str, Any]]:
    names = {p["identifier"]: p.get("name") or p["identifier"] for p in DEFAULT_PROMPTS}
    for prompt in oai.get("prompts") or []:
        if isinstance(prompt, dict) and prompt.get("identifier"):
            names[str(prompt["identifier"])] = str(prompt.get("name") or prompt["identifier"])
    order: list[Any] = DEFAULT_ORDER
    for item in oai.get("prompt_order") or []:
        if isinstance(item, dict) and str(item.get("character_id")) == str(GLOBAL_ORDER_ID):
            order = item.get("order") or DEFAULT_ORDER
    return [
        {
            "identifier": str(e.get("identifier")),
            "name": names.get(str(e.get("identifier")), str(e.get("identifier"))),
            "enabled": e.get("enabled") is not False,
        }
        for e in order
        if isinstance(e, dict)
    ]


def panel(home: Home, card: str, chat: str | None = None) -> dict[str, Any]:
    """What the tavern panel shows of *card* (and of the Author's Note of *chat*, when given)."""
    folder, _card_json, tavern, st = _state(home, card)
    oai = st["oai_settings"]
    defaults = st["extension_settings"]["note"]
    meta = _dict(_dict(tavern.get("chats")).get(chat)) if chat else {}
    scripts = folder.load_card().data.get("extensions", {}).get("regex_scripts") or []
    return {
        "preset": st["preset"],
        "context": oai.get("openai_max_context"),
        "response": oai.get("openai_max_tokens"),
        "order": _order(oai),
        "pin_examples": bool(st["power_user"].get("pin_examples")),
        "note": {
            "prompt": meta.get("note_prompt", defaults.get("default", "")),
            "interval": meta.get("note_interval", defaults.get("defaultInterval", 1)),
            "depth": meta.get("note_depth", defaults.get("defaultDepth", 4)),
            "position": _NOTE_POSITIONS.get(meta.get("note_position", defaults.get("defaultPosition", 1)), "chat"),
            "role": _ROLES.get(meta.get("note_role", defaults.get("defaultRole", 0)), "system"),
            "scope": "chat" if chat else "card",
        },
        "regex_scripts": [
            {
                "index": index,
                "name": str(s.get("scriptName") or ""),
                "find": str(s.get("findRegex") or ""),
                "disabled": bool(s.get("disabled")),
                "placement": s.get("placement") or [],
            }
            for index, s in enumerate(scripts)
            if isinstance(s, dict)
        ],
    }


def switch_card_regex(home: Home, card: str, index: int, enabled: bool, name: str | None = None) -> None:
    """Switch the card's regex script number *index* on or off: ``disabled`` of that script in the
    card file, as SillyTavern stores it (a PNG card keeps its image bytes).  With *name*, the script
    must still be called that (the card may have changed since the page read it)."""
    folder = open_card(home, card)
    loaded = folder.load_card()
    extensions = loaded.data.get("extensions")
    scripts = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    if not isinstance(scripts, list) or not 0 <= index < len(scripts) or not isinstance(scripts[index], dict):
        raise NotFound(f"卡里没有第 {index + 1} 个正则脚本（no such regex script）")
    script = scripts[index]
    if name is not None and str(script.get("scriptName") or "") != name:
        raise ConflictError("卡里的正则脚本已经变了，请刷新页面（the card changed）")
    script["disabled"] = not enabled
    write_card(folder, loaded)


def set_panel_control(home: Home, card: str, key: str, value: str, chat: str | None = None) -> str:
    """One control of the panel into the card's 卡.json (the Author's Note into *chat*'s metadata
    when given); the preset is chosen in the preset panel, not here.  Where it went."""
    folder, card_json, tavern, _st = _state(home, card)
    if key == "preset":
        raise BadInput("换预设请用预设面板（preset panel）")
    tavern = card_json["tavern"] = dict(tavern)
    for name in ("oai", "power_user", "note", "chats"):
        if name in tavern:
            tavern[name] = _dict(tavern[name])
    chat_id = chat if key.startswith("note.") else None
    where = apply_control(key, value, tavern=tavern, preset=None, chat_id=chat_id)
    folder.write_settings(card_json)
    return where

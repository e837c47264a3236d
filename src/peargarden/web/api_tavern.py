"""``/api/tavern/{card}``: tavern-mode controls — prompt order and switches, context size and
response length, pinned examples, the Author's Note (per chat), the card's regex scripts, and the
history-space warning of a dry run.

Changes go through :func:`peargarden.tavern.controls.apply_control` into the card's ``卡.json``
(``"tavern"``): the card-level values win over the active preset, and the preset file itself is never
written from here.  The Author's Note of a chat lives in that chat's metadata.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.modes.work.project import write_card
from peargarden.tavern.controls import apply_control
from peargarden.tavern.defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID
from peargarden.tavern.state import apply_preset, effective_settings
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.config import load_settings

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")

_NOTE_POSITIONS = {0: "after", 1: "chat", 2: "before"}
_ROLES = {0: "system", 1: "user", 2: "assistant"}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _preset(folder: CardFolder, name: str) -> dict[str, Any] | None:
    """The card's preset, or None when it has none or the library lost it (the panel shows defaults)."""
    from peargarden.modes.tavern.sources import read_named_preset

    if not name:
        return None
    try:
        return read_named_preset(folder.home, name)
    except NotFound:
        return None


def _state(request: Request, card: str) -> tuple[CardFolder, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(card folder, 卡.json, its "tavern" object, the effective SillyTavern settings)."""
    home = home_of(request)
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
        {"identifier": str(e.get("identifier")), "name": names.get(str(e.get("identifier")), str(e.get("identifier"))),
         "enabled": e.get("enabled") is not False}
        for e in order
        if isinstance(e, dict)
    ]


@router.get("/tavern/{card}")
def controls(request: Request, card: str, chat: str | None = None) -> dict[str, Any]:
    folder, _card_json, tavern, st = _state(request, card)
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
            {"index": index, "name": str(s.get("scriptName") or ""), "find": str(s.get("findRegex") or ""),
             "disabled": bool(s.get("disabled")), "placement": s.get("placement") or []}
            for index, s in enumerate(scripts)
            if isinstance(s, dict)
        ],
    }


class RegexBody(BaseModel):
    index: int  # the script's place in the card's extensions.regex_scripts
    enabled: bool
    name: str | None = None  # when given, must still be the script's name (the card may have changed)
    chat: str | None = None


@router.post("/tavern/{card}/regex")
def switch_regex(request: Request, card: str, body: RegexBody) -> dict[str, Any]:
    """Switch one of the card's regex scripts on or off: ``disabled`` of that script in the card file,
    as SillyTavern stores it (a PNG card keeps its image bytes).  Open chats of the card follow."""
    folder = open_card(home_of(request), card)
    loaded = folder.load_card()
    extensions = loaded.data.get("extensions")
    scripts = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    if not isinstance(scripts, list) or not 0 <= body.index < len(scripts) or not isinstance(scripts[body.index], dict):
        raise NotFound(f"卡里没有第 {body.index + 1} 个正则脚本（no such regex script）")
    script = scripts[body.index]
    if body.name is not None and str(script.get("scriptName") or "") != body.name:
        raise ConflictError("卡里的正则脚本已经变了，请刷新页面（the card changed）")
    script["disabled"] = not body.enabled
    write_card(folder, loaded)
    hub_of(request).card_changed(card)
    return controls(request, card, body.chat)


class ControlBody(BaseModel):
    key: str
    value: str
    chat: str | None = None


@router.post("/tavern/{card}")
def set_control(request: Request, card: str, body: ControlBody) -> dict[str, Any]:
    """One control (the keys of ``pear tavern set``); the Author's Note goes to the chat when given."""
    folder, card_json, tavern, _st = _state(request, card)
    if body.key == "preset":
        raise BadInput("换预设请用预设面板（preset panel）")
    tavern = card_json["tavern"] = dict(tavern)
    for key in ("oai", "power_user", "note", "chats"):
        if key in tavern:
            tavern[key] = _dict(tavern[key])
    chat_id = body.chat if body.key.startswith("note.") else None
    where = apply_control(body.key, body.value, tavern=tavern, preset=None, chat_id=chat_id)
    folder.write_settings(card_json)
    return {"key": body.key, "where": where, "controls": controls(request, card, body.chat)}

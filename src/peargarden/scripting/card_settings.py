"""A card's ``data.extensions.tavern_helper`` as TavernHelper writes it back.

TavernHelper keeps a card's scripts and character variables in a settings object it parses with
defaults (its ``CharacterSettings``: ``scripts`` — each script with ``type``, ``enabled``, ``name``,
``id``, ``content``, ``info``, ``button``, ``data``, ``export_with``, in that order; folders with their
scripts — and ``variables``) and saves whole whenever one of them changes.  So the first change a
script makes (a character or script variable, its buttons, its info) rewrites the card's field in
that shape: the recordings show ``export_with: {data: true, button: true}`` appear (cases 04, 05).
"""

from __future__ import annotations

from typing import Any

from peargarden.formats.helper_scripts import settings_object
from peargarden.text.macros import string_hash


def _text(value: Any, default: str = "") -> str:
    if value is None:
        return default
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bool(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def _buttons(button: Any) -> dict[str, Any]:
    button = button if isinstance(button, dict) else {}
    items = button.get("buttons") if isinstance(button.get("buttons"), list) else []
    buttons = [{"name": _text(b.get("name")), "visible": bool(b.get("visible"))} for b in items if isinstance(b, dict)]
    return {"enabled": _bool(button.get("enabled"), True), "buttons": buttons}


def _id(item: dict[str, Any]) -> str:
    # TavernHelper draws a random uuid for a script without one; a stable one from its text here.
    given = item.get("id")
    if given is not None:
        return _text(given)
    return f"pear-{string_hash(_text(item.get('name')) + _text(item.get('content')))}"


def _script(item: dict[str, Any]) -> dict[str, Any]:
    found = item.get("export_with")
    export: dict[str, Any] = found if isinstance(found, dict) else {}
    data = item.get("data")
    return {
        "type": "script",
        "enabled": _bool(item.get("enabled"), False),
        "name": _text(item.get("name")),
        "id": _id(item),
        "content": _text(item.get("content")),
        "info": _text(item.get("info")),
        "button": _buttons(item.get("button")),
        "data": data if isinstance(data, dict) else {},
        "export_with": {"data": _bool(export.get("data"), True), "button": _bool(export.get("button"), True)},
    }


def _tree(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("type") != "folder":
        return _script(item)
    return {
        "type": "folder",
        "enabled": _bool(item.get("enabled"), False),
        "name": _text(item.get("name")),
        "id": _id(item),
        "icon": _text(item.get("icon"), "fa-solid fa-folder"),
        "color": _text(item.get("color")),
        "scripts": [_script(s) for s in item.get("scripts") or [] if isinstance(s, dict)],
    }


def current(extensions: dict[str, Any]) -> dict[str, Any]:
    """The card's ``tavern_helper`` as an object, made so in place as TavernHelper reads it: the
    list-of-pairs form becomes the object; the older ``TavernHelper_scripts`` (each script perhaps
    wrapped in ``value``) and ``TavernHelper_characterScriptVariables`` move into it."""
    found = extensions.get("tavern_helper")
    if isinstance(found, dict):
        return found
    if found is not None:
        helper = dict(settings_object(found))
    elif "TavernHelper_scripts" in extensions or "TavernHelper_characterScriptVariables" in extensions:
        old = extensions.get("TavernHelper_scripts")
        scripts = [s.get("value") if isinstance(s, dict) and isinstance(s.get("value"), dict) else s
                   for s in old if isinstance(s, dict)] if isinstance(old, list) else []  # fmt: skip
        variables = extensions.get("TavernHelper_characterScriptVariables")
        helper = {"scripts": scripts, "variables": variables if isinstance(variables, dict) else {}}
        saved(helper)
        extensions.pop("TavernHelper_scripts", None)
        extensions.pop("TavernHelper_characterScriptVariables", None)
    else:
        helper = {"scripts": [], "variables": {}}
    extensions["tavern_helper"] = helper
    return helper


def saved(helper: dict[str, Any]) -> None:
    """``helper`` (the card's ``tavern_helper``) rewritten in place as TavernHelper saves it."""
    scripts = helper.get("scripts")
    variables = helper.get("variables")
    helper.clear()
    helper["scripts"] = [_tree(s) for s in scripts if isinstance(s, dict)] if isinstance(scripts, list) else []
    helper["variables"] = variables if isinstance(variables, dict) else {}


__all__ = ["current", "saved"]

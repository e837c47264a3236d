"""Personas (who the user plays), as SillyTavern keeps them in ``power_user``.

SillyTavern: ``personas = {avatar_file: name}`` and ``persona_descriptions = {avatar_file:
{description, position, depth, role, ...}}``; the same two keys (plus ``default_persona``) make
its persona backup file.  Our own library file is one persona per JSON object.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from peargarden.errors import FormatError

from ._common import JsonObject, dumps_pretty, parse_json_bytes

# persona_description_position values (spec §2.6).
PERSONA_IN_PROMPT = 0
PERSONA_AFTER_CHAR = 1  # deprecated alias of IN_PROMPT
PERSONA_TOP_AN = 2
PERSONA_BOTTOM_AN = 3
PERSONA_AT_DEPTH = 4
PERSONA_NONE = 9

_DESCRIPTION_KEYS = ("description", "position", "depth", "role")


class Persona(msgspec.Struct):
    """One persona.  ``avatar`` is SillyTavern's avatar file id (its key in ``power_user``);
    ``extra`` keeps the other fields of its description entry (``lorebook``, ``title``, ...)."""

    name: str
    description: str = ""
    position: int = PERSONA_IN_PROMPT
    depth: int = 2
    role: int = 0
    avatar: str = ""
    extra: JsonObject = msgspec.field(default_factory=dict)

    def description_entry(self) -> JsonObject:
        """The persona's value in ``power_user.persona_descriptions``."""
        entry: JsonObject = {
            "description": self.description,
            "position": self.position,
            "depth": self.depth,
            "role": self.role,
        }
        entry.update(copy.deepcopy(self.extra))
        return entry


def _int(value: Any, default: int) -> int:
    # SillyTavern sometimes stores numbers as strings ("4").
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def _persona(name: str, avatar: str, entry: JsonObject) -> Persona:
    return Persona(
        name=name,
        description=str(entry.get("description") or ""),
        position=_int(entry.get("position"), PERSONA_IN_PROMPT),
        depth=_int(entry.get("depth"), 2),
        role=_int(entry.get("role"), 0),
        avatar=avatar,
        extra={k: copy.deepcopy(v) for k, v in entry.items() if k not in _DESCRIPTION_KEYS},
    )


def personas_from_power_user(power_user: JsonObject) -> list[Persona]:
    """Every persona in a ``power_user`` object (or a persona backup), in stored order."""
    names = power_user.get("personas")
    descriptions = power_user.get("persona_descriptions")
    if not isinstance(names, dict):
        return []
    descriptions = descriptions if isinstance(descriptions, dict) else {}
    result = []
    for avatar, name in names.items():
        entry = descriptions.get(avatar)
        result.append(_persona(str(name), str(avatar), entry if isinstance(entry, dict) else {}))
    return result


def personas_to_power_user(personas: list[Persona], power_user: JsonObject | None = None) -> JsonObject:
    """A copy of *power_user* whose ``personas`` / ``persona_descriptions`` hold *personas*."""
    out = copy.deepcopy(power_user) if power_user is not None else {}
    out["personas"] = {p.avatar or f"{p.name}.png": p.name for p in personas}
    out["persona_descriptions"] = {p.avatar or f"{p.name}.png": p.description_entry() for p in personas}
    return out


def read_personas(data: bytes, filename: str) -> list[Persona]:
    """Personas from SillyTavern ``settings.json``, a persona backup, or our persona file(s)."""
    obj = parse_json_bytes(data, filename, "用户角色 JSON ")
    if isinstance(obj.get("power_user"), dict):
        return personas_from_power_user(obj["power_user"])
    if isinstance(obj.get("personas"), dict):
        return personas_from_power_user(obj)
    if isinstance(obj.get("name"), str) and "spec" not in obj and "first_mes" not in obj:
        return [persona_from_object(obj)]
    raise FormatError("这个 JSON 里没有用户角色（no personas in this JSON）", path=filename)


def persona_from_object(obj: JsonObject) -> Persona:
    """Our library persona object: ``{name, description, position, depth, role, avatar?, ...}``."""
    rest = {k: v for k, v in obj.items() if k not in ("name", "avatar")}
    return _persona(str(obj.get("name", "")), str(obj.get("avatar") or ""), rest)


def persona_to_json(persona: Persona) -> bytes:
    """Our library file for one persona (pretty JSON, UTF-8)."""
    obj: JsonObject = {"name": persona.name, **persona.description_entry()}
    if persona.avatar:
        obj["avatar"] = persona.avatar
    return dumps_pretty(obj).encode("utf-8")


def personas_to_backup_json(personas: list[Persona], default_persona: str | None = None) -> bytes:
    """SillyTavern's persona backup file (importable in its Persona Management panel)."""
    obj = personas_to_power_user(personas)
    obj["default_persona"] = default_persona
    return dumps_pretty(obj).encode("utf-8")

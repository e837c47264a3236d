"""Who the user plays: a persona named on the command line, the card's locked persona, or the default.

Personas live in ``library/personas/``: ``<name>.json`` (``{"name", "description"}``) or ``<name>.md`` /
``<name>.txt`` (the description as text).  A name without a file is still a persona — just a name.
Order: the chat's own choice (``--persona``, stored in the chat header), then the card's ``卡.json``
``persona`` (locked per card), then ``config.toml``'s ``user_name`` / ``user_persona``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from peargarden.workspace.home import sanitize_name


@dataclass(frozen=True)
class Persona:
    name: str
    description: str = ""


def load_persona(personas_dir: Path, name: str) -> Persona:
    stem = sanitize_name(name) or name
    json_file = personas_dir / f"{stem}.json"
    try:
        if json_file.is_file():
            value = json.loads(json_file.read_text(encoding="utf-8"))
            if isinstance(value, dict):
                return Persona(str(value.get("name") or name), str(value.get("description") or ""))
        for suffix in (".md", ".txt"):
            text_file = personas_dir / f"{stem}{suffix}"
            if text_file.is_file():
                return Persona(name, text_file.read_text(encoding="utf-8").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        pass  # an unreadable persona file leaves the name usable
    return Persona(name)


def choose_persona(
    personas_dir: Path, requested: str, card_persona: str, default_name: str, default_description: str
) -> Persona:
    name = requested or card_persona
    if name:
        return load_persona(personas_dir, name)
    return Persona(default_name, default_description)

"""Who the user plays: a persona named on the command line, the card's locked persona, or the default.

Personas live in ``library/personas/``: ``<name>.json`` (``{"name", "description"}``) or ``<name>.md`` /
``<name>.txt`` (the description as text).  A name without a file is still a persona — just a name.
Order: a switch made inside the chat (a ``persona`` entry on its branch, so rewinding before it goes
back), the chat's own choice (``--persona``, stored in the chat header), then the card's ``卡.json``
``persona`` (locked per card), then ``config.toml``'s ``user_name`` / ``user_persona``.
A persona's picture is ``<name>.png`` (or ``.jpg`` / ``.webp`` / ``.gif``) beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.workspace import atomic
from peargarden.workspace.home import Home, sanitize_name
from peargarden.workspace.text_files import read_user_text
from peargarden.workspace.vault import Vault

# The custom entry a persona switch inside a chat records on the branch.
PERSONA_ENTRY_TYPE = "persona"
AVATAR_SUFFIXES = (".png", ".jpg", ".webp", ".gif")


class Persona(msgspec.Struct, frozen=True):
    name: str
    description: str = ""


def load_persona(personas_dir: Path, name: str) -> Persona:
    stem = sanitize_name(name) or name
    json_file = personas_dir / f"{stem}.json"
    try:
        if json_file.is_file():
            value = json.loads(read_user_text(json_file))
            if isinstance(value, dict):
                return Persona(str(value.get("name") or name), str(value.get("description") or ""))
        for suffix in (".md", ".txt"):
            text_file = personas_dir / f"{stem}{suffix}"
            if text_file.is_file():
                return Persona(name, read_user_text(text_file).strip())
    except (OSError, ValueError):  # FormatError is a ValueError too
        pass  # an unreadable persona file leaves the name usable
    return Persona(name)


def choose_persona(
    personas_dir: Path, requested: str, card_persona: str, default_name: str, default_description: str
) -> Persona:
    name = requested or card_persona
    if name:
        return load_persona(personas_dir, name)
    return Persona(default_name, default_description)


def recorded_persona(customs: list[Any]) -> str:
    """The persona of the latest switch among a branch's ``persona`` entries ("" when none)."""
    data = customs[-1].body.get("data") if customs else None
    return str(data.get("name") or "") if isinstance(data, dict) else ""


def persona_files(personas_dir: Path, name: str) -> list[Path]:
    """Every file of the persona *name* (its text and its picture) that exists."""
    stem = sanitize_name(name)
    if not stem:
        return []
    suffixes = (".json", ".md", ".txt", *AVATAR_SUFFIXES)
    return [personas_dir / f"{stem}{suffix}" for suffix in suffixes if (personas_dir / f"{stem}{suffix}").is_file()]


def persona_avatar(personas_dir: Path, name: str) -> Path | None:
    return next((p for p in persona_files(personas_dir, name) if p.suffix in AVATAR_SUFFIXES), None)


def speaker_avatar(personas_dir: Path, spoke_as: str, active: str, known: list[str] | None = None) -> str | None:
    """The file stem of the picture a user message shows, ``None`` for none.

    The persona the message records (its ``name``) when the library has that persona — with its
    picture, or none when it has none; otherwise (the default name, an imported chat's user) the
    active persona's picture, as SillyTavern shows the current persona's avatar on a message that
    carries none of its own.  *known*: :func:`persona_names`, when the caller already read them.
    """
    names = persona_names(personas_dir) if known is None else known
    stem = sanitize_name(spoke_as) if spoke_as else ""
    picture = persona_avatar(personas_dir, spoke_as if stem and stem in names else active)
    return picture.stem if picture is not None else None


def persona_names(personas_dir: Path) -> list[str]:
    """The stems of the library's personas (a text file each; pictures alone do not count)."""
    if not personas_dir.is_dir():
        return []
    return sorted({p.stem for p in personas_dir.iterdir() if p.suffix in (".json", ".md", ".txt") and p.is_file()})


MAX_PERSONA_NAME = 200  # characters, as a card's name


def persona_name(personas_dir: Path, name: str) -> str:
    """*name* as a persona is called, checked as a card's name is: spaces (line breaks too) collapsed,
    at most :data:`MAX_PERSONA_NAME` characters, something usable as a file name left, and no other
    persona already behind that file name (``旅人?`` and ``旅人_`` would share ``旅人_.json``)."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise BadInput("人设名为空（empty name）")
    if len(cleaned) > MAX_PERSONA_NAME:
        raise BadInput(f"人设名太长（最多 {MAX_PERSONA_NAME} 个字）")
    stem = sanitize_name(cleaned)
    if not stem:
        raise BadInput(f"人设名「{cleaned}」只有标点或空白，无法用作文件名（unusable name）")
    if stem in persona_names(personas_dir):
        other = load_persona(personas_dir, stem).name
        if other != cleaned:
            raise BadInput(f"人设名「{cleaned}」和已有的人设「{other}」会用同一个文件 {stem}，请换一个名字")
    return cleaned


def save_persona(personas_dir: Path, name: str, description: str) -> str:
    """``<name>.json`` (``{"name", "description"}``), written atomically; the name as kept (see
    :func:`persona_name`)."""
    name = persona_name(personas_dir, name)
    atomic.write_json(personas_dir / f"{sanitize_name(name)}.json", {"name": name, "description": description})
    return name


def delete_persona(home: Home, name: str) -> dict[str, Any]:
    """Remove a persona's files (text and picture); the vault keeps a snapshot first."""
    snapshot = Vault(home).snapshot(f"删除人设「{name}」之前") or Vault(home).latest()
    removed = persona_files(home.personas_dir, name)
    for path in removed:
        path.unlink()
    return {"deleted": name, "files": [p.name for p in removed], "snapshot": snapshot.id if snapshot else None}


def save_avatar(personas_dir: Path, name: str, data: bytes, suffix: str) -> None:
    """The persona's picture as ``<name><suffix>``, replacing one of another type."""

    stem = sanitize_name(name)
    atomic.write_bytes(personas_dir / f"{stem}{suffix}", data)
    for other in AVATAR_SUFFIXES:
        if other != suffix and (personas_dir / f"{stem}{other}").is_file():
            (personas_dir / f"{stem}{other}").unlink()

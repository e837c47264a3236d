"""Create the data folder and its default content (``pear init``).

Every default is written only where nothing exists yet: a file the user has (even an empty one,
even one they edited) is never overwritten.  Running it again is harmless and returns ``[]``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from peargarden.errors import BadInput, PearError, storage_error

from . import atomic
from .home import CARD_SETTINGS_FILE, Home

#: The bundled card and the book mounted on it.
DEFAULT_CARD = "青梧"
DEFAULT_LOREBOOK = "栖水镇"


def bundled(*parts: str) -> bytes:
    """The bytes of a file shipped in ``peargarden/data/``."""
    node = resources.files("peargarden").joinpath("data")
    for part in parts:
        node = node.joinpath(part)
    return node.read_bytes()


def seed_home(home: Home) -> list[Path]:
    """Create whatever of the data folder is missing; return the paths created, in order."""
    try:
        return _seed(home)
    except OSError as exc:
        failed = PearError(f"无法创建数据文件夹：{exc.strerror or exc}（write failed）", path=exc.filename)
        raise storage_error(exc) or failed from None


def _seed(home: Home) -> list[Path]:
    if home.root.exists() and not home.root.is_dir():
        raise BadInput("数据文件夹的位置上是一个文件（data folder path is a file）", path=home.root)
    # Read every bundled file before touching the disk: a broken install writes nothing.
    files: list[tuple[Path, bytes]] = [
        (home.config_file, bundled("config.toml")),
        (home.system_file, bundled("SYSTEM.md")),
        (home.append_system_file, bundled("APPEND_SYSTEM.md")),
        (home.authoring_file, bundled("AUTHORING.md")),
        (home.lorebooks_dir / f"{DEFAULT_LOREBOOK}.json", bundled("lorebooks", f"{DEFAULT_LOREBOOK}.json")),
    ]
    card_dir = home.card_dir(DEFAULT_CARD)
    # The bundled card is seeded as a whole folder: once the folder exists it is the user's.
    if not card_dir.exists():
        files.append((card_dir / f"{DEFAULT_CARD}.png", bundled("cards", f"{DEFAULT_CARD}.png")))
        files.append((card_dir / CARD_SETTINGS_FILE, _card_settings()))

    created: list[Path] = []
    for folder in (
        home.root,
        home.cards_dir,
        home.lorebooks_dir,
        home.presets_dir,
        home.personas_dir,
        home.skills_dir,
    ):
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(folder)
    for path, data in files:
        if path.exists() or path.is_symlink():
            continue
        atomic.write_bytes(path, data)
        created.append(path)
    return created


def _card_settings() -> bytes:
    return (json.dumps({"lorebooks": [DEFAULT_LOREBOOK]}, ensure_ascii=False, indent=2) + "\n").encode("utf-8")

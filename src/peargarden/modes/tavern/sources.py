"""What tavern mode reads of a card by name: its worlds (lorebooks) and its Chat Completion preset.

One reader for the beat (:mod:`.setup`), ``pear tavern assemble|set`` and the web's tavern panel, so
they cannot disagree on which books a card has or where a preset is looked up.  The books come in
SillyTavern's order: the card's embedded book first, then the mounted library books, then the
card's supplement book ``补充设定集.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peargarden.formats import Card
from peargarden.formats.presets import read_preset
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.inputs import read_input, read_json
from peargarden.workspace.library import lorebook_name, lorebook_path, no_such_preset, read_library_lorebook
from peargarden.worldinfo.sources import character_book_to_world

if TYPE_CHECKING:
    from peargarden.modes.base import BeatEnv

SUPPLEMENT_WORLD = "补充设定集"

# kept(key, file, read): read() — or a value kept from an earlier read while *file* is unchanged.
Keeper = Callable[[str, Path | None, Callable[[], Any]], Any]


def _fresh(_key: str, _path: Path | None, read: Callable[[], Any]) -> Any:
    return read()


_WORLDS_KEY = "tavern.worlds"


def chat_keeper(env: BeatEnv) -> Keeper:
    """A :data:`Keeper` over the chat's memo (``BeatEnv.cache``): a file's value is read again only
    when the file changed, and an unchanged file gives the very object read last time (the lorebook
    cache keys on object identity)."""

    def kept(key: str, path: Path | None, read: Callable[[], Any]) -> Any:
        try:
            stat = path.stat() if path is not None else None
        except OSError:
            stat = None
        if stat is None:
            return read()
        stamp = (str(path), stat.st_mtime_ns, stat.st_size)
        with env.cache_lock:
            memo = env.cache.setdefault(_WORLDS_KEY, {})
            hit = memo.get(key)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        value = read()
        with env.cache_lock:
            memo[key] = (stamp, value)
        return value

    return kept


def card_worlds(
    home: Home, folder: CardFolder, settings: Settings, card: Card, kept: Keeper = _fresh
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The card's worlds by name and the book order (see the module docstring)."""
    worlds: dict[str, dict[str, Any]] = {}
    books: list[str] = []
    for name in settings.lorebooks:
        worlds[name] = kept(f"library:{name}", lorebook_path(home, name), partial(read_library_lorebook, home, name))
        books.append(name)
    supplement = folder.supplement_book_file
    if supplement.is_file():
        value = kept("supplement", supplement, partial(read_json, supplement))
        if isinstance(value, dict):
            worlds[SUPPLEMENT_WORLD] = value
            books.append(SUPPLEMENT_WORLD)
    embedded = card.data.get("character_book")
    if isinstance(embedded, dict) and embedded.get("entries"):
        name, world = kept(
            "embedded", folder.card_file(), lambda: character_book_to_world(embedded, card.name, editor_resave=False)
        )
        worlds.setdefault(name, world)
        books.insert(0, name)
    return worlds, books


def preset_file(home: Home, name: str) -> Path:
    return home.presets_dir / f"{lorebook_name(name)}.json"


def read_named_preset(home: Home, name: str) -> dict[str, Any]:
    """The library preset called *name*; :class:`NotFound` when there is none."""
    path = preset_file(home, name)
    if not path.is_file():
        raise no_such_preset(home, name)
    return dict(read_preset(read_input(path), str(path)))

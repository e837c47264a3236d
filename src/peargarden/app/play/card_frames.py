"""What the chat page's card frames run, made ready on the server: a status bar's document with its
scripts' ``top`` read as the frame's host (``scripting/page_source.py`` says why), and the libraries of
our own a frame may get besides the packaged ones (``z``: the zod of ``variables/zod_lite.js``); and
which of a card's scripts only the page runs (the CLI says so)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

from peargarden.errors import NotFound
from peargarden.scripting.api import exported
from peargarden.scripting.page_source import rename_top, rename_top_in_html
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.script_allowance import card_helper_scripts, scripts_allowance

# name → (package, file) of our own code
_OWN_LIBRARIES = {"zod": ("peargarden.variables", "zod_lite.js")}


def frame_html(html: str) -> str:
    """A card's front-end document for a sandboxed frame (its scripts' ``top`` renamed)."""
    return rename_top_in_html(html)


def frame_script(source: str) -> str:
    """A card's script (a TavernHelper script's content) for a sandboxed frame."""
    return rename_top(source)


@cache
def own_library(name: str) -> str:
    """One of our own frame libraries; ``NotFound`` for another name."""
    if name not in _OWN_LIBRARIES:
        raise NotFound(f"没有这个库：{name}")
    package, file = _OWN_LIBRARIES[name]
    return files(package).joinpath(file).read_text(encoding="utf-8")


def own_libraries() -> tuple[str, ...]:
    return tuple(_OWN_LIBRARIES)


def scripts_needing_page(folder: CardFolder) -> list[str]:
    """The names of the card's enabled TavernHelper scripts that only the chat page runs: neither MVU
    (the built-in one keeps the variables) nor a zod schema (run in QuickJS here too).  None when the
    user said no to the card's scripts."""
    if scripts_allowance(folder) is False:
        return []
    return [s.name for s in card_helper_scripts(folder.load_card()) if s.enabled and s.kind == "other"]


def tavern_helper_names() -> dict[str, Any]:
    """TavernHelper's functions as a frame knows them: ``sync`` and ``async`` (answered here),
    ``refused`` (each with the reason its error gives)."""
    return exported()


__all__ = ["frame_html", "frame_script", "own_libraries", "own_library", "scripts_needing_page", "tavern_helper_names"]

"""What the chat page's card frames run, made ready on the server: a status bar's document with its
scripts' ``top`` read as the frame's host (``scripting/page_source.py`` says why), and the libraries of
our own a frame may get besides the packaged ones (``z``: the zod of ``variables/zod_lite.js``)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

from peargarden.errors import NotFound
from peargarden.scripting.api import exported
from peargarden.scripting.page_source import rename_top, rename_top_in_html

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


def tavern_helper_names() -> dict[str, Any]:
    """TavernHelper's functions as a frame knows them: ``sync`` and ``async`` (answered here),
    ``refused`` (each with the reason its error gives)."""
    return exported()


__all__ = ["frame_html", "frame_script", "own_libraries", "own_library", "tavern_helper_names"]

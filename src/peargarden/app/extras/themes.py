"""Themes (SillyTavern's UI themes, 「美化」): imported, chosen, exported, light or dark, user CSS.

Themes are SillyTavern's own files, kept as they came in ``library/themes/<name>.json`` (checked first:
a file that is not a theme is one line naming it, nothing written); ``[theme] name`` picks the one in
force ("" = Pear Garden's own look) and ``[theme] mode`` light, dark or auto.  The user CSS is the
theme's ``custom_css`` (as in SillyTavern): editing it with no theme chosen saves Pear Garden's look
as a theme named 「我的主题」 holding it.  :func:`page_style` is what every page carries, read again
only when config.toml or the theme's file changed.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, NotFound
from peargarden.extras.themes import own_theme, page_css
from peargarden.formats import read_theme, theme_from_object, theme_to_json
from peargarden.workspace import atomic
from peargarden.workspace.home import Home, sanitize_name
from peargarden.workspace.inputs import read_input
from peargarden.workspace.text_files import read_user_text

from .settings import save_settings, theme_settings

THEMES_DIR = "library/themes"
OWN_THEME = "我的主题"


def themes_dir(home: Home) -> Path:
    return home.root / THEMES_DIR


def theme_path(home: Home, name: str) -> Path:
    stem = sanitize_name(name)
    if not stem:
        raise BadInput(f"主题名不能用：{name!r}")
    return themes_dir(home) / f"{stem}.json"


def list_themes(home: Home) -> list[dict[str, Any]]:
    """Every kept theme: its name and whether it is the one in force; a damaged file says so."""
    active = theme_settings(home).name
    found: list[dict[str, Any]] = []
    folder = themes_dir(home)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            name = str(read_theme(read_input(path), str(path))["name"])
            found.append({"name": name, "active": name == active, "error": ""})
        except BadInput as error:
            found.append({"name": path.stem, "active": False, "error": str(error)})
    return found


def load_theme(home: Home, name: str) -> dict[str, Any]:
    path = theme_path(home, name)
    if not path.is_file():
        raise NotFound(f"没有主题「{name}」")
    return read_theme(read_input(path), str(path))


def import_theme(home: Home, data: bytes, filename: str) -> dict[str, Any]:
    """A SillyTavern theme file kept (a theme of the same name is replaced); returns the theme and
    what its CSS will have taken out."""
    theme = read_theme(data, filename)
    atomic.write_bytes(theme_path(home, str(theme["name"])), theme_to_json(theme))
    _, removed = page_css(theme, "light")
    return {"name": theme["name"], "removed": removed}


def import_theme_file(home: Home, path: Path) -> dict[str, Any]:
    """``pear theme import FILE``: the file read (one line when it cannot be) and imported."""
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise NotFound(f"没有这个文件：{path}") from None
    return import_theme(home, data, str(path))


def export_theme(home: Home, name: str | None = None) -> tuple[str, bytes]:
    """A theme as SillyTavern saves it: *name*, else the one in force, else Pear Garden's own look."""
    cfg = theme_settings(home)
    chosen = name if name is not None else cfg.name
    theme = load_theme(home, chosen) if chosen else own_theme("梨园", cfg.mode)
    return str(theme["name"]), theme_to_json(theme)


def use_theme(home: Home, name: str) -> None:
    """Put theme *name* in force ("" = Pear Garden's own look)."""
    if name:
        load_theme(home, name)
    save_settings(home, "theme", {"name": name})


def delete_theme(home: Home, name: str) -> None:
    path = theme_path(home, name)
    if not path.is_file():
        raise NotFound(f"没有主题「{name}」")
    if theme_settings(home).name == name:
        save_settings(home, "theme", {"name": ""})
    path.unlink()


def set_mode(home: Home, mode: str) -> None:
    save_settings(home, "theme", {"mode": mode})


def save_css(home: Home, css: str) -> dict[str, Any]:
    """The user CSS kept as the theme in force's ``custom_css`` (with none in force, as 「我的主题」,
    made from Pear Garden's look and put in force); returns what the page will have taken out of it."""
    cfg = theme_settings(home)
    theme = load_theme(home, cfg.name) if cfg.name else own_theme(OWN_THEME, cfg.mode)
    theme = theme_from_object({**theme, "custom_css": css}, "custom_css")
    atomic.write_bytes(theme_path(home, str(theme["name"])), theme_to_json(theme))
    if not cfg.name:
        save_settings(home, "theme", {"name": OWN_THEME})
    _, removed = page_css(theme, cfg.mode)
    return {"name": theme["name"], "removed": removed}


def save_css_file(home: Home, path: Path) -> dict[str, Any]:
    """``pear theme css FILE``: the user CSS from a file (``-``: standard input)."""
    if str(path) == "-":
        return save_css(home, sys.stdin.read())
    try:
        return save_css(home, read_user_text(path))
    except FileNotFoundError:
        raise NotFound(f"没有这个文件：{path}") from None
    except OSError as error:
        raise BadInput(f"读不了：{error.strerror or error}", path=path) from None


_kept: dict[Path, tuple[tuple[Any, ...], str]] = {}
_lock = threading.Lock()


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def page_style(home: Home) -> str:
    """The stylesheet every page carries (``""`` for the light look and no theme), made again only
    when config.toml or the theme's file changed.  A theme that no longer reads is left out: a page
    always draws."""
    config = _stamp(home.config_file)
    with _lock:
        kept = _kept.get(home.root)
    if kept is not None and kept[0][0] == config:
        name_stamp = kept[0][1:]
        if not name_stamp or _stamp(name_stamp[0]) == name_stamp[1]:
            return kept[1]
    try:
        cfg = theme_settings(home)
        path = theme_path(home, cfg.name) if cfg.name else None
        theme = read_theme(read_input(path), str(path)) if path is not None and path.is_file() else None
    except BadInput:
        cfg, path, theme = None, None, None
    css, _ = page_css(theme, cfg.mode if cfg is not None else "light")
    key: tuple[Any, ...] = (config, path, _stamp(path)) if path is not None else (config,)
    with _lock:
        _kept[home.root] = (key, css)
    return css


def page_css_removed(home: Home) -> list[str]:
    """What the page takes out of the theme in force's CSS (``[]`` with none)."""
    cfg = theme_settings(home)
    if not cfg.name:
        return []
    _, removed = page_css(load_theme(home, cfg.name), cfg.mode)
    return removed

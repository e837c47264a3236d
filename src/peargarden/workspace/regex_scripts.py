"""Regex scripts of the data folder: global scripts in the library and each card's allowance.

- ``library/regex/<name>.json``: SillyTavern regex-script files (one script or an array), imported
  with ``pear import`` and stored byte for byte.  Together, in name order, they are SillyTavern's
  global scripts (``extension_settings.regex``): they run for every card.
- A card's own scripts (``data.extensions.regex_scripts``) run only when the user allows them for
  that card, as SillyTavern's ``character_allowed_regex`` does.  The answer lives in the card's
  ``卡.json`` as ``"regex_allowed": true|false``; absent means "not asked yet", and fronts ask once
  (at import or at the first play) and store the answer.
"""

from __future__ import annotations

from typing import Any

from peargarden.errors import FormatError
from peargarden.formats import Card, read_regex_scripts

from .cards import CardFolder
from .home import Home
from .inputs import read_input
from .library import JSON_SUFFIX, list_regex_names

ALLOW_KEY = "regex_allowed"


def global_regex_scripts(home: Home) -> tuple[list[dict[str, Any]], list[str]]:
    """Every global script (files in name order, scripts in file order) and a warning per bad file.

    A damaged file is skipped with a warning rather than failing every generation."""
    scripts: list[dict[str, Any]] = []
    warnings: list[str] = []
    for name in list_regex_names(home):
        path = home.regex_dir / f"{name}{JSON_SUFFIX}"
        try:
            scripts.extend(read_regex_scripts(read_input(path), str(path)))
        except (FormatError, OSError) as exc:
            warnings.append(f"正则脚本文件「{name}」无法读取，已跳过：{exc}")
    return scripts, warnings


def card_regex_scripts(card: Card) -> list[dict[str, Any]]:
    """The card's own scripts (``data.extensions.regex_scripts``), objects only."""
    raw = card.extensions.get("regex_scripts") if isinstance(card.extensions, dict) else None
    return [item for item in raw if isinstance(item, dict)] if isinstance(raw, list) else []


def regex_allowance(folder: CardFolder) -> bool | None:
    """True / False as the user answered; None when never asked."""
    value = folder.settings().get(ALLOW_KEY)
    return value if isinstance(value, bool) else None


def set_regex_allowance(folder: CardFolder, allowed: bool) -> None:
    settings = folder.settings()
    settings[ALLOW_KEY] = allowed
    folder.write_settings(settings)


def needs_regex_question(folder: CardFolder, card: Card) -> bool:
    """The card has scripts of its own and the user was never asked about them."""
    return bool(card_regex_scripts(card)) and regex_allowance(folder) is None


def regex_question(card: Card) -> str:
    """The one question a front asks (SillyTavern asks the same when such a card is imported)."""
    scripts = card_regex_scripts(card)
    names = "、".join(str(s.get("scriptName") or "未命名") for s in scripts[:5])
    more = f" 等 {len(scripts)} 个" if len(scripts) > 5 else ""
    return (
        f"角色卡「{card.name}」自带 {len(scripts)} 个正则脚本（{names}{more}）。"
        "允许它们在这张卡上运行吗？脚本会改写发给模型的文字和显示的文字。"
    )

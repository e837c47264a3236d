"""The card studio for the fronts (the web's studio page): a card's fields and greetings, the
entries of its lorebooks and supplement book, the ``创作/`` project (see :mod:`.card_project`), and
one lorebook entry changed or added in place.

Card HTML (greetings) is returned as text; the page shows it only inside a sandboxed iframe.
"""

from __future__ import annotations

import json
from typing import Any

from peargarden.errors import BadInput, NotFound
from peargarden.stage.lore.book import (
    SUPPLEMENT_UID_START,
    add_book_entry,
    find_book_entry,
    new_supplement_book,
    update_book_entry,
)
from peargarden.stage.lore.entries import fingerprint
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path, read_library_lorebook

from ..library.json_files import JsonStyle, detect_style
from .card_project import open_project, project_view

CARD_FIELDS = ("description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
               "system_prompt", "post_history_instructions")  # fmt: skip


def _keys(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(k) for k in value if str(k).strip()]
    if isinstance(value, str) and value.strip():
        return [k.strip() for k in value.split(",") if k.strip()]
    return []


def _entries(book: dict[str, Any]) -> list[dict[str, Any]]:
    raw = book.get("entries")
    items = raw.values() if isinstance(raw, dict) else (raw if isinstance(raw, list) else [])
    rows = []
    for entry in items:
        if not isinstance(entry, dict):
            continue
        rows.append(
            {
                "uid": entry.get("uid"),
                "comment": str(entry.get("comment") or ""),
                "keys": _keys(entry.get("key", entry.get("keys"))),
                "secondary": _keys(entry.get("keysecondary", entry.get("secondary_keys"))),
                # Blue (constant, always sent) or green (sent when a key matches), as SillyTavern draws them.
                "kind": "constant" if entry.get("constant") else "keyword",
                "order": entry.get("order", entry.get("insertion_order", 100)),
                "disabled": bool(entry.get("disable")) or entry.get("enabled") is False,
                "content": str(entry.get("content") or ""),
                "fp": fingerprint(str(entry.get("content") or "").replace("\r\n", "\n")),
            }
        )
    rows.sort(key=lambda r: (r["order"] if isinstance(r["order"], int | float) else 100, str(r["uid"])))
    return rows


def studio_view(home: Home, card: str) -> dict[str, Any]:
    """Everything the studio page shows of *card*."""
    folder = open_card(home, card)
    loaded = folder.load_card()
    data = loaded.data
    settings = folder.effective_settings(load_settings(home.config_file))
    books = []
    for name in settings.lorebooks:
        try:
            books.append({"name": name, "supplement": False, "entries": _entries(read_library_lorebook(home, name))})
        except (NotFound, BadInput) as error:
            books.append({"name": name, "supplement": False, "entries": [], "error": str(error)})
    supplement = folder.supplement_book_file
    if supplement.is_file():
        try:
            value = json.loads(supplement.read_text(encoding="utf-8"))
            books.append({"name": supplement.stem, "supplement": True, "entries": _entries(value)})
        except (OSError, ValueError) as error:
            books.append({"name": supplement.stem, "supplement": True, "entries": [], "error": str(error)})
    else:
        books.append({"name": supplement.stem, "supplement": True, "entries": []})
    alternates = data.get("alternate_greetings")
    return {
        "folder": folder.folder,
        "name": loaded.name,
        "fields": {name: str(data.get(name) or "") for name in CARD_FIELDS},
        "greetings": [str(data.get("first_mes") or "")]
        + ([str(g) for g in alternates if isinstance(g, str)] if isinstance(alternates, list) else []),
        "lorebooks": books,
        "project": project_view(folder),
    }


def expand(home: Home, card: str) -> dict[str, Any]:
    """Expand the card into ``创作/`` (one file per slot): the files written and the project."""
    project = open_project(home, card)
    written = project.expand()
    return {"written": written, "project": project_view(project.folder)}


def apply(home: Home, card: str) -> dict[str, Any]:
    """Write the changed slots back into the card (refused while a check finds problems)."""
    project = open_project(home, card)
    changes = project.apply()
    return {"applied": [c.label for c in changes], "project": project_view(project.folder)}


def save_lore_entry(
    home: Home,
    card: str,
    book_name: str,
    *,
    supplement: bool,
    fp: str | None,
    comment: str | None = None,
    keys: list[str] | None = None,
    content: str | None = None,
    order: int | None = None,
    constant: bool | None = None,
    disabled: bool | None = None,
) -> None:
    """Change one lorebook entry (found by its content fingerprint *fp*: title, keys, content, order,
    constant or keyword, on/off), or with no *fp* add one to the card's supplement book.  The book
    file is written atomically in its own JSON style; the next beat reads it."""
    folder = open_card(home, card)
    path = folder.supplement_book_file if supplement else lorebook_path(home, book_name)
    style = JsonStyle()  # a new supplement book: tab-indented, like the books the stage writes
    if path.is_file():
        try:
            original = path.read_bytes().decode("utf-8")  # not read_text: CRLF must stay visible
            book = json.loads(original)
            style = detect_style(original, style)  # a small edit stays a small diff
        except (OSError, ValueError) as error:
            raise BadInput(f"世界书读不出来：{error}", path=path) from None
    elif supplement:
        book = new_supplement_book()
    else:
        raise NotFound(f"世界书库里没有「{book_name}」")
    if fp is None:
        if not supplement:
            raise BadInput("新条目只能加进这张卡的补充设定集")
        if not (content or "").strip():
            raise BadInput("条目内容是空的")
        added = add_book_entry(book, title=comment or "", keys=keys or [], content=content or "",
                               constant=bool(constant), uid_start=SUPPLEMENT_UID_START)  # fmt: skip
        if added is None:
            raise BadInput("内容与已有条目重复，未写入")
        book = added[0]
        fp = fingerprint((content or "").strip())
    else:
        if content is not None and not content.strip():
            raise BadInput("条目内容是空的")
        updated = update_book_entry(book, fp, title=comment, keys=keys, content=content,
                                    constant=constant)  # fmt: skip
        if updated is None:
            raise NotFound("没有这个条目（可能已被改过，请刷新）")
        book = updated
        fp = fingerprint(content.strip()) if content is not None else fp
    found = find_book_entry(book, fp)
    if found is not None:
        entry = found[1]
        if order is not None:
            entry["order"] = order
        if disabled is not None:
            entry["disable"] = disabled
    atomic.write_text(path, style.dumps(book))

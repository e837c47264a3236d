"""Editing a lorebook entry from the card studio keeps the book file's own style (2 or 4 spaces,
tabs, one line; final newline or not): a small edit stays a small diff."""

from __future__ import annotations

import difflib
import json
import urllib.parse
import urllib.request
from typing import Any

import pytest
from web_harness import Served

from peargarden.app.library.json_files import JsonStyle, detect_style


@pytest.mark.parametrize(
    ("indent", "final_newline", "newline"),
    [(2, True, "\n"), (4, False, "\n"), ("\t", True, "\n"), (4, True, "\r\n")],
    ids=["two-spaces", "four-spaces", "tabs", "crlf"],
)
def test_an_entry_edit_keeps_the_books_indentation(
    served: Served, indent: int | str, final_newline: bool, newline: str
) -> None:
    book_file = served.home.lorebooks_dir / "栖水镇.json"
    saved = book_file.read_bytes()
    try:
        book = json.loads(saved.decode("utf-8"))
        original = json.dumps(book, ensure_ascii=False, indent=indent) + ("\n" if final_newline else "")
        original = original.replace("\n", newline)
        book_file.write_bytes(original.encode("utf-8"))
        entry = next(e for e in book["entries"].values() if not e.get("constant"))
        lore = _studio_entry(served, str(entry.get("comment") or ""))
        longer = entry["content"] + "雨夜里灯笼不灭。"
        _post(served, {"book": "栖水镇", "fp": lore["fp"], "order": 7, "content": longer})

        edited = book_file.read_bytes().decode("utf-8")
        assert edited.count("\r\n") == (edited.count("\n") if newline == "\r\n" else 0)
        before, after = original.splitlines(), edited.splitlines()
        # autojunk off: a book repeats lines like `"addMemo": true,` often enough to be called junk.
        opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
        changed = [
            line
            for tag, i1, i2, j1, j2 in opcodes
            if tag != "equal"
            for line in ["-" + x for x in before[i1:i2]] + ["+" + x for x in after[j1:j2]]
        ]
        # Only the lines of the fields the edit touched differ (update_book_entry also clears
        # `selective` of an entry without secondary keys); the rest of the file is as it was.
        touched = {json.loads("{" + line[1:].strip().rstrip(",") + "}").popitem()[0] for line in changed}
        assert touched <= {"content", "order", "selective"} and "content" in touched, changed
        assert len(changed) <= 6 and any("雨夜里灯笼不灭" in line for line in changed)
        assert edited.endswith(newline) == final_newline
        assert detect_style(edited) == detect_style(original)
    finally:
        book_file.write_bytes(saved)


def test_style_detection() -> None:
    assert detect_style('{\n    "a": {\n        "b": 1\n    }\n}\n') == JsonStyle("    ", True)
    assert detect_style('{\n  "名": "青梧"\n}') == JsonStyle("  ", False)
    assert detect_style('{\n\t"名": "青梧"\n}\n') == JsonStyle("\t", True)
    assert detect_style('{"名":"青梧"}') == JsonStyle(None, False)
    assert JsonStyle(None, False).dumps({"名": "青梧", "键": [1]}) == '{"名":"青梧","键":[1]}'
    assert detect_style("", JsonStyle("  ")) == JsonStyle("  ")
    crlf = detect_style('{\r\n    "名": "青梧\\n梧桐"\r\n}\r\n')
    assert crlf == JsonStyle("    ", True, "\r\n")
    assert crlf.dumps({"名": "青梧\n梧桐"}) == '{\r\n    "名": "青梧\\n梧桐"\r\n}\r\n'
    assert JsonStyle("  ").dumps({"名": "青梧"}) == '{\n  "名": "青梧"\n}\n'


def _studio_entry(served: Served, title: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{served.url}/api/studio/{urllib.parse.quote('青梧')}", timeout=30) as response:
        studio = json.loads(response.read())
    for book in studio["lorebooks"]:
        for entry in book["entries"]:
            if book["name"] == "栖水镇" and entry["comment"] == title:
                return dict(entry)
    raise AssertionError(f"no entry {title!r} in {json.dumps(studio, ensure_ascii=False)[:400]}")


def _post(served: Served, body: dict[str, Any]) -> None:
    request = urllib.request.Request(
        f"{served.url}/api/studio/{urllib.parse.quote('青梧')}/lore",
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200

"""Write a JSON file back in the style it was read in (indentation, line endings, final newline, a
UTF-8 byte-order mark), so a small edit from the page is a small diff in the user's file (SillyTavern
writes 4 spaces, other tools 2 or tabs; files edited on Windows may end their lines with CRLF)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.workspace import atomic

_BOM = "\ufeff"
# A lone UTF-16 surrogate (JSON allows "\ud800"; UTF-8 cannot hold it): written back as the escape.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonStyle(msgspec.Struct, frozen=True):
    indent: str | None = "\t"  # None: everything on one line
    final_newline: bool = True
    newline: str = "\n"
    bom: bool = False

    def dumps(self, value: Any) -> str:
        if self.indent is None:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        else:
            text = json.dumps(value, ensure_ascii=False, indent=self.indent)
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        text += "\n" if self.final_newline else ""
        # JSON escapes newlines inside strings, so every raw "\n" here is a line break.
        text = text.replace("\n", self.newline) if self.newline != "\n" else text
        return _BOM + text if self.bom else text


def detect_style(text: str, default: JsonStyle | None = None) -> JsonStyle:
    """The indentation of the first indented line (tabs, or that many spaces) and whether the text
    ends with a newline; *default* when the text says nothing (empty)."""
    fallback = default or JsonStyle()
    bom = text.startswith(_BOM)
    text = text.removeprefix(_BOM)
    body = text.rstrip("\r\n")
    if not body.strip():
        return fallback
    final_newline = text != body
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = body.splitlines()
    if len(lines) == 1:
        return JsonStyle(None, final_newline, newline, bom)
    for line in lines[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            return JsonStyle("\t" if lead.startswith("\t") else " " * len(lead), final_newline, newline, bom)
    return JsonStyle(fallback.indent, final_newline, newline, bom)


def read_json_file(path: Path, default: JsonStyle | None = None) -> tuple[Any, JsonStyle]:
    """A JSON file's value and its style; a damaged file is a :class:`BadInput` naming it."""
    try:
        text = path.read_bytes().decode("utf-8")  # not read_text: CRLF must stay visible
        return json.loads(text.removeprefix(_BOM)), detect_style(text, default)
    except (OSError, ValueError) as error:
        raise BadInput(f"JSON 文件读不出来：{error}", path=path) from None


def write_json_file(path: Path, value: Any, style: JsonStyle) -> None:
    """Atomically (temp file, fsync, rename), in *style*."""
    atomic.write_text(path, style.dumps(value))

"""Write a JSON file back in the style it was read in (indentation, line endings, final newline), so a
small edit from the page is a small diff in the user's file (SillyTavern writes 4 spaces, other tools 2
or tabs; files edited on Windows may end their lines with CRLF)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JsonStyle:
    indent: str | None = "\t"  # None: everything on one line
    final_newline: bool = True
    newline: str = "\n"

    def dumps(self, value: Any) -> str:
        if self.indent is None:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        else:
            text = json.dumps(value, ensure_ascii=False, indent=self.indent)
        text += "\n" if self.final_newline else ""
        # JSON escapes newlines inside strings, so every raw "\n" here is a line break.
        return text.replace("\n", self.newline) if self.newline != "\n" else text


def detect_style(text: str, default: JsonStyle | None = None) -> JsonStyle:
    """The indentation of the first indented line (tabs, or that many spaces) and whether the text
    ends with a newline; *default* when the text says nothing (empty)."""
    fallback = default or JsonStyle()
    body = text.rstrip("\r\n")
    if not body.strip():
        return fallback
    final_newline = text != body
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = body.splitlines()
    if len(lines) == 1:
        return JsonStyle(None, final_newline, newline)
    for line in lines[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            return JsonStyle("\t" if lead.startswith("\t") else " " * len(lead), final_newline, newline)
    return JsonStyle(fallback.indent, final_newline, newline)

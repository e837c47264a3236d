"""Find the JSON object in a model's reply: fences, prose around it and trailing junk are tolerated.

Every ``{`` is tried as a start; from there a brace scan that respects strings finds the matching
``}``; the first span that parses as an object wins.  Nothing found ⇒ ``None`` (callers skip).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["find_object"]


def _balanced_end(text: str, start: int) -> int:
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def find_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    while start >= 0:
        end = _balanced_end(text, start)
        if end > start:
            try:
                value = json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                return value
        start = text.find("{", start + 1)
    return None

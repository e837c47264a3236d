"""Per-scan working copies of entries (SillyTavern clones entries for every scan and mutates them)."""

from __future__ import annotations

from typing import Any

from . import _js
from .types import WorldInfoEntry

KNOWN_DECORATORS = ("@@activate", "@@dont_activate")


def parse_decorators(content: str) -> tuple[tuple[str, ...], str]:
    """Leading ``@@`` lines → (known decorators, remaining content)."""
    if not content.startswith("@@"):
        return (), content

    def known(line: str) -> bool:
        if line.startswith("@@@"):
            line = line[1:]
        return any(line.startswith(d) for d in KNOWN_DECORATORS)

    lines = content.split("\n")
    decorators: list[str] = []
    new_content = content
    fallbacked = False
    for i, line in enumerate(lines):
        if line.startswith("@@"):
            if line.startswith("@@@") and not fallbacked:
                continue
            if known(line):
                decorators.append(line[1:] if line.startswith("@@@") else line)
                fallbacked = False
            else:
                fallbacked = True
        else:
            new_content = "\n".join(lines[i:])
            break
    # A content made only of decorator lines keeps its text, as in SillyTavern.
    return tuple(decorators), new_content


class Prepared:
    """One entry during one scan: parsed decorators, current content, lazy hash."""

    __slots__ = ("_hash", "content", "decorators", "entry", "index", "raw", "timed_key", "world")

    def __init__(self, entry: WorldInfoEntry, index: int) -> None:
        self.entry = entry
        self.raw = entry.raw
        self.world = entry.world
        self.index = index
        raw_content = self.raw.get("content")
        decorators, content = parse_decorators(_js.to_string(raw_content) if _js.truthy(raw_content) else "")
        self.decorators = decorators
        self.content = content
        self.timed_key = f"{entry.world}.{_js.to_string(_js.get(self.raw, 'uid'))}"
        self._hash: int | None = None

    def get(self, name: str) -> Any:
        return self.raw.get(name, _js.UNDEFINED)

    @property
    def hash(self) -> int:
        """``getStringHash(JSON.stringify(entry))`` of the entry as ST holds it before the scan."""
        if self._hash is None:
            shaped: dict[str, Any] = {"uid": _js.get(self.raw, "uid"), "world": self.world}
            for key, value in self.raw.items():
                if key != "uid":
                    shaped[key] = value
            shaped["decorators"] = list(self.decorators)
            shaped["content"] = self.content
            self._hash = _js.string_hash(_js.stringify(shaped))
        return self._hash

"""Remembered hashes keyed by stat signature, so an unchanged library is not read again.

An entry is trusted only while size, mtime, ctime and inode are all the same.  Like git's "racy"
rule, a file modified within the last couple of seconds is not remembered: a second write in the
same timestamp tick could keep every field equal while changing the content.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import atomic
from ._scan import FileSignature

_VERSION = 1
RACY_WINDOW_NS = 2_000_000_000


class StatCache:
    def __init__(self, path: Path, *, racy_window_ns: int = RACY_WINDOW_NS) -> None:
        self.path = path
        self.racy_window_ns = racy_window_ns
        self._entries: dict[str, tuple[list[int], str]] = {}
        self._dirty = False
        self._load()

    def _load(self) -> None:
        try:
            value = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, UnicodeDecodeError, json.JSONDecodeError):
            return  # a missing or damaged cache only costs a re-hash
        if not isinstance(value, dict) or value.get("version") != _VERSION:
            return
        entries = value.get("entries")
        if not isinstance(entries, dict):
            return
        for rel, item in entries.items():
            if (
                isinstance(item, list)
                and len(item) == 2
                and isinstance(item[0], list)
                and all(isinstance(n, int) for n in item[0])
                and isinstance(item[1], str)
            ):
                self._entries[rel] = (item[0], item[1])

    def lookup(self, rel: str, signature: FileSignature) -> str | None:
        entry = self._entries.get(rel)
        if entry is not None and entry[0] == signature.key():
            return entry[1]
        return None

    def remember(self, rel: str, signature: FileSignature, sha: str, *, now_ns: int | None = None) -> None:
        now_ns = time.time_ns() if now_ns is None else now_ns
        window = self.racy_window_ns
        if now_ns - signature.mtime_ns < window or now_ns - signature.ctime_ns < window:
            if self._entries.pop(rel, None) is not None:
                self._dirty = True
            return
        entry = (signature.key(), sha)
        if self._entries.get(rel) != entry:
            self._entries[rel] = entry
            self._dirty = True

    def keep_only(self, paths: set[str]) -> None:
        stale = [rel for rel in self._entries if rel not in paths]
        for rel in stale:
            del self._entries[rel]
        self._dirty = self._dirty or bool(stale)

    def save(self) -> None:
        if not self._dirty:
            return
        payload = {"version": _VERSION, "entries": {rel: [k, s] for rel, (k, s) in self._entries.items()}}
        atomic.write_json(self.path, payload, indent=None)
        self._dirty = False

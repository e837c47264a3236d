"""Remembered hashes keyed by stat signature, so an unchanged library is not read again.

An entry is trusted only while size, mtime, ctime and inode are all the same.  Like git's "racy"
rule, a file changed too shortly before it was read is not remembered: a second write in the same
timestamp tick could keep every field equal while changing the content.  "Too shortly" is one tick
of the file system's clock.  A file whose times carry fractions of a second lives on a file system
that stamps them from the kernel's clock tick (1 – 10 ms on Linux, about 16 ms on Windows): there
:data:`FINE_WINDOW_NS`.  Times in whole seconds (FAT's two seconds, ext3's and HFS+'s one, or a
time set by hand) keep the :data:`RACY_WINDOW_NS` of two seconds.

The short window matters for the chat a beat appends to: the snapshot at the end of the beat comes
some milliseconds after the last append, and with the two-second window the next command's first
snapshot had to read and hash the whole file again (18 MB on a 20,000-message chat with swipes)
only to find it unchanged.  A snapshot now waits out the rest of such a file's tick before reading it
(:meth:`StatCache.settle_ns`, at most :data:`FINE_WINDOW_NS`), so that what it reads is remembered.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import atomic
from ._scan import FileSignature

_VERSION = 1
RACY_WINDOW_NS = 2_000_000_000
FINE_WINDOW_NS = 25_000_000
# Files smaller than this are not waited for: hashing one again next time costs under a millisecond.
SETTLE_MIN_BYTES = 1 << 20
_SECOND_NS = 1_000_000_000


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

    def _window(self, signature: FileSignature) -> int:
        if signature.mtime_ns % _SECOND_NS and signature.ctime_ns % _SECOND_NS:
            return min(self.racy_window_ns, FINE_WINDOW_NS)
        return self.racy_window_ns

    def settle_ns(self, signature: FileSignature, now_ns: int) -> int:
        """How long to wait before reading the file so that what is read can be remembered: the
        rest of its one-tick window when it changed within it (a chat appended to just now), else 0
        (also for a two-second window, or a file under :data:`SETTLE_MIN_BYTES`: not worth waiting for)."""
        window = self._window(signature)
        if window > FINE_WINDOW_NS or signature.size < SETTLE_MIN_BYTES:
            return 0
        return max(0, window - (now_ns - max(signature.mtime_ns, signature.ctime_ns)))

    def remember(self, rel: str, signature: FileSignature, sha: str, *, now_ns: int | None = None) -> None:
        """Remember *sha* for the file as *signature* shows it; *now_ns*: when its reading began
        (the content hashed may carry any write made before then)."""
        now_ns = time.time_ns() if now_ns is None else now_ns
        window = self._window(signature)
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

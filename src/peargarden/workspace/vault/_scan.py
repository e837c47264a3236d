"""Walking the data folder for the vault: which files count, and their stat signatures.

Only regular files are taken.  Skipped: the vault itself (top-level ``vault/``), stored API keys
(top-level ``keys/``: a key the user deletes must not live on in 50 snapshots), cache folders
(regenerable by definition), temp files left by an interrupted atomic write, lock files, and a chat's
beat log (a record of its last ten beats' requests, megabytes on a long chat rewritten on every beat:
kept, it added them to the vault on every beat, and nothing of the story is in it).
Symbolic links are not followed (a link could point anywhere, or loop); they are skipped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

import msgspec

from ..atomic import is_temp_name
from ..home import BEAT_LOG_FILE

VAULT_DIR_NAME = "vault"
KEYS_DIR_NAME = "keys"
_TOP_LEVEL_SKIPPED = frozenset({VAULT_DIR_NAME, KEYS_DIR_NAME})


def is_cache_dir_name(name: str) -> bool:
    """Folders holding regenerable data: ``__pycache__``, ``cache``, ``.cache``, ``*-cache``, ``*_cache``."""
    lowered = name.lower()
    return lowered in {"__pycache__", "cache", ".cache"} or lowered.endswith(("-cache", "_cache", ".cache"))


def is_skipped_file_name(name: str) -> bool:
    return is_temp_name(name) or name.endswith(".lock") or name == BEAT_LOG_FILE


class FileSignature(msgspec.Struct, frozen=True):
    """What changes when a file's content may have changed (size, mtime, ctime, inode)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    mode: int

    @classmethod
    def of(cls, result: os.stat_result) -> FileSignature:
        return cls(
            size=result.st_size,
            mtime_ns=result.st_mtime_ns,
            ctime_ns=result.st_ctime_ns,
            inode=result.st_ino,
            mode=stat.S_IMODE(result.st_mode),
        )

    def key(self) -> list[int]:
        return [self.size, self.mtime_ns, self.ctime_ns, self.inode]


class ScannedTree(msgspec.Struct):
    files: dict[str, FileSignature]
    dirs: set[str]  # every folder walked (not the root), by POSIX relative path


def parent_dirs(paths: Iterable[str]) -> set[str]:
    """Every folder that contains one of *paths* (relative POSIX paths)."""
    implied: set[str] = set()
    for rel in paths:
        parent = rel.rpartition("/")[0]
        while parent and parent not in implied:
            implied.add(parent)
            parent = parent.rpartition("/")[0]
    return implied


def leaf_dirs(dirs: Iterable[str], files: Iterable[str]) -> list[str]:
    """Folders with nothing snapshotted below them: a manifest records these so empty folders come back."""
    dirs = list(dirs)
    implied = parent_dirs([*files, *dirs])
    return sorted(d for d in dirs if d not in implied)


def walk_tree(root: Path) -> ScannedTree:
    """Every file to snapshot under *root*, by POSIX relative path (the root itself may be a link)."""
    found: dict[str, FileSignature] = {}
    dirs: set[str] = set()
    tree = ScannedTree(found, dirs)
    if not root.is_dir():
        return tree
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, rel_prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in entries:
            name = entry.name
            rel = rel_prefix + name
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if (not rel_prefix and name in _TOP_LEVEL_SKIPPED) or is_cache_dir_name(name):
                        continue
                    dirs.add(rel)
                    stack.append((entry.path, rel + "/"))
                elif entry.is_file() and not is_skipped_file_name(name):
                    found[rel] = FileSignature.of(entry.stat(follow_symlinks=False))
            except FileNotFoundError:  # removed while we walked
                continue
    return tree

"""The vault's storage: content-addressed objects and snapshot manifests.

``vault/objects/<sha256>`` holds file bytes, written once and shared by every snapshot that has the
same content.  ``vault/snapshots/<id>.json`` lists one snapshot: ``path → {sha256, size, mode}``.
Objects are written before the manifest that refers to them, so a crash leaves at worst objects
nobody refers to; the next garbage collection removes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peargarden.errors import FormatError

from .. import atomic

log = logging.getLogger("peargarden.vault")

MANIFEST_FORMAT = "peargarden-vault-snapshot"
MANIFEST_VERSION = 1

# Files up to this size are read whole (hash, then store the same bytes); bigger ones are streamed
# into a temp object while hashed, so what is stored is exactly what was hashed.
_WHOLE_READ_LIMIT = 32 * 1024 * 1024
_CHUNK = 1024 * 1024

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
SNAPSHOT_ID = re.compile(r"^(\d{8}-\d{6})(?:-(\d+))?$")


@dataclass(frozen=True)
class FileEntry:
    sha256: str
    size: int
    mode: int

    def to_json(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "size": self.size, "mode": f"{self.mode:04o}"}

    @classmethod
    def from_json(cls, value: Any) -> FileEntry:
        if not isinstance(value, dict):
            raise ValueError("entry is not an object")
        sha = value.get("sha256")
        size = value.get("size")
        mode = value.get("mode", "0644")
        if not isinstance(sha, str) or not _SHA256.match(sha) or not isinstance(size, int):
            raise ValueError("entry lacks sha256/size")
        return cls(sha256=sha, size=size, mode=int(str(mode), 8) & 0o7777)


@dataclass(frozen=True)
class Manifest:
    id: str
    time: str
    reason: str
    files: dict[str, FileEntry]
    # Folders with nothing snapshotted inside (other folders are implied by the files' paths).
    dirs: tuple[str, ...] = ()

    @property
    def total_size(self) -> int:
        return sum(entry.size for entry in self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "id": self.id,
            "time": self.time,
            "reason": self.reason,
            "file_count": len(self.files),
            "total_size": self.total_size,
            "files": {path: self.files[path].to_json() for path in sorted(self.files)},
            "dirs": sorted(self.dirs),
        }

    @classmethod
    def from_json(cls, value: Any, *, path: Path) -> Manifest:
        try:
            if not isinstance(value, dict) or value.get("format") != MANIFEST_FORMAT:
                raise ValueError("not a vault snapshot")
            files_raw = value["files"]
            if not isinstance(files_raw, dict):
                raise ValueError("files is not an object")
            files = {str(rel): FileEntry.from_json(entry) for rel, entry in files_raw.items()}
            dirs_raw = value.get("dirs", [])
            if not isinstance(dirs_raw, list) or not all(isinstance(d, str) for d in dirs_raw):
                raise ValueError("dirs is not a list of paths")
            return cls(
                id=str(value["id"]),
                time=str(value["time"]),
                reason=str(value["reason"]),
                files=files,
                dirs=tuple(sorted(dirs_raw)),
            )
        except (KeyError, ValueError) as error:
            raise FormatError(f"快照清单已损坏：{error}", path=path) from None


def snapshot_sort_key(snapshot_id: str) -> tuple[str, int]:
    match = SNAPSHOT_ID.match(snapshot_id)
    if not match:
        raise ValueError(snapshot_id)
    return match.group(1), int(match.group(2) or 1)


def snapshot_id_from_key(base: str, number: int) -> str:
    return base if number == 1 else f"{base}-{number}"


class ObjectStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, sha: str) -> Path:
        return self.folder / sha

    def names(self) -> set[str]:
        try:
            return {name for name in os.listdir(self.folder) if _SHA256.match(name)}
        except FileNotFoundError:
            return set()

    def has(self, sha: str, size: int) -> bool:
        try:
            return self.path(sha).stat().st_size == size
        except FileNotFoundError:
            return False

    def read(self, sha: str) -> bytes:
        """The bytes of object *sha*, checked against their name (a damaged object is an error)."""
        path = self.path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FormatError("快照引用的内容对象不见了", path=path) from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise FormatError("内容对象已损坏（校验和不符）", path=path)
        return data

    def add_file(self, source: Path, known: set[str]) -> tuple[str, int, os.stat_result]:
        """Hash *source* and store its bytes if new; returns (sha256, size, stat of what was read)."""
        with open(source, "rb") as handle:
            before = os.fstat(handle.fileno())
            if before.st_size <= _WHOLE_READ_LIMIT:
                data = handle.read()
                sha = hashlib.sha256(data).hexdigest()
                if sha not in known or not self.has(sha, len(data)):
                    atomic.write_bytes(self.path(sha), data, mode=0o444)
                    known.add(sha)
                return sha, len(data), before
            return (*self._stream(handle, known), before)

    def _stream(self, handle: Any, known: set[str]) -> tuple[str, int]:
        atomic.ensure_dir(self.folder)
        digest = hashlib.sha256()
        size = 0
        # Named with this process's pid (as atomic's temp files are): one a kill left behind goes at
        # the next start, not an hour later.
        fd, tmp_name = tempfile.mkstemp(prefix=atomic.temp_prefix("object"), suffix=atomic.TEMP_SUFFIX, dir=self.folder)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
                out.flush()
                os.fsync(out.fileno())
            sha = digest.hexdigest()
            if sha in known and self.has(sha, size):
                tmp.unlink()
            else:
                os.chmod(tmp, 0o444)
                os.replace(tmp, self.path(sha))
                atomic.fsync_dir(self.folder)
                known.add(sha)
            return sha, size
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise

    def discard(self, shas: set[str]) -> None:
        for sha in shas:
            with contextlib.suppress(FileNotFoundError):
                self.path(sha).unlink()

    def remove_unreferenced(self, referenced: set[str]) -> int:
        """Delete objects no kept snapshot refers to, and temp files of interrupted writes."""
        removed = 0
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return 0
        for name in names:
            if (_SHA256.match(name) and name not in referenced) or name.endswith(atomic.TEMP_SUFFIX):
                with contextlib.suppress(FileNotFoundError):
                    (self.folder / name).unlink()
                removed += 1
        if removed:
            atomic.fsync_dir(self.folder)
        return removed


class ManifestStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, snapshot_id: str) -> Path:
        return self.folder / f"{snapshot_id}.json"

    def ids(self) -> list[str]:
        """Snapshot ids, oldest first."""
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        ids = [name[:-5] for name in names if name.endswith(".json") and SNAPSHOT_ID.match(name[:-5])]
        return sorted(ids, key=snapshot_sort_key)

    def load(self, snapshot_id: str) -> Manifest:
        path = self.path(snapshot_id)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise FormatError(f"快照清单不是有效的 JSON：{error}", path=path) from None
        return Manifest.from_json(value, path=path)

    def load_all(self, ids: Iterable[str]) -> list[Manifest]:
        """Manifests that can be read; a damaged one is logged and left out (never deleted)."""
        manifests: list[Manifest] = []
        for snapshot_id in ids:
            try:
                manifests.append(self.load(snapshot_id))
            except (FormatError, FileNotFoundError) as error:
                log.warning("skipping snapshot %s: %s", snapshot_id, error)
        return manifests

    def save(self, manifest: Manifest) -> None:
        atomic.write_json(self.path(manifest.id), manifest.to_json(), indent=1)

    def delete(self, snapshot_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(snapshot_id).unlink()

"""The vault's storage: content-addressed objects and snapshot manifests.

``vault/objects/<sha256>`` holds file bytes, written once and shared by every snapshot that has the
same content; ``vault/objects/<sha256>.tail`` stands for a file that grew, as an earlier object of it
plus the bytes appended since (:mod:`._tails`).  ``vault/snapshots/<id>.json`` lists one snapshot:
``path → {sha256, size, mode}``.  Objects are written (temp file, fsync, rename) before the manifest
that refers to them, so a crash leaves at worst objects nobody refers to; the next garbage collection
removes them.
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
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import FormatError

from .. import atomic
from ._tails import GROWN_MIN_BYTES, HEADER_LIMIT, TAIL_SUFFIX, TailHeader, base_number, decode_header, encode_header

log = logging.getLogger("peargarden.vault")

MANIFEST_FORMAT = "peargarden-vault-snapshot"
MANIFEST_VERSION = 1

# Files up to this size are read whole (hash, then store the same bytes); bigger ones are streamed
# into a temp object while hashed, so what is stored is exactly what was hashed.
_WHOLE_READ_LIMIT = 32 * 1024 * 1024
_CHUNK = 1024 * 1024

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
SNAPSHOT_ID = re.compile(r"^(\d{8}-\d{6})(?:-(\d+))?$")


class FileEntry(msgspec.Struct, frozen=True):
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


class Manifest(msgspec.Struct, frozen=True):
    id: str
    time: str
    reason: str
    files: dict[str, FileEntry]
    # Folders with nothing snapshotted inside (other folders are implied by the files' paths).
    dirs: tuple[str, ...] = ()
    # The order it was taken in: one more than the vault's highest when it was taken (0: a
    # manifest older than this field, ordered by its id among the others of its kind).
    seq: int = 0

    @property
    def total_size(self) -> int:
        return sum(entry.size for entry in self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "id": self.id,
            "seq": self.seq,
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
                seq=_seq_of(value.get("seq")),
            )
        except (KeyError, ValueError) as error:
            raise FormatError(f"快照清单已损坏：{error}", path=path) from None


def _seq_of(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class _Reference(msgspec.Struct):
    sha256: str
    size: int


class _References(msgspec.Struct):
    """What collecting garbage needs of a manifest: the objects its files are.  The fields
    :meth:`Manifest.from_json` requires are required here too; msgspec reads the rest (and every
    file's path and mode) without making objects of it."""

    format: str
    id: Any
    time: Any
    reason: Any
    files: dict[str, _Reference]
    dirs: list[str] = msgspec.field(default_factory=list)


_REFERENCES = msgspec.json.Decoder(_References)


class _Order(msgspec.Struct):
    """What ordering a snapshot needs of its manifest (msgspec skips the rest unread into objects)."""

    seq: Any = 0


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

    def tail_path(self, sha: str) -> Path:
        return self.folder / (sha + TAIL_SUFFIX)

    def names(self) -> set[str]:
        """The sha256 of every stored object, whole or tail."""
        try:
            listed = os.listdir(self.folder)
        except FileNotFoundError:
            return set()
        return {name[:64] for name in listed if _SHA256.match(name[:64]) and name[64:] in ("", TAIL_SUFFIX)}

    def has(self, sha: str, size: int) -> bool:
        """Whether object *sha* of *size* bytes can be read (for a tail object: its whole chain)."""
        while True:
            try:
                return self.path(sha).stat().st_size == size
            except FileNotFoundError:
                pass
            found = self._tail(sha)
            if found is None:
                return False
            header, tail_size = found
            if header.base_size + tail_size != size:
                return False
            sha, size = header.base, header.base_size

    def read(self, sha: str) -> bytes:
        """The bytes of object *sha*, checked against their name (a damaged object is an error)."""
        tails: list[bytes] = []
        current = sha
        while True:
            path = self.path(current)
            try:
                data = path.read_bytes()
                break
            except FileNotFoundError:
                pass
            try:
                blob = self.tail_path(current).read_bytes()
            except FileNotFoundError:
                raise FormatError("快照引用的内容对象不见了", path=path) from None
            decoded = decode_header(blob, _SHA256.match)
            if decoded is None:
                raise FormatError("内容对象已损坏（接续对象的头不对）", path=self.tail_path(current))
            header, start = decoded
            tails.append(blob[start:])
            current = header.base
        data = b"".join([data, *reversed(tails)])
        if hashlib.sha256(data).hexdigest() != sha:
            raise FormatError("内容对象已损坏（校验和不符）", path=self.path(sha) if not tails else self.tail_path(sha))
        return data

    def header(self, sha: str) -> TailHeader | None:
        """The header of tail object *sha* (None: not a tail object, or a damaged one)."""
        found = self._tail(sha)
        return found[0] if found else None

    def _tail(self, sha: str) -> tuple[TailHeader, int] | None:
        """A tail object's header and the size of its tail; None when there is no readable one."""
        try:
            with open(self.tail_path(sha), "rb") as handle:
                head = handle.read(HEADER_LIMIT)
                size = os.fstat(handle.fileno()).st_size
        except FileNotFoundError:
            return None
        decoded = decode_header(head, _SHA256.match)
        if decoded is None:
            return None
        header, start = decoded
        return header, size - start

    def referenced(self, shas: Iterable[str]) -> set[str]:
        """*shas* and every object they extend, down to the whole ones."""
        found: set[str] = set()
        pending = list(shas)
        while pending:
            sha = pending.pop()
            if sha in found:
                continue
            found.add(sha)
            if not self.path(sha).exists() and (header := self.header(sha)) is not None:
                pending.append(header.base)
        return found

    def add_file(
        self, source: Path, known: set[str], previous: tuple[str, int] | None = None
    ) -> tuple[str, int, os.stat_result]:
        """Hash *source* and store its bytes if new; returns (sha256, size, stat of what was read).

        *previous*: the (sha256, size) of the file's newest snapshot; when the file only grew since,
        what is stored is a tail object (that version plus the bytes after it, see :mod:`._tails`)."""
        with open(source, "rb") as handle:
            before = os.fstat(handle.fileno())
            if previous is not None and GROWN_MIN_BYTES <= previous[1] < before.st_size:
                grown = self._add_grown(handle, known, previous)
                if grown is not None:
                    return (*grown, before)
                handle.seek(0)
            if before.st_size <= _WHOLE_READ_LIMIT:
                data = handle.read()
                sha = hashlib.sha256(data).hexdigest()
                if sha not in known or not self.has(sha, len(data)):
                    atomic.write_bytes(self.path(sha), data, mode=0o444)
                    known.add(sha)
                return sha, len(data), before
            return (*self._stream(handle, known), before)

    def _add_grown(self, handle: Any, known: set[str], previous: tuple[str, int]) -> tuple[str, int] | None:
        """Store what *handle* reads as a tail object when its first bytes are *previous*'s; None
        (nothing stored) when they are not, or *previous* cannot be read as a chain's member."""
        old_sha, old_size = previous
        number = self._number(old_sha, old_size)
        if number is None:
            return None
        # The object the new one extends: the previous one's chain, followed down to the number.
        base_sha, base_size, base_no = old_sha, old_size, number
        target = base_number(number + 1)
        while base_no > target:
            header = self.header(base_sha)
            if header is None:
                return None
            base_sha, base_size, base_no = header.base, header.base_size, self._number_below(header)
        if base_no != target:
            return None  # a chain made otherwise, or a member gone: start a new one
        # Hash the previous version's bytes again (they must be the file's start), keeping those
        # after the base: they go into the tail with what was appended, exactly the bytes hashed.
        digest = hashlib.sha256()
        tail: list[bytes] = []
        offset = 0
        while offset < old_size:
            chunk = handle.read(min(_CHUNK, old_size - offset))
            if not chunk:
                return None  # cut short while we read: not a grown file after all
            digest.update(chunk)
            if offset + len(chunk) > base_size:
                tail.append(chunk[max(0, base_size - offset) :])
            offset += len(chunk)
        if digest.hexdigest() != old_sha:
            return None
        rest = handle.read()
        if len(rest) + old_size - base_size > _WHOLE_READ_LIMIT:
            return None  # a tail that big is streamed whole instead
        digest.update(rest)
        sha, size = digest.hexdigest(), old_size + len(rest)
        if sha not in known or not self.has(sha, size):
            header = TailHeader(base_sha, base_size, number + 1)
            atomic.write_bytes(self.tail_path(sha), b"".join([encode_header(header), *tail, rest]), mode=0o444)
            known.add(sha)
        return sha, size

    def _number(self, sha: str, size: int) -> int | None:
        """The number of object *sha* in its chain (0: a whole object); None when it cannot be read."""
        try:
            if self.path(sha).stat().st_size == size:
                return 0
        except FileNotFoundError:
            pass
        found = self._tail(sha)
        if found is None or found[0].base_size + found[1] != size:
            return None
        return found[0].number

    def _number_below(self, header: TailHeader) -> int:
        """The number of the object *header* extends (it is below the tail's own number)."""
        number = self._number(header.base, header.base_size)
        return -1 if number is None else number

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
            for path in (self.path(sha), self.tail_path(sha)):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    def remove_unreferenced(self, referenced: set[str]) -> int:
        """Delete objects no kept snapshot refers to (*referenced*: with the objects they extend,
        see :meth:`referenced`), and temp files of interrupted writes."""
        removed = 0
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return 0
        for name in names:
            sha, suffix = name[:64], name[64:]
            is_object = _SHA256.match(sha) is not None and suffix in ("", TAIL_SUFFIX)
            if (is_object and sha not in referenced) or name.endswith(atomic.TEMP_SUFFIX):
                with contextlib.suppress(FileNotFoundError):
                    (self.folder / name).unlink()
                removed += 1
        if removed:
            atomic.fsync_dir(self.folder)
        return removed


class ManifestStore:
    """The snapshots' manifests, ``<id>.json``.  They are listed in the order they were taken (each
    one's ``seq``), not by id: an id is the clock's time, and a snapshot taken while the clock was
    ahead sorted after every later one by name (and each later id had to follow it, the ahead time
    and all: ``20270301-120000-57``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._seqs: dict[str, tuple[tuple[int, int], int]] = {}  # id → ((mtime_ns, size), seq)

    def path(self, snapshot_id: str) -> Path:
        return self.folder / f"{snapshot_id}.json"

    def ids(self) -> list[str]:
        """Snapshot ids, oldest first (by ``seq``, then by id for manifests without one)."""
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        ids = [name[:-5] for name in names if name.endswith(".json") and SNAPSHOT_ID.match(name[:-5])]
        return sorted(ids, key=lambda snapshot_id: (self.seq(snapshot_id), snapshot_sort_key(snapshot_id)))

    def seq(self, snapshot_id: str) -> int:
        """The manifest's ``seq`` (0 when it has none or cannot be read), remembered while its file
        stays the same."""
        path = self.path(snapshot_id)
        try:
            stat = path.stat()
        except OSError:
            return 0
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = self._seqs.get(snapshot_id)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            seq = _seq_of(msgspec.json.decode(path.read_bytes(), type=_Order).seq)
        except (OSError, msgspec.DecodeError):
            seq = 0  # a damaged manifest: listed, and skipped where it is read
        self._seqs[snapshot_id] = (stamp, seq)
        return seq

    def next_seq(self, ids: Iterable[str]) -> int:
        return max((self.seq(snapshot_id) for snapshot_id in ids), default=0) + 1

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

    def references(self, ids: Iterable[str]) -> set[str]:
        """The objects the manifests *ids* refer to: what :meth:`load_all`'s manifests refer to, read
        in C (reading 50 manifests of a data folder of 450 files through :meth:`load` took ~85 ms
        of CPU, and retention does it after every snapshot once there are 50).  A manifest this
        reading refuses (odd types, a lone surrogate's escape, not a manifest) is read by
        :meth:`load`, and skipped as there when damaged; one with an entry :meth:`load` refuses
        (a malformed hash, a mode that is not octal) keeps its objects here rather than losing
        them all: collecting keeps at least what it kept."""
        found: set[str] = set()
        for snapshot_id in ids:
            try:
                read = _REFERENCES.decode(self.path(snapshot_id).read_bytes())
            except FileNotFoundError:
                continue  # removed meanwhile: load_all leaves it out too
            except (OSError, msgspec.DecodeError):
                read = None
            if read is None or read.format != MANIFEST_FORMAT:
                found.update(e.sha256 for manifest in self.load_all([snapshot_id]) for e in manifest.files.values())
            else:
                found.update(reference.sha256 for reference in read.files.values())
        return found

    def save(self, manifest: Manifest) -> None:
        atomic.write_json(self.path(manifest.id), manifest.to_json(), indent=1)

    def delete(self, snapshot_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(snapshot_id).unlink()

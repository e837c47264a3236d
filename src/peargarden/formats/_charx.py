"""Safe reading and writing of CHARX archives (a zip with ``card.json`` at its root).

Zip headers are not trusted: sizes are counted while inflating, so a bomb is stopped after at
most the limit, whatever its header claims.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import PurePosixPath

from peargarden.errors import FormatError

MAX_CHARX_FILES = 4096
MAX_CHARX_UNCOMPRESSED = 256 * 1024 * 1024
# Above this inflated size a member must not grow more than MAX_RATIO times (real images and
# JSON stay far below; a zip bomb does not).
_RATIO_FLOOR = 1024 * 1024
MAX_RATIO = 200

_READ_BLOCK = 1024 * 1024


def is_zip(data: bytes) -> bool:
    return data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06")


def safe_member_path(name: str, filename: str) -> str:
    """The member's path if it stays inside the archive, else ``FormatError``."""
    bad = (
        not name
        or "\\" in name
        or "\x00" in name
        or name.startswith("/")
        or (len(name) > 1 and name[1] == ":")
        or ".." in PurePosixPath(name).parts
    )
    if bad:
        raise FormatError(f"压缩包内路径不安全：{name!r}（unsafe path in archive）", path=filename)
    return name


def read_archive(data: bytes, filename: str) -> dict[str, bytes]:
    """Every file of the zip by path; directories are skipped."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise FormatError("CHARX 压缩包已损坏或不是 zip（corrupt zip archive）", path=filename) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_CHARX_FILES:
            raise FormatError(f"CHARX 压缩包文件过多：{len(members)} 个（too many files）", path=filename)
        files: dict[str, bytes] = {}
        total = 0
        for info in members:
            name = safe_member_path(info.filename, filename)
            if info.is_dir():
                continue
            budget = MAX_CHARX_UNCOMPRESSED - total
            content = _read_member(archive, info, budget, filename)
            total += len(content)
            files[name] = content
        return files


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, filename: str) -> bytes:
    bomb = FormatError(f"CHARX 压缩包疑似压缩炸弹：{info.filename!r} 解压后过大（zip bomb suspected）", path=filename)
    if info.file_size > budget:
        raise bomb
    parts: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while block := stream.read(_READ_BLOCK):
                size += len(block)
                if size > budget or (size > _RATIO_FLOOR and size > MAX_RATIO * max(info.compress_size, 1)):
                    raise bomb
                parts.append(block)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        OSError,
        EOFError,
        NotImplementedError,
        RuntimeError,
    ):
        raise FormatError(f"CHARX 压缩包内 {info.filename!r} 已损坏（corrupt zip member）", path=filename) from None
    return b"".join(parts)


def write_archive(files: dict[str, bytes]) -> bytes:
    """A deflated zip of *files* in the given order, with a fixed timestamp (same input, same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(safe_member_path(name, "CHARX"), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, content)
    return buffer.getvalue()

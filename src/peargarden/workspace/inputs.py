"""Reading files that come from outside (imports): the size is checked before a byte is read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, FormatError
from peargarden.formats import decode_utf8

#: The largest file ``pear import`` reads.  Cards with big embedded asset packs stay well below it;
#: anything larger is refused before it is read into memory.
MAX_FILE_BYTES = 64 * 1024 * 1024


def read_input(path: Path, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of *path*, or ``BadInput`` naming the file: missing, a folder, unreadable, too large."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BadInput("文件不存在（no such file）", path=path) from None
    except OSError as exc:
        raise BadInput(f"无法读取：{exc.strerror}", path=path) from None
    if stat.S_ISDIR(info.st_mode):
        raise BadInput("这是一个文件夹，不是文件（is a directory）", path=path)
    if not stat.S_ISREG(info.st_mode):
        # A FIFO or a device would block the read (or never end); only plain files are imported.
        raise BadInput(f"不是普通文件（not a regular file: {_kind(info.st_mode)}）", path=path)
    if info.st_size > limit:
        size = f"{info.st_size / 1024 / 1024:.1f} MiB"
        raise BadInput(f"文件过大：{size}，上限 {limit // 1024 // 1024} MiB（file too large）", path=path)
    try:
        # O_NONBLOCK: a file swapped for a FIFO after the check above must not hang the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise BadInput("不是普通文件（not a regular file）", path=path)
        with os.fdopen(fd, "rb") as handle:
            # Read one byte past the limit: a file that grew after stat() is still refused.
            data = handle.read(limit + 1)
    except OSError as exc:
        raise BadInput(f"无法读取：{exc.strerror}", path=path) from None
    if len(data) > limit:
        raise BadInput(f"文件过大，上限 {limit // 1024 // 1024} MiB（file too large）", path=path)
    return data


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def read_json(path: Path) -> Any:
    """The JSON value in *path* (size-checked); ``FormatError`` naming the file and the line when it is not JSON."""
    # Decoded as every import is: a BOM (Notepad's) dropped, UTF-16 with its mark read, GBK named.
    text = decode_utf8(read_input(path), str(path))
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FormatError(f"不是有效的 JSON：{error.msg}（第 {error.lineno} 行）", path=path) from None


def file_size(path: Path) -> int:
    """Size in bytes, 0 when the file cannot be looked at (the read reports the real problem)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0

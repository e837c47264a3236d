"""Reading files that come from outside (imports): the size is checked before a byte is read."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from peargarden.errors import BadInput, FormatError
from peargarden.formats import decode_utf8

#: The largest file ``pear import`` reads.  Cards with big embedded asset packs stay well below it;
#: anything larger is refused before it is read into memory.
MAX_FILE_BYTES = 64 * 1024 * 1024


def read_input(path: Path, *, limit: int | None = None) -> bytes:
    """The bytes of *path*, or ``BadInput`` naming the file: missing, a folder, unreadable, too large
    (*limit*: :data:`MAX_FILE_BYTES`, read when called)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    with open_input(path, limit=limit) as handle:
        try:
            # Read one byte past the limit: a file that grew after stat() is still refused.
            data = handle.read(limit + 1)
        except OSError as exc:
            raise BadInput(f"无法读取：{exc.strerror}", path=path) from None
    if len(data) > limit:
        raise BadInput(f"文件过大，上限 {limit // 1024 // 1024} MiB（file too large）", path=path)
    return data


def open_input(path: Path, *, limit: int) -> BinaryIO:
    """*path* opened for reading after the checks of :func:`read_input` (its size against *limit*)."""
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
        return os.fdopen(fd, "rb")
    except OSError as exc:
        raise BadInput(f"无法读取：{exc.strerror}", path=path) from None


def input_rows(path: Path, *, limit: int, line_limit: int) -> Iterator[bytes]:
    """The lines of *path* (split at ``\\n``, without it), read a block at a time: a file of any
    length up to *limit* is read holding one line, which may not pass *line_limit*."""
    total = 0
    number = 0
    held: list[bytes] = []  # the unfinished line, in pieces
    held_size = 0
    with open_input(path, limit=limit) as handle:
        while True:
            try:
                block = handle.read(_BLOCK)
            except OSError as exc:
                raise BadInput(f"无法读取：{exc.strerror}", path=path) from None
            if not block:
                break
            total += len(block)
            if total > limit:  # grew after the check
                raise BadInput(f"文件过大，上限 {limit // 1024 // 1024} MiB（file too large）", path=path)
            rows = block.split(b"\n")
            if len(rows) > 1:
                held.append(rows[0])
                rows[0] = b"".join(held)
                held, held_size = [], 0
                for row in rows[:-1]:
                    number += 1
                    if len(row) > line_limit:
                        raise _long_line(path, number, line_limit)
                    yield row
            held.append(rows[-1])
            held_size += len(rows[-1])
            if held_size > line_limit:
                raise _long_line(path, number + 1, line_limit)
    if held_size:
        yield b"".join(held)


_BLOCK = 1024 * 1024


def _long_line(path: Path, number: int, limit: int) -> BadInput:
    return BadInput(f"第 {number} 行过长，一行的上限是 {limit // 1024 // 1024} MiB（line too long）", path=path)


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

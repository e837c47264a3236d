"""One exception family for everything a person may need to read.

Every error carries a message meant for people (Chinese-speaking users first, English kept short
and plain).  Fronts (CLI, web) print it in one line; no traceback reaches a user.  Each class also
says how a front reports it: ``exit_code`` for the CLI, ``http_status`` for the web.

What fixes it comes in two kinds, because a page user has no shell: ``hint``, a command to run (the
CLI prints ``str(error)``, which ends with it), and ``fix``, the name of the setting that fixes it
(one of :data:`FIXES`; the web links to that setting and shows :meth:`PearError.without_hint`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: The settings an error may name as its ``fix`` (a contract: the web links each to its place).
#: ``model``: which model answers (the main connection and model, the thinking level);
#: ``connection``: an endpoint's address or key; ``embedded``: the embedded model and its runtime
#: (installed, built, self-tested).
FIXES = ("model", "connection", "embedded")


class PearError(Exception):
    """Base of every error the program reports to a person."""

    exit_code = 1
    http_status = 400

    def __init__(self, message: str, *, path: str | Path | None = None, hint: str = "", fix: str = "") -> None:
        if fix and fix not in FIXES:
            raise ValueError(f"unknown fix {fix!r}")
        self.path = str(path) if path is not None else None
        self.hint = hint  # a command to run; the CLI shows it, a page never does
        self.fix = fix  # the setting that fixes it (FIXES), linked by the web
        said = f"{message}：{hint}" if hint else message
        full = f"{self.path}: {said}" if self.path else said
        super().__init__(full)
        self.message = message

    def without_hint(self) -> str:
        """The line for a front without a shell (the web): the file and the problem, no command."""
        return f"{self.path}: {self.message}" if self.path else self.message


class BadInput(PearError):
    """A file or value from outside (card, lorebook, preset, chat, argument) cannot be used."""

    exit_code = 2


class FormatError(BadInput):
    """A file is not in the format it claims to be, or is damaged."""


class NotFound(PearError):
    """A card, book, preset, chat or entry that was named does not exist."""

    exit_code = 2
    http_status = 404


class ConflictError(PearError):
    """The thing to change was changed by someone else since it was read."""

    exit_code = 3
    http_status = 409


class ProviderError(PearError):
    """The model endpoint failed in a way retrying did not fix."""

    exit_code = 4
    http_status = 502  # the model endpoint behind us failed, not the request


class StorageError(PearError, OSError):
    """A file cannot be written because its folder is read-only (permissions, a read-only mount) or
    the disk is full.  Also an ``OSError`` with the errno, text and file name of *cause*, so code that
    treats a failed write as a plain ``OSError`` (a cache, a checkpoint) goes on as before; what
    nobody catches reaches the person as one line.  Made by :func:`storage_error`."""

    exit_code = 5
    http_status = 507

    def __init__(self, message: str, cause: OSError, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.cause = cause
        self.errno, self.strerror, self.filename = cause.errno, cause.strerror, cause.filename

    def __str__(self) -> str:
        return str(self.args[0])  # the line with its hint, not OSError's "[Errno N] …"

    @property
    def read_only(self) -> bool:
        """The folder cannot be written at all (not a full disk)."""
        return self.errno in _READ_ONLY


_READ_ONLY = {errno.EPERM: "operation not permitted", errno.EACCES: "permission denied",
              errno.EROFS: "read-only file system"}  # fmt: skip
_FULL = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded", errno.EFBIG: "file too large"}


def storage_error(error: OSError, home: str | Path | None = None) -> StorageError | None:
    """*error* said as a :class:`StorageError` when it is one (read-only, full), else ``None``.
    *home*, the data folder when known: a read-only one is named in the fix."""
    if isinstance(error, StorageError):
        error = error.cause
    target = None if error.filename is None else _text(error.filename)
    where = f" {target}" if target is not None else ""
    if error.errno in _READ_ONLY:
        reason = f"无法写入{where}（{_READ_ONLY[error.errno]}）"
        if home is not None and (target is None or _inside(target, home)):
            return StorageError(
                f"{reason}：数据文件夹 {home} 不可写。请给它写权限",
                error,
                hint=f"如 chmod -R u+w {home}，或用 --home 换一个可写的数据文件夹",
            )
        folder = str(Path(target).parent) if target is not None else "这个文件夹"  # a new file is made in it
        return StorageError(f"{reason}：{folder} 不可写，请给它写权限，或换一个可写的位置", error)
    if error.errno in _FULL:
        return StorageError(f"磁盘已满，无法写入{where}（{_FULL[error.errno]}）：腾出空间后再试", error)
    return None


def _inside(target: str, folder: str | Path) -> bool:
    return Path(os.path.abspath(target)).is_relative_to(os.path.abspath(folder))


def _text(target: str | bytes | int) -> str:
    return target.decode("utf-8", "replace") if isinstance(target, bytes) else str(target)

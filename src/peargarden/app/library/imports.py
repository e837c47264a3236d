"""SillyTavern files into the data folder, for the fronts: every file is read and checked before
anything is written (:mod:`peargarden.workspace.importer`), then all of it is written or none."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

from peargarden.errors import BadInput, PearError
from peargarden.workspace.chats import SESSION_FILE, ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.importer import (
    ON_CONFLICT,
    BookMode,
    CardExists,
    ImportPlan,
    OnConflict,
    RegexAnswerFn,
    ScriptsAnswerFn,
    apply_plan,
    book_mode,
    plan_import,
)
from peargarden.workspace.inputs import file_size

from .snapshots import undo_point

__all__ = ["BookMode", "CardExists", "ImportPlan", "OnConflict", "RegexAnswerFn", "ScriptsAnswerFn", "book_choice",
           "conflict_choice", "import_files", "total_size"]  # fmt: skip


def book_choice(value: str) -> BookMode:
    """What to do with a card's embedded lorebook (``mount``, ``keep``, ``skip``), checked."""
    return book_mode(value)


def conflict_choice(value: str) -> OnConflict:
    """What to do with a card that is here already (``ask``, ``replace``, ``copy``), checked."""
    for choice in ON_CONFLICT:
        if value == choice:
            return choice
    raise BadInput(f"已有的卡：只能替换（replace）、另存（copy）或询问（ask），实际是 {value!r}")


def total_size(files: Sequence[Path]) -> int:
    """The files' sizes added up (a missing or unreadable file is a clear error here)."""
    return sum(file_size(path) for path in files)


def import_files(
    home: Home,
    files: Sequence[Path],
    *,
    book: BookMode,
    card: str | None,
    regex_answer: RegexAnswerFn | None = None,
    progress: Callable[[Path, int], None] | None = None,
    scripts_answer: ScriptsAnswerFn | None = None,
    on_conflict: OnConflict = "copy",
) -> tuple[ImportPlan, list[Path]]:
    """Check every file, then write them all: the plan (what each file became) and the files written.
    *on_conflict*: a card that is here already is imported beside it (``copy``), in its place
    (``replace``: a vault snapshot is taken first, so the old card can be restored), or refused with
    ``CardExists`` (``ask``)."""
    plan = plan_import(home, files, book=book, card=card, progress=progress, regex_answer=regex_answer,
                       scripts_answer=scripts_answer, on_conflict=on_conflict)  # fmt: skip
    if on_conflict == "replace" and plan.writes:
        undo_point(home, "导入替换已有的角色卡之前")
    written = apply_plan(plan)
    for path in written:
        if path.name == SESSION_FILE:
            _index(path)
    return plan, written


def _index(session_file: Path) -> None:
    """A long chat's session index, made now: its first open reads only the index (a cache: a chat
    whose index cannot be written still opens, by reading the file whole)."""
    with contextlib.suppress(PearError, OSError):
        ChatFile.open(session_file.parent.parent, session_file.parent.name)

"""SillyTavern files into the data folder, for the fronts: every file is read and checked before
anything is written (:mod:`peargarden.workspace.importer`), then all of it is written or none."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

from peargarden.errors import PearError
from peargarden.workspace.chats import SESSION_FILE, ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.importer import (
    BookMode,
    ImportPlan,
    RegexAnswerFn,
    ScriptsAnswerFn,
    apply_plan,
    book_mode,
    plan_import,
)
from peargarden.workspace.inputs import file_size

__all__ = ["BookMode", "ImportPlan", "RegexAnswerFn", "ScriptsAnswerFn", "book_choice", "import_files", "total_size"]


def book_choice(value: str) -> BookMode:
    """What to do with a card's embedded lorebook (``mount``, ``keep``, ``skip``), checked."""
    return book_mode(value)


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
) -> tuple[ImportPlan, list[Path]]:
    """Check every file, then write them all: the plan (what each file became) and the files written."""
    plan = plan_import(home, files, book=book, card=card, progress=progress, regex_answer=regex_answer,
                       scripts_answer=scripts_answer)  # fmt: skip
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

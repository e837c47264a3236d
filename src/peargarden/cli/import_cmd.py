"""``pear import``: cards, lorebooks, presets and chats from SillyTavern."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from peargarden.app.cards import regex_question, scripts_question
from peargarden.app.library import (
    BookMode,
    ImportPlan,
    RegexAnswerFn,
    ScriptsAnswerFn,
    book_choice,
    import_files,
    total_size,
)
from peargarden.errors import BadInput
from peargarden.formats import Card

from ._app import app, state
from ._vault import tidy

# Show a progress bar from this many files on, or when the files add up to this many bytes.
PROGRESS_MIN_FILES = 5
PROGRESS_MIN_BYTES = 8 * 1024 * 1024


@app.command("import")
def import_command(
    files: list[Path] = typer.Argument(..., help="Card PNG/JSON/CHARX, lorebook JSON, preset JSON, chat JSONL."),
    book: str = typer.Option("mount", "--book", help="A card's embedded lorebook: mount | keep | skip."),
    card: str | None = typer.Option(None, "--card", help="The card a chat (or lorebook, mounted) belongs to."),
    regex: str = typer.Option(
        "ask",
        "--regex",
        help="A card's own regex scripts: allow | deny | ask (asked now on a terminal, else at first play).",
    ),
    scripts: str = typer.Option(
        "ask",
        "--scripts",
        help="A card's TavernHelper scripts (its MVU variables): allow | deny | ask (on a terminal; else allowed).",
    ),
) -> None:
    """Import SillyTavern files. Everything is checked first; if one file is bad, nothing is written."""
    mode = book_choice(book)
    answer = regex_answer(regex)
    scripts_answer = _scripts_answer(scripts)
    home = state.home
    tidy(home)  # a kill mid-import left temp files: they go now
    total = total_size(files)
    if len(files) >= PROGRESS_MIN_FILES or total >= PROGRESS_MIN_BYTES:
        plan = _import_with_progress(files, total, mode, card, answer, scripts_answer)
    else:
        plan, _written = import_files(home, files, book=mode, card=card, regex_answer=answer,
                                      scripts_answer=scripts_answer)  # fmt: skip
    for item in plan.items:
        target = item.target.relative_to(home.root).as_posix()
        note = f"（{item.note}）" if item.note else ""
        typer.echo(f"{item.kind}\t{item.source.name} → {target}{note}")


def _card_answer(flag: str, choice: str, question: Callable[[Card], str], default: bool) -> RegexAnswerFn:
    """A card question's flag: a fixed answer, or (``ask``) the question on a terminal and None elsewhere."""
    if choice in ("allow", "deny"):
        return lambda _card: choice == "allow"
    if choice != "ask":
        raise BadInput(f"{flag} 只能是 allow、deny 或 ask，实际是 {choice!r}")

    def ask(card: Card) -> bool | None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return None  # no one to ask: regex waits for the first play, the built-in MVU runs
        return typer.confirm(question(card), default=default)

    return ask


def regex_answer(choice: str) -> RegexAnswerFn:
    """``--regex``: a card's own regex scripts (asked again at the first play when unanswered)."""
    return _card_answer("--regex", choice, regex_question, False)


def _scripts_answer(choice: str) -> ScriptsAnswerFn:
    """``--scripts``: a card's TavernHelper scripts (unanswered: the built-in MVU runs)."""
    return _card_answer("--scripts", choice, scripts_question, True)


def _import_with_progress(
    files: list[Path],
    total: int,
    book: BookMode,
    card: str | None,
    answer: RegexAnswerFn,
    scripts_answer: ScriptsAnswerFn | None = None,
) -> ImportPlan:
    console = Console(file=sys.stderr)
    columns = (TextColumn("导入"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[name]}"))
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("import", total=total or None, name="")

        def advance(path: Path, size: int) -> None:
            progress.update(task, advance=size, name=path.name)

        plan, _written = import_files(state.home, files, book=book, card=card, regex_answer=answer, progress=advance,
                                      scripts_answer=scripts_answer)  # fmt: skip
    return plan

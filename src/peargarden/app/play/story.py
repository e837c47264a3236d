"""A chat's story memory for the fronts (``pear story``): the scene notes of the active branch,
compaction on request, and the card's resident memory file.

The memory itself lives in :mod:`peargarden.modes.stage.memory` (on disk, side calls) over
:mod:`peargarden.stage.memory` (pure); this module answers in the shapes the fronts show.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, NotFound
from peargarden.modes.stage import memory
from peargarden.stage.memory import format_roster, format_state
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home

from .service import ChatSession, PearApp


def story_session(home: Home, card: str, chat_id: str | None) -> ChatSession:
    """The chat *chat_id* of *card* (default: its latest) with story memory on."""
    service = PearApp(home, story_memory=True)
    if chat_id:
        return service.open_chat(card, chat_id)
    session = service.latest_chat(card)
    if session is None:
        raise NotFound(f"卡「{card}」还没有对话：先开一局", hint="pear chat")
    return session


def story_state(session: ChatSession) -> dict[str, Any]:
    """The active branch's scene notes (world state, roster), the relay summary in force, and where
    the card's resident memory is kept."""
    tree = session.chat.tree
    ledger = memory.current_ledger(tree)
    return {
        "card": session.card.folder,
        "chat": session.chat_id,
        "ledger": ledger.to_json(),
        "world_state": format_state(ledger),
        "roster": format_roster(ledger),
        "summary": memory.active_summary(tree),
        "resident_file": memory.resident_path(session.card).as_posix(),
    }


def compact_now(
    session: ChatSession, progress: Callable[[str], None] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Compact the earlier story into relay summaries now (the latest turns stay as they are; the
    messages stay in the session file), in as many bounded side requests as a long history needs,
    each step said to *progress*: the summary in force (``turns`` and ``chars``: what all the steps
    covered) and the warnings.  Nothing to compact is a ``BadInput`` that says why."""
    warnings: list[str] = []
    outcome = memory.compact_story(session.branch_view(), session.side_call(), manual=True)
    if not outcome.written:
        raise BadInput(outcome.warning or outcome.note or "没有压缩")
    turns = chars = 0
    while True:
        turns, chars = turns + outcome.turns, chars + outcome.chars
        warnings += [outcome.warning] if outcome.warning else []
        if not outcome.remaining:
            break
        if progress is not None:
            progress(outcome.note)
        try:
            outcome = memory.compact_story(session.branch_view(), session.side_call(), manual=True)
        except BadInput:  # what is left is too little to be worth a summary of its own
            break
        if not outcome.written:  # the side model failed: what was covered so far stays
            warnings += [outcome.warning or outcome.note] if (outcome.warning or outcome.note) else []
            break
    return {**(memory.active_summary(session.chat.tree) or {}), "turns": turns, "chars": chars}, warnings


def resident_file(home: Home, card: str) -> tuple[CardFolder, Path]:
    """The card and the file of its resident memory (which may not exist yet)."""
    folder = PearApp(home).card(card)
    return folder, memory.resident_path(folder)


def resident_text(folder: CardFolder) -> str:
    return memory.read_resident(folder)


def ensure_file(path: Path) -> None:
    """Create *path* empty when it does not exist (for an editor to open)."""

    if not path.exists():
        atomic.write_text(path, "")

"""A card's chats as files, for the fronts: a title beside the id, the visible count, deletion into
the vault (with what undoes it), and the numbers the chat page shows (tokens, context size).

A chat's id is its folder name and its session file's header, so renaming gives it a *title*
(``title.txt`` in its folder) instead of moving it: ``pear chat`` and open tabs keep finding it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from peargarden.errors import BadInput, NotFound
from peargarden.text.tokens import TextCounter, counter_for_model
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chats import ChatFile, valid_chat_id
from peargarden.workspace.home import Home

from ..library.snapshots import undo_point

TITLE_FILE = "title.txt"
MAX_TITLE = 200


def chat_dir(card: CardFolder, chat_id: str) -> Path:
    if not valid_chat_id(chat_id) or not (card.chats_dir / chat_id).is_dir():
        raise NotFound(f"没有对话 {chat_id}（no such chat）")
    return card.chats_dir / chat_id


def chat_title(card: CardFolder, chat_id: str) -> str:
    try:
        return (card.chats_dir / chat_id / TITLE_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def set_title(card: CardFolder, chat_id: str, title: str) -> str:
    """Give the chat a title (whitespace folded; an empty one clears it)."""
    path = chat_dir(card, chat_id)
    title = " ".join(title.split())
    if len(title) > MAX_TITLE:
        raise BadInput(f"对话名太长（over {MAX_TITLE} characters）")
    if title:
        atomic.write_text(path / TITLE_FILE, title + "\n")
    else:
        (path / TITLE_FILE).unlink(missing_ok=True)
    return title


def visible_count(chat: ChatFile) -> int:
    """The messages a reader sees on the active branch (what the user and the character said)."""
    return sum(1 for e in chat.tree.messages() if e.message.get("role") in ("user", "assistant"))


def remove_chat(home: Home, card: CardFolder, chat_id: str) -> dict[str, str]:
    """Delete the chat's folder after a vault snapshot; returns ``{"snapshot", "path"}`` to undo it."""
    path = chat_dir(card, chat_id)
    snapshot = undo_point(home, f"删除对话 {card.folder}/{chat_id}")
    shutil.rmtree(path)
    return {"snapshot": snapshot, "path": path.relative_to(home.root).as_posix()}


def context_tokens(home: Home, card: CardFolder) -> int:
    """The context size the story is budgeted for (``[story] context_tokens``, the card's own first)."""
    from peargarden.modes.stage.memory import story_settings  # on demand: the stage's room

    return story_settings(home.config_file, card).context_tokens


def token_counter(model: str) -> TextCounter:
    """Token counts as the chat's model counts them (an OpenAI-family tokenizer otherwise)."""
    return counter_for_model(model)

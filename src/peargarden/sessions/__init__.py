"""The session tree (pure): entries, the tree with its active leaf, context rebuild, chat operations,
the JSONL line format and SillyTavern chat import/export.  File I/O lives in ``peargarden.workspace.chats``.
"""

from .codec import LoadedSession, amend_line, decode, decode_bytes, entry_line, feed, header_line, leaf_line
from .context import ContextMessage, build_context, to_openai
from .entries import Entry, EntryType, compaction_entry, custom_entry, label_entry, message_entry
from .ops import Plan
from .tree import SessionTree, TreeRow

__all__ = [
    "ContextMessage",
    "Entry",
    "EntryType",
    "LoadedSession",
    "Plan",
    "SessionTree",
    "TreeRow",
    "amend_line",
    "build_context",
    "compaction_entry",
    "custom_entry",
    "decode",
    "decode_bytes",
    "entry_line",
    "feed",
    "header_line",
    "label_entry",
    "leaf_line",
    "message_entry",
    "to_openai",
]

"""The session tree (pure): the chat as entries that are never removed, and the active leaf.

- :mod:`.entries` — message / custom / label / compaction entries (msgspec structs; a loaded entry
  decodes its body from its line on first use); :mod:`.tree` — the active leaf, the cached path,
  siblings, drawn rows; :mod:`.context` — leaf → root rebuild with compaction applied (``ContextMemo``
  extends the last rebuild when the path only grew); :mod:`.scan` — which messages pass a test
  (hidden, work), kept from beat to beat.
- :mod:`.ops` — regenerate / swipe / edit / delete / hide / branch as plans of new entries.
- :mod:`.codec` — JSONL lines, leaf records, a torn tail tolerated; :mod:`.index` — the session index
  that lets a long chat's open read only what was appended.
- :mod:`.sillytavern` — SillyTavern chat import (swipes → siblings) and export of the active branch.

File I/O lives in :mod:`peargarden.workspace.chats`.
"""

from .codec import LoadedSession, decode, decode_bytes, entry_line, feed, header_line, leaf_line
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

"""The session tree (pure): the chat as entries that are never removed, and the active leaf.

- :mod:`.entries` — message / custom / label / compaction entries (msgspec structs; a loaded entry
  decodes its body from its line on first use); :mod:`.tree` — the active leaf, the cached path,
  siblings, drawn rows (of a subtree, side branches folded, for a page), the leaf a branch was left
  at, messages amended in place with their revisions; :mod:`.context` — leaf → root rebuild with
  compaction applied (``ContextMemo`` extends the last rebuild when the path only grew);
  :mod:`.scan` — which messages pass a test (hidden, work), kept from beat to beat.
- :mod:`.ops` — regenerate / swipe / edit / delete (one or several) / branch as plans of new entries;
  hide (SillyTavern's ``is_system`` flag) and continue (the reply shown grows; undo) as messages
  changed in place.
- :mod:`.codec` — JSONL lines, leaf records, amend records (a message changed in place, its own line
  never rewritten), a torn tail tolerated; :mod:`.index` — the session index
  that lets a long chat's open read only what was appended.
- :mod:`.sillytavern` — SillyTavern chat import (swipes → siblings) and export of the active branch,
  each line's variables per swipe included, a picture message (``extra.image``) a line of its own
  with its ``extra``; :mod:`.variables` — a message's variables (and shown
  text) as a note naming it, the chat's SillyTavern metadata.

File I/O lives in :mod:`peargarden.workspace.chats`.
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

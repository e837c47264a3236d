"""A chat as a front draws it (``ChatSession.view()``): the page model, so a front only serialises.
It is drawn from the chat's read model (:class:`.page_source.PageSource`), not from the session.

Per message row: who speaks, the persona picture a user row shows, when it was written, its token
count (the chat model's tokenizer; SillyTavern counts the same way), the generation time of the beat
that wrote it (from the beat log), its place among its siblings, and the text the page shows (the
card's display-only regex scripts applied when the user allowed them; may be HTML, which a page
frames), and its variables (TavernHelper's record of the message's current swipe: MVU's
``stat_data`` for a status bar; a noted message shows its noted text, e.g. with MVU's status
placeholder).  Around the rows: the last reply's swipe arrows, the context bar, the branch tree.

A view may be a window of the active branch (``last`` messages ending ``before`` a message number,
or from ``since`` on), so a chat thousands of messages long is drawn from the part on
screen; ``total`` says how many messages the branch has and ``first`` where the window starts.  A
window never starts on a tool result: it begins at the reply that made the call.  The branch tree
(``tree``, every entry of the chat) is read only when asked for: a page draws it on demand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.sessions import TreeRow as TreeRow  # the fronts draw it (they import no sessions)
from peargarden.sessions.entries import Entry
from peargarden.sessions.ops import message_at, undo_target
from peargarden.sessions.tree import SessionTree
from peargarden.sessions.variables import message_notes, shown_text

from ..cards.regex_allowance import card_scripts_allowed
from ..library.personas import persona_names, speaker_avatar
from . import beat_log
from .chat_chrome import context_fill, message_time, swipe_arrows
from .chat_files import token_counter
from .display_scripts import card_display_scripts, display_texts
from .page_source import PageSource, RowCard
from .reader_rows import RowReading, row_readings


class MessageRow(msgspec.Struct, frozen=True):
    """One message of the active branch as the page shows it."""

    index: int  # its number on the branch, from 0, as edit / delete / branch / hide count
    id: str
    role: str
    name: str | None  # the name it was written under
    speaker: str  # who the page says is speaking (the persona or the card's character)
    persona_avatar: str | None  # a user row: the file stem of the persona picture it shows
    time: str | None
    tokens: int
    seconds: float | None  # the generation time of the beat that wrote a reply
    content: str
    display: str | None  # the text after the card's display scripts, when it differs
    reasoning: str
    tool_calls: list[dict[str, Any]]
    tool_call_id: str | None
    is_error: bool
    tags: list[str]
    sibling: tuple[int, int]  # (1-based position, count) among its siblings
    stop_reason: str | None = None
    undoable: bool = False  # its text changed in place (an edit, a continue): ``ChatSession.undo`` brings the old back
    lore: list[dict[str, str]] = msgspec.field(default_factory=list)  # a reply: the lorebook entries that fired for it
    # The message's variables (the current swipe's record: stat_data, display_data, delta_data …);
    # None when it holds none.  ``ChatSession.variables()`` has every message's, per swipe.
    variables: dict[str, Any] | None = None
    # SillyTavern's number of the message the row belongs to (0 = the greeting; a reply's tool rounds
    # are one message), as ``ChatSession.variables()`` and TavernHelper's ``getCurrentMessageId()``
    # count; None for a row outside any (a system note before a reply).
    message_id: int | None = None
    # A picture message (SillyTavern's ``extra.image``, app/extras/pictures.py): the picture's path in
    # the chat's folder (``images/<file>``).
    image: str | None = None
    # A stage beat's row that ends its draft: the prose the reader read (the row itself holds only the
    # tool calls); the row that asked: the fork ({"question", "options", "free_text"}).  reader_rows.py.
    prose: str | None = None
    choice: dict[str, Any] | None = None
    beat_step: bool = False  # an earlier round of such a beat: its calls fold away, it has no text of its own


class SwipeArrows(msgspec.Struct, frozen=True):
    position: int  # the last reply's place among its siblings (0 without one)
    count: int
    generate: bool  # swiping past the last asks the model for a new reply


class ContextBar(msgspec.Struct, frozen=True):
    tokens: int
    limit: int
    reserve: int
    source: str  # "preset" (tavern mode's budget) or "story"


@dataclass(frozen=True)
class ChatView:
    """Everything a front shows of a chat, read from its read model."""

    card: str  # the card's folder name
    char_name: str  # the card's character name (the folder name when the card has none)
    chat_id: str
    mode: str
    modes: list[str]  # the app's mode table, in order
    rows: list[MessageRow]  # the window of the active branch, oldest first
    total: int  # messages on the active branch
    leaf: str | None
    swipe: SwipeArrows
    context: ContextBar
    warnings: list[str]  # what reading the session file found
    model: str
    persona: str  # the user's name in this chat
    first: int = 0  # the branch number of the window's first row
    extra: dict[str, Any] = field(default_factory=dict)
    # The whole tree's rows, made when ``tree`` is first read (a 20,000-message chat with swipes has
    # 42,000: a second of work a page that only shows the last messages does not need).
    tree_rows: Callable[[], list[TreeRow]] = field(default=list, repr=False, compare=False)

    @property
    def tree(self) -> list[TreeRow]:
        """Every entry of the chat as the branch tree draws it (depth first)."""
        return self.tree_rows()


def chat_view(
    source: PageSource,
    last: int | None = None,
    before: int | None = None,
    since: int | None = None,
    *,
    split_replies: bool = False,
) -> ChatView:
    """The page model of the chat *source* reads; *last*: only that many messages, ending before message number
    *before* (default: the end of the branch); *since*: the messages from that number on (*last* of
    them, when given); *split_replies*: a group chat (each member's reply is a message of its own in
    SillyTavern's numbering)."""
    tree = source.tree
    entries = tree.messages()
    end = len(entries) if before is None else max(0, min(before, len(entries)))
    start = 0 if last is None else max(0, end - last)
    if since is not None:
        start = max(0, min(since, len(entries)))
        end = len(entries) if last is None else min(len(entries), start + last)
    while 0 < start < end and entries[start].role == "tool":  # a tool result goes with its call
        start -= 1
    window = entries[start:end]
    user, char = source.user_name, source.char_name
    after = sum(1 for entry in entries[end:] if entry.role in ("user", "assistant"))
    notes = message_notes(tree.path())
    texts = [shown_text(notes, e.id, str(e.message.get("content") or "")) for e in window]
    shown = _displayed(source, window, texts, user, char, after)
    records = source.beat_records()
    upto = entries[:end]
    finished = [e.role == "assistant" and not e.message.get("tool_calls") for e in upto] if split_replies else None
    numbers = tavern_numbers([entry.role for entry in upto], finished)[start:]
    readings = row_readings(entries, start, end, split_replies=split_replies)
    rows = _rows(source, window, start, shown, records, user, char, notes, numbers, readings)
    ledgers = next(([r for r in b.rounds if r.get("purpose") == "beat"] for b in reversed(records)
                    if any(r.get("purpose") == "beat" for r in b.rounds)), [])  # fmt: skip
    arrows = swipe_arrows(tree)
    return ChatView(
        card=source.card.folder,
        char_name=char,
        chat_id=source.chat_id,
        mode=source.mode,
        modes=list(source.modes),
        rows=rows,
        total=len(entries),
        leaf=tree.leaf,
        swipe=SwipeArrows(arrows["position"], arrows["count"], arrows["generate"]),
        context=ContextBar(**context_fill(source, ledgers)),
        warnings=list(source.warnings),
        model=source.model,
        persona=user,
        first=start,
        tree_rows=tree.rows,
    )


def _displayed(
    source: PageSource, window: list[Entry], texts: list[str], user: str, char: str, after: int
) -> list[str | None]:
    """Each row's display text: the display-only scripts of the card whose character wrote it (a
    group's member; else the chat's card), run only when the user allowed that card's scripts."""
    pairs = [(e.role, text) for e, text in zip(window, texts, strict=True)]
    cards = [source.row_card(e) or RowCard(source.card, source.card_data, char) for e in window]
    by_card: dict[str, list[str | None]] = {}
    for card in cards:
        if card.folder.folder not in by_card:
            scripts = card_display_scripts(card.data) if card_scripts_allowed(card.folder) else []
            by_card[card.folder.folder] = display_texts(pairs, scripts, user, card.name, after=after)
    return [by_card[card.folder.folder][index] for index, card in enumerate(cards)]


def tavern_numbers(roles: Sequence[str], finished: Sequence[bool] | None = None) -> list[int | None]:
    """SillyTavern's message number of each message of a branch, by role (the SillyTavern export's
    count: each user message is one, and a reply with the tool rounds up to the next user message is
    one; a message before any of them has none).  *finished* (a group chat, where replies follow each
    other): per message, whether it is a reply that called no tool — the next reply is a new message."""
    numbers: list[int | None] = []
    number, in_reply = -1, False
    for index, role in enumerate(roles):
        turn_over = finished is not None and index > 0 and finished[index - 1]
        if role == "user":
            number, in_reply = number + 1, False
        elif role == "assistant" and (not in_reply or turn_over):
            number, in_reply = number + 1, True
        numbers.append(number if role == "user" or in_reply else None)
    return numbers


def _rows(
    source: PageSource,
    window: list[Entry],
    start: int,
    shown: list[str | None],
    records: list[beat_log.BeatRecord],
    user: str,
    char: str,
    notes: dict[str, dict[str, Any]],
    numbers: list[int | None],
    readings: dict[int, RowReading],
) -> list[MessageRow]:
    count = token_counter(source.model)
    seconds = beat_log.generation_seconds(records)
    fired = beat_log.lore_fired(records)
    personas = source.home.personas_dir
    known = persona_names(personas)
    pictures: dict[str, str | None] = {}  # speaker → the persona picture its messages show
    tree = source.tree
    rows: list[MessageRow] = []
    for offset, entry in enumerate(window):
        message = entry.message
        role = entry.role
        content = shown_text(notes, entry.id, str(message.get("content") or ""))
        speaker = str(message.get("name") or (user if role == "user" else char))
        note = notes.get(entry.id, {}).get("variables")
        if role == "user" and speaker not in pictures:
            pictures[speaker] = speaker_avatar(personas, speaker, user, known)
        kin = tree.siblings(entry.id)
        reading = readings.get(start + offset, RowReading())
        rows.append(
            MessageRow(
                index=start + offset,
                id=entry.id,
                role=role,
                name=message.get("name"),
                speaker=speaker,
                persona_avatar=pictures.get(speaker) if role == "user" else None,
                time=message_time(entry, tree),  # an imported message: its own send_date
                tokens=count(content) if content else 0,
                seconds=seconds.get(entry.id) if role == "assistant" else None,
                content=content,
                display=shown[offset],
                reasoning=str(message.get("reasoning") or ""),
                tool_calls=list(message.get("tool_calls") or []),
                tool_call_id=message.get("tool_call_id"),
                is_error=bool(message.get("is_error")),
                tags=list(message.get("tags") or []),
                sibling=(kin.index(entry) + 1, len(kin)),
                stop_reason=message.get("stop_reason"),
                undoable=undo_target(tree, entry) is not None,
                lore=fired.get(entry.id, []) if role == "assistant" else [],
                variables=note if isinstance(note, dict) else None,
                message_id=numbers[offset],
                image=_picture(message),
                prose=reading.prose,
                choice=reading.choice,
                beat_step=reading.step,
            )
        )
    return rows


def _picture(message: dict[str, Any]) -> str | None:
    extra = message.get("extra")
    image = extra.get("image") if isinstance(extra, dict) else None
    return image if isinstance(image, str) and image.startswith("images/") else None


def drawn_in_tree(entry: Entry) -> bool:
    """Whether a page's branch tree draws *entry*: the user's and the characters' messages.  Internal
    entries — variables, scene notes, modes, personas, compactions, bookkeeping — and tool results
    (drawn inside the reply that called them) are not nodes; what hangs below them hangs from the
    message before them."""
    return entry.type == "message" and entry.role in ("user", "assistant", "system")


def branch_rows(tree: SessionTree, around: int, *, fold: int = 8, limit: int = 1500) -> list[TreeRow]:
    """The part of the branch tree a page draws beside a window starting at message *around*: from
    that message's parent down (its siblings included), side branches folded after *fold* rows, at
    most *limit* rows in all (``TreeRow.more`` marks what was left out); messages only
    (:func:`drawn_in_tree`)."""
    messages = tree.messages()
    if not messages:
        return []
    parent = messages[max(0, min(around, len(messages) - 1))].parent_id
    if parent is None:
        return tree.rows(fold=fold, limit=limit, shown=drawn_in_tree)
    return tree.rows(parent, fold=fold, limit=limit, shown=drawn_in_tree)


def tree_rows(tree: SessionTree) -> list[TreeRow]:
    """The whole branch tree as a page draws it (messages only: :func:`drawn_in_tree`)."""
    return tree.rows(shown=drawn_in_tree)


def tree_leaf(tree: SessionTree, leaf: str | None) -> str | None:
    """The node a page's branch tree marks as where the chat is: *leaf*, or the message before it
    when the leaf is an internal entry (the variables after a reply)."""
    return tree.shown_ancestor(leaf, drawn_in_tree)


def sibling_of(tree: SessionTree, index: int, step: int) -> str:
    """The id of the version *step* places before (-1) or after (1) message *index* among its
    siblings (a swipe or an edit far up the chat); ``BadInput`` past either end."""
    entry = message_at(tree, index)
    kin = tree.siblings(entry.id)
    target = next(i for i, other in enumerate(kin) if other.id == entry.id) + step
    if not 0 <= target < len(kin):
        raise BadInput(f"第 {index} 条消息没有{'更早' if step < 0 else '更新'}的版本")
    return kin[target].id

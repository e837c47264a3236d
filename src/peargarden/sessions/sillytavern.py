"""SillyTavern chat JSONL ↔ session entries (pure: decoded lines in, dicts out).

Import: line 1 is ST's header (``user_name``, ``character_name``, ``create_date``, ``chat_metadata``);
each further line a message (``name``, ``is_user``, ``is_system``, ``send_date``, ``mes``, ``extra``,
``swipes``, ``swipe_id``, ``swipe_info``).  Each message becomes a ``message`` entry; a message with
several swipes becomes that many sibling entries (in swipe order, each remembering its index as
``message["st_swipe"]``) and the story continues from the chosen one (``swipe_id``).  ST's hidden
(``is_system``) messages keep the tag ``"hidden"``.  The whole original line is kept under
``message["st"]`` so an export loses nothing.

Export: the active branch as ST lines.  A beat's tool rounds collapse into its final reply; the
siblings of a reply become its swipes, the active one chosen by ``swipe_id``.  A line nobody changed
(same text, same swipes, same choice) is written back exactly as it was imported; a changed one keeps
every field it had and gets fresh ``swipes``/``swipe_id``/``swipe_info``.  The header is ST's own
when the chat came from ST; a new chat gets ST's header with its ``create_date``.

Variables (:mod:`.variables`): a line's ``variables`` (TavernHelper's records, one per swipe) become
a note after each message or swipe entry on import, and ``chat_metadata.variables`` a metadata entry
at the root; export writes each line's records back from the notes (a swipe without one gets ``{}``,
a line whose records are unchanged keeps its own ``variables``), the shown text of a noted message
as its ``mes``, and the branch's chat variables as the header's ``chat_metadata.variables``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .entries import Entry, custom_entry, message_entry
from .ops import NewId
from .tree import SessionTree
from .variables import (
    CHAT_METADATA_TYPE,
    MESSAGE_VARIABLES_TYPE,
    chat_metadata,
    customs_as_data,
    message_notes,
    note_data,
    shown_text,
)


def _reasoning(extra: Any) -> str | None:
    if isinstance(extra, dict) and isinstance(extra.get("reasoning"), str) and extra["reasoning"]:
        return str(extra["reasoning"])
    return None


def _message_from_st(line: dict[str, Any], text: str, swipe_extra: Any, swipe: int | None = None) -> dict[str, Any]:
    role = "user" if line.get("is_user") else "assistant"
    message: dict[str, Any] = {"role": role, "content": text}
    if isinstance(line.get("name"), str):
        message["name"] = line["name"]
    reasoning = _reasoning(swipe_extra) or (_reasoning(line.get("extra")) if swipe_extra is None else None)
    if reasoning:
        message["reasoning"] = reasoning
    extra = line.get("extra")
    if isinstance(extra, dict) and isinstance(extra.get("model"), str):
        message["model"] = extra["model"]
    if line.get("is_system"):
        message["tags"] = ["hidden"]
    message["st"] = dict(line)
    if swipe is not None:
        message["st_swipe"] = swipe
    return message


@dataclass(frozen=True)
class ImportedChat:
    header: dict[str, Any]  # ST's header line ({} for a headerless file)
    entries: list[Entry]  # in append order (each entry's parent comes before it)
    leaf: str | None  # the end of the chosen-swipe chain: where the story continues


def _imported_record(line: dict[str, Any], swipe: int) -> dict[str, Any] | None:
    """The variables TavernHelper kept for swipe *swipe* of *line* (``variables[swipe]``)."""
    records = line.get("variables")
    record: Any = None
    if isinstance(records, list) and 0 <= swipe < len(records):
        record = records[swipe]
    elif isinstance(records, dict):  # an object keyed by swipe number
        record = records.get(str(swipe))
    return record if isinstance(record, dict) and record else None


def import_chat(lines: Sequence[dict[str, Any]], new_id: NewId, timestamp: str) -> ImportedChat:
    """Entries for decoded ST chat lines (header line first, if any)."""
    if not lines:
        return ImportedChat({}, [], None)
    header = lines[0] if "mes" not in lines[0] else {}
    body = lines[1:] if header else lines
    entries: list[Entry] = []
    parent: str | None = None
    metadata = header.get("chat_metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("variables"), dict) and metadata["variables"]:
        root = custom_entry(new_id(), None, timestamp, CHAT_METADATA_TYPE, {"variables": metadata["variables"]})
        entries.append(root)
        parent = root.id

    def add(message: dict[str, Any], under: str | None, record: dict[str, Any] | None) -> tuple[str, str]:
        """The message's entry (and its variables note after it): (its id, the id to continue from)."""
        entry = message_entry(new_id(), under, timestamp, message)
        entries.append(entry)
        if record is None:
            return entry.id, entry.id
        data = note_data(entry.id, variables=record)
        note = custom_entry(new_id(), entry.id, timestamp, MESSAGE_VARIABLES_TYPE, data)
        entries.append(note)
        return entry.id, note.id

    for line in body:
        if not isinstance(line, dict) or "mes" not in line:
            continue
        swipes = line.get("swipes")
        infos = line.get("swipe_info")
        shown = line.get("swipe_id")
        chosen_index = shown if isinstance(shown, int) else 0
        if not line.get("is_user") and isinstance(swipes, list) and len(swipes) > 1:
            chosen_end: str | None = None
            last_end = parent
            for index, swipe in enumerate(swipes):
                info = infos[index] if isinstance(infos, list) and index < len(infos) else None
                swipe_extra = info.get("extra") if isinstance(info, dict) else {}
                message = _message_from_st(line, str(swipe), swipe_extra, index)
                _, last_end = add(message, parent, _imported_record(line, index))
                if index == chosen_index:
                    chosen_end = last_end
            parent = chosen_end or last_end
            continue
        message = _message_from_st(line, str(line.get("mes", "")), None)
        _, parent = add(message, parent, _imported_record(line, chosen_index))
    return ImportedChat(header, entries, parent)


def _finished(entry: Entry) -> bool:
    """A reply the model ended without calling a tool: what follows it is someone else's turn."""
    return entry.type == "message" and entry.role == "assistant" and not entry.message.get("tool_calls")


def _beat_reply(
    tree: SessionTree, head: Entry, split: bool = False
) -> tuple[str, str | None, str, dict[str, dict[str, Any]]]:
    """The final reply of the beat starting at *head*, following newest children (*split*: only as
    far as the reply goes, see :func:`export_chat`): its text, its reasoning, the id of the entry
    that holds it, and the notes found along the way."""
    text, reasoning = str(head.message.get("content") or ""), head.message.get("reasoning")
    final = head.id
    current = head
    chain: list[Entry] = []
    while not (split and _finished(current)):
        kids = [kid for kid in tree.children(current.id) if not (kid.type == "message" and kid.role == "user")]
        if not kids:
            break
        current = kids[-1]
        chain.append(current)
        if current.type == "message" and current.role == "assistant" and current.message.get("content"):
            text, reasoning, final = str(current.message["content"]), current.message.get("reasoning"), current.id
    return text, reasoning if isinstance(reasoning, str) else None, final, message_notes(chain)


def _st_line(message: dict[str, Any], text: str, fallback_name: str, timestamp: str) -> dict[str, Any]:
    original = message.get("st")
    split = "st_swipe" in message  # one of several swipes: _swiped_line writes them
    hidden = "hidden" in (message.get("tags") or [])  # hidden or shown again here (/hide, /unhide)
    if (
        isinstance(original, dict)
        and original.get("mes") == text
        and not split
        and bool(original.get("is_system")) == hidden
    ):
        return dict(original)  # unchanged since the import: the very line
    base = dict(original or {})
    if split:
        for key in ("swipes", "swipe_id", "swipe_info"):
            base.pop(key, None)
    elif isinstance(base.get("swipes"), list):
        # ST keeps the shown swipe and ``mes`` the same text.
        swipes = list(base["swipes"])
        shown = base.get("swipe_id")
        chosen = shown if isinstance(shown, int) else 0
        if 0 <= chosen < len(swipes):
            swipes[chosen] = text
        base["swipes"] = swipes
    base.setdefault("name", message.get("name") or fallback_name)
    base["is_user"] = message.get("role") == "user"
    base["is_system"] = hidden
    base.setdefault("send_date", timestamp)
    base["mes"] = text
    extra = dict(base.get("extra") or {})
    if message.get("reasoning"):
        extra["reasoning"] = message["reasoning"]
    if message.get("model"):
        extra["model"] = message["model"]
    base["extra"] = extra
    return base


def _swipe_info(sibling: Entry, reasoning: str | None) -> Any:
    """The sibling's own ``swipe_info`` item from its imported line, else one made like ST's."""
    message = sibling.message
    original = message.get("st")
    index = message.get("st_swipe")
    infos = original.get("swipe_info") if isinstance(original, dict) else None
    if isinstance(index, int) and isinstance(infos, list) and 0 <= index < len(infos):
        return infos[index]
    if isinstance(original, dict) and index is None and isinstance(infos, list) and len(infos) == 1:
        return infos[0]
    kept = message.get("st_swipe_info")  # sessions imported before whole lines were kept
    if isinstance(kept, dict):
        return kept
    return {"send_date": sibling.timestamp, "extra": {"reasoning": reasoning} if reasoning else {}}


def _swiped_line(line: dict[str, Any], entry: Entry, kin: list[Entry], replies: list[tuple[str, str | None]]) -> None:
    """Give *line* the swipes of *entry*'s siblings (or keep the single swipe ST writes)."""
    chosen = kin.index(entry)
    original = entry.message.get("st")
    texts = [text for text, _ in replies]
    unchanged = isinstance(original, dict) and original.get("mes") == line["mes"] and original.get("swipes") == texts
    if unchanged and isinstance(original, dict) and original.get("swipe_id") == chosen:
        line.clear()
        line.update(original)  # every swipe and the choice as imported
        return
    if len(kin) == 1 and "st_swipe" not in entry.message:
        return  # _st_line kept (or had none of) the line's own swipes
    line["swipes"] = texts
    line["swipe_id"] = chosen
    line["swipe_info"] = [_swipe_info(sibling, r) for sibling, (_, r) in zip(kin, replies, strict=True)]


def _records(notes: list[dict[str, Any] | None]) -> list[Any] | None:
    """A line's ``variables`` (one record per swipe, ``{}`` for a swipe without one), or ``None``
    when none of its swipes has any."""
    found = [note.get("variables") if note is not None else None for note in notes]
    if all(record is None for record in found):
        return None
    return [record if record is not None else {} for record in found]


def _with_records(line: dict[str, Any], records: list[Any] | None) -> None:
    """Give *line* its records, unless it already holds exactly these (an imported line stays as it was)."""
    if records is not None and line.get("variables") != records:
        line["variables"] = records


def export_chat(
    tree: SessionTree,
    header: dict[str, Any],
    user_name: str,
    character_name: str,
    create_date: str = "",
    *,
    split_replies: bool = False,
) -> list[dict[str, Any]]:
    """The active branch as ST chat lines (header first).  *header* is the imported ST header (kept
    as it was); an empty one is made like ST's, with *create_date*.  *split_replies* (a group
    chat, where several replies follow one user message): a reply ends where the model stopped
    without calling a tool, and the next assistant message is the next line."""
    head_line = dict(header) if header else {}
    if not head_line:
        head_line = {"user_name": user_name, "character_name": character_name, "create_date": create_date}
        head_line["chat_metadata"] = {}
    out: list[dict[str, Any]] = [head_line]
    path = tree.path()
    notes = message_notes(path)
    if any(e.type == "custom" and e.body.get("customType") == CHAT_METADATA_TYPE for e in path):
        # The chat variables are what the export carries of the branch's metadata (the rest of it —
        # timed world info, the in-context marker — is the assembly's working state).
        kept = head_line.get("chat_metadata")
        kept = kept if isinstance(kept, dict) else {}
        branch = chat_metadata(customs_as_data(path)).get("variables") or {}
        if branch != (kept.get("variables") or {}):
            head_line["chat_metadata"] = {**kept, "variables": branch}
    roles = [entry.role for entry in path]  # each asked once (an export reads 20,000 of them)
    index = 0
    while index < len(path):
        entry = path[index]
        role = roles[index]
        index += 1
        if role not in ("user", "assistant"):  # (an entry other than a message has no role)
            continue
        message = entry.message
        if role == "user":
            text = shown_text(notes, entry.id, str(message.get("content") or ""))
            line = _st_line(message, text, user_name, entry.timestamp)
            _with_records(line, _records([notes.get(entry.id)]))
            out.append(line)
            continue
        fallback = character_name
        # An assistant reply: collapse its tool rounds, and offer its siblings as swipes.
        head_at = index - 1
        last = entry
        while index < len(path) and roles[index] != "user":
            if split_replies and roles[index] == "assistant" and _finished(last):
                break
            if roles[index]:  # a message (custom entries, such as recorded metadata, have no role)
                last = path[index]
            index += 1
        kin = tree.siblings(entry.id)
        # The shown reply's beat is read along the path; the others' beats from the tree.
        text, reasoning, final = _beat_reply_on_path(path, head_at, index)
        replies: list[tuple[str, str | None]] = []
        swipe_notes: list[dict[str, Any] | None] = []
        for sibling in kin:
            if sibling is entry:
                replies.append((shown_text(notes, final, text), reasoning))
                swipe_notes.append(notes.get(final))
                continue
            other, other_reasoning, other_final, chain = _beat_reply(tree, sibling, split_replies)
            note = {**chain.get(other_final, {}), **notes.get(other_final, {})}
            replies.append((shown_text({other_final: note}, other_final, other), other_reasoning))
            swipe_notes.append(note or None)
        shown = replies[kin.index(entry)][0]
        line = _st_line({**message, "reasoning": reasoning}, shown, fallback, entry.timestamp)
        _swiped_line(line, entry, kin, replies)
        _with_records(line, _records(swipe_notes))
        out.append(line)
    return out


def _beat_reply_on_path(path: list[Entry], at: int, end: int | None = None) -> tuple[str, str | None, str]:
    """The final reply of the beat whose head is ``path[at]``, read up to ``path[end]`` (indexes: a
    search would make a long chat's export quadratic): its text, reasoning and the id of the entry
    that holds it."""
    head = path[at]
    text, reasoning, final = str(head.message.get("content") or ""), head.message.get("reasoning"), head.id
    for index in range(at + 1, len(path) if end is None else end):  # by index: islice would step over *at*
        entry = path[index]
        if entry.type != "message":
            continue
        message = entry.message
        role = message.get("role")
        if role == "user":
            break
        if role == "assistant" and message.get("content"):
            text, reasoning, final = str(message["content"]), message.get("reasoning"), entry.id
    return text, reasoning if isinstance(reasoning, str) else None, final

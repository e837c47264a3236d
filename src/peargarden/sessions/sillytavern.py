"""SillyTavern chat JSONL ↔ session entries (pure: decoded lines in, dicts out).

Import: line 1 is ST's header (``user_name``, ``character_name``, ``create_date``, ``chat_metadata``);
each further line a message (``name``, ``is_user``, ``is_system``, ``send_date``, ``mes``, ``extra``,
``swipes``, ``swipe_id``, ``swipe_info``).  Each message becomes a ``message`` entry; a message with
several swipes becomes that many sibling entries (in swipe order, each remembering its index as
``message["st_swipe"]``) and the story continues from the chosen one (``swipe_id``).  ST's hidden
(``is_system``) messages keep the tag ``"hidden"``.  :class:`StImport` takes the lines one at a time
(an importer streams a long file through it); :func:`import_chat` takes them all.

What an export needs of the original line is kept once, and without the texts the entries already
hold: the entry that holds a line (the first swipe of a split one) keeps it under ``message["st"]``
with some fields left out (``null``, so the key order stays).  ``message["st_elided"]`` says which,
as the sum of their flags (a number: it is on every line): ``mes`` 1 and ``swipes`` 2 (the swipes'
own texts), ``swipe_info`` 4 (each swipe keeps its own record under ``st_info``), ``extra.reasoning``
8 (the chosen swipe's reasoning), for a line of one swipe ``swipe_info.0.extra.reasoning`` 16,
``name`` 32 and ``extra.model`` 64 (the message's own); a swipe's record leaves out its reasoning
when ``st_info_reasoning`` says it is the message's, and the chosen swipe has none when its record
is the line's own ``send_date``, ``gen_started``, ``gen_finished`` and ``extra`` (``st_mirror``: ST
writes the chosen record into the line).  Every entry of the line names the holder in
``st_line``, so a copy (an edit, a hide) still finds its original.  :func:`st_original` puts the
line back together.  (Sessions imported before kept the whole line, swipes and all, under ``st`` of
every swipe, a file four times the original's size; they are read as they are.)

Variables (:mod:`.variables`): a line's ``variables`` (TavernHelper's records, one per swipe) become
a note after each message or swipe entry on import, and ``chat_metadata.variables`` a metadata entry
at the root; export writes each line's records back from the notes (a swipe without one gets ``{}``,
a line whose records are unchanged keeps its own ``variables``), the shown text of a noted message
as its ``mes``, and the branch's chat variables as the header's ``chat_metadata.variables``.

Export: the active branch as ST lines.  A beat's tool rounds collapse into its final reply (a picture
message, ``extra.image``, is a line of its own with the ``extra`` it carries); the siblings of a reply
become its swipes, the active one chosen by ``swipe_id``.  A line nobody changed
(same text, same swipes, same choice) is written back exactly as it was imported; a changed one keeps
every field it had and gets fresh ``swipes``/``swipe_id``/``swipe_info``.  The header is ST's own
when the chat came from ST; a new chat gets ST's header with its ``create_date``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from .entries import HIDDEN_TAG, Entry, custom_entry, message_entry
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


#: Keys of an imported message (see the module's docstring).
ST = "st"
ST_ELIDED = "st_elided"
ST_LINE = "st_line"
ST_SWIPE = "st_swipe"
ST_INFO = "st_info"
ST_INFO_REASONING = "st_info_reasoning"
ST_MIRROR = "st_mirror"
# What SillyTavern copies of the chosen swipe's record into its line (1.13 on: every field of it).
_MIRRORED = ("send_date", "gen_started", "gen_finished", "extra")
# The fields of a line left out of ``st`` (flags summed in ``st_elided``).
MES, SWIPES, SWIPE_INFO, REASONING, ONLY_SWIPE_REASONING, NAME, MODEL = 1, 2, 4, 8, 16, 32, 64


def _leave_out_name_and_model(skeleton: dict[str, Any], message: dict[str, Any]) -> int:
    """Leave the line's ``name`` and ``extra.model`` out of *skeleton* where *message* holds them."""
    flags = 0
    if "name" in message and skeleton.get("name") == message["name"]:
        skeleton["name"] = None
        flags |= NAME
    extra = skeleton.get("extra")
    if "model" in message and isinstance(extra, dict) and extra.get("model") == message["model"]:
        skeleton["extra"] = {**extra, "model": None}
        flags |= MODEL
    return flags


def _message_from_st(line: dict[str, Any], text: str, swipe_extra: Any) -> dict[str, Any]:
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
        message["tags"] = [HIDDEN_TAG]
    return message


def _without_reasoning(record: Any, reasoning: Any) -> dict[str, Any] | None:
    """*record* (a dict with an ``extra`` dict) with ``extra.reasoning`` left out, when that is
    *reasoning* (a non-empty text); else ``None``."""
    if not reasoning or not isinstance(record, dict):
        return None
    extra = record.get("extra")
    if not isinstance(extra, dict) or extra.get("reasoning") != reasoning:
        return None
    return {**record, "extra": {**extra, "reasoning": None}}


def _imported_record(line: dict[str, Any], swipe: int) -> dict[str, Any] | None:
    """The variables TavernHelper kept for swipe *swipe* of *line* (``variables[swipe]``)."""
    records = line.get("variables")
    record: Any = None
    if isinstance(records, list) and 0 <= swipe < len(records):
        record = records[swipe]
    elif isinstance(records, dict):  # an object keyed by swipe number
        record = records.get(str(swipe))
    return record if isinstance(record, dict) and record else None


class ImportedChat(msgspec.Struct, frozen=True):
    header: dict[str, Any]  # ST's header line ({} for a headerless file)
    entries: list[Entry]  # in append order (each entry's parent comes before it)
    leaf: str | None  # the end of the chosen-swipe chain: where the story continues


class StImport:
    """Decoded ST chat lines in, one at a time (header line first, if any); entries out."""

    def __init__(self, new_id: NewId, timestamp: str) -> None:
        self._new_id = new_id
        self._timestamp = timestamp
        self._first = True
        self.header: dict[str, Any] = {}
        self.leaf: str | None = None  # the end of the chosen-swipe chain so far

    def feed(self, line: Any) -> list[Entry]:
        if self._first:
            self._first = False
            if "mes" not in line:
                self.header = line
                return self._metadata_root(line)
        if not isinstance(line, dict) or "mes" not in line:
            return []
        swipes = line.get("swipes")
        if not line.get("is_user") and isinstance(swipes, list) and len(swipes) > 1:
            return self._swipes(line, swipes)
        return self._single(line)

    def _metadata_root(self, header: Any) -> list[Entry]:
        """The chat's variables (``chat_metadata.variables``) as the branch's first entry."""
        metadata = header.get("chat_metadata") if isinstance(header, dict) else None
        if not (isinstance(metadata, dict) and isinstance(metadata.get("variables"), dict) and metadata["variables"]):
            return []
        data = {"variables": metadata["variables"]}
        root = custom_entry(self._new_id(), None, self._timestamp, CHAT_METADATA_TYPE, data)
        self.leaf = root.id
        return [root]

    def _noted(self, entry: Entry, record: dict[str, Any] | None) -> list[Entry]:
        """*entry*, and the note of its variables after it when it has some."""
        if record is None:
            return [entry]
        note = custom_entry(self._new_id(), entry.id, self._timestamp, MESSAGE_VARIABLES_TYPE,
                            note_data(entry.id, variables=record))  # fmt: skip
        return [entry, note]

    def _single(self, line: dict[str, Any]) -> list[Entry]:
        entry_id = self._new_id()
        mes = line.get("mes")
        message = _message_from_st(line, str(line.get("mes", "")), None)
        skeleton, elided = dict(line), 0
        if isinstance(mes, str):
            skeleton["mes"] = None
            elided |= MES
            if line.get("swipes") == [mes]:
                skeleton["swipes"] = None
                elided |= SWIPES
        reasoning = message.get("reasoning")
        left = _without_reasoning(line, reasoning)
        if left is not None:
            skeleton["extra"] = left["extra"]
            elided |= REASONING
        infos = line.get("swipe_info")
        if isinstance(infos, list) and len(infos) == 1:
            record = _without_reasoning(infos[0], reasoning)
            if record is not None:
                skeleton["swipe_info"] = [record]
                elided |= ONLY_SWIPE_REASONING
        elided |= _leave_out_name_and_model(skeleton, message)
        message.update({ST: skeleton, ST_ELIDED: elided, ST_LINE: entry_id})
        entry = message_entry(entry_id, self.leaf, self._timestamp, message)
        shown = line.get("swipe_id")
        noted = self._noted(entry, _imported_record(line, shown if isinstance(shown, int) else 0))
        self.leaf = noted[-1].id
        return noted

    def _swipes(self, line: dict[str, Any], swipes: list[Any]) -> list[Entry]:
        infos = line.get("swipe_info")
        shown = line.get("swipe_id")
        chosen_index = shown if isinstance(shown, int) else 0
        records = infos if isinstance(infos, list) and len(infos) == len(swipes) else None
        messages = []
        for index, swipe in enumerate(swipes):
            info = infos[index] if isinstance(infos, list) and index < len(infos) else None
            swipe_extra = info.get("extra") if isinstance(info, dict) else {}
            messages.append(_message_from_st(line, str(swipe), swipe_extra))
        ids = [self._new_id() for _ in swipes]
        skeleton, elided = dict(line), 0
        if all(isinstance(swipe, str) for swipe in swipes):
            skeleton["swipes"] = None
            elided |= SWIPES
            if 0 <= chosen_index < len(swipes) and line.get("mes") == swipes[chosen_index]:
                skeleton["mes"] = None
                elided |= MES
        if records is not None:
            skeleton["swipe_info"] = None
            elided |= SWIPE_INFO
        if 0 <= chosen_index < len(swipes):
            left = _without_reasoning(line, messages[chosen_index].get("reasoning"))
            if left is not None:
                skeleton["extra"] = left["extra"]
                elided |= REASONING
        elided |= _leave_out_name_and_model(skeleton, messages[0])
        entries: list[Entry] = []
        parent = self.leaf
        chosen_id: str | None = None
        for index, message in enumerate(messages):
            if index == 0:
                message.update({ST: skeleton, ST_ELIDED: elided})
            message.update({ST_LINE: ids[0], ST_SWIPE: index})
            if records is not None and index == chosen_index and _same(records[index], _mirror(line)):
                message[ST_MIRROR] = 1  # ST copies the chosen swipe's record into the line: kept once
            elif records is not None:
                record = _without_reasoning(records[index], message.get("reasoning"))
                message[ST_INFO] = records[index] if record is None else record
                if record is not None:
                    message[ST_INFO_REASONING] = True
            entry = message_entry(ids[index], parent, self._timestamp, message)
            noted = self._noted(entry, _imported_record(line, index))
            entries.extend(noted)
            if index == chosen_index:
                chosen_id = noted[-1].id
        self.leaf = chosen_id or entries[-1].id
        return entries


def import_chat(lines: Sequence[dict[str, Any]], new_id: NewId, timestamp: str) -> ImportedChat:
    """Entries for decoded ST chat lines (header line first, if any)."""
    if not lines:
        return ImportedChat({}, [], None)
    importer = StImport(new_id, timestamp)
    entries: list[Entry] = []
    for line in lines:
        entries.extend(importer.feed(line))
    return ImportedChat(importer.header, entries, importer.leaf)


def st_original(tree: SessionTree, entry: Entry) -> dict[str, Any] | None:
    """The SillyTavern line *entry* was imported from, as it was in the file (``None`` for a message
    made here, or when its line cannot be put back together).  The texts come from the messages as
    imported: one changed in place since (an edit, a continue) keeps that message as its first
    revision."""

    def imported(each: Entry) -> dict[str, Any]:
        revisions = tree.revisions(each.id)
        return revisions[0] if revisions else each.message

    message = entry.message
    holder_id = message.get(ST_LINE)
    if not isinstance(holder_id, str):
        line = message.get(ST)
        return line if isinstance(line, dict) else None  # made here, or imported whole (older sessions)
    holder = tree.get(holder_id) if holder_id in tree else entry
    kept = imported(holder)
    skeleton, elided = kept.get(ST), kept.get(ST_ELIDED)
    if not isinstance(skeleton, dict) or not isinstance(elided, int):
        return None
    members = _members(tree, holder) if ST_SWIPE in kept else [holder]
    if members is None:
        return None
    line = dict(skeleton)
    shown = line.get("swipe_id")
    chosen_index = shown if isinstance(shown, int) and ST_SWIPE in kept else 0
    chosen = members[chosen_index] if 0 <= chosen_index < len(members) else members[0]
    if elided & MES:
        line["mes"] = imported(chosen).get("content")
    if elided & SWIPES:
        line["swipes"] = [imported(member).get("content") for member in members]
    if elided & REASONING:
        line["extra"] = {**line["extra"], "reasoning": imported(chosen).get("reasoning")}
    if elided & NAME:
        line["name"] = kept.get("name")
    if elided & MODEL:
        line["extra"] = {**line["extra"], "model": kept.get("model")}
    if elided & SWIPE_INFO:  # after the line's own fields: the chosen record may be a copy of them
        line["swipe_info"] = [_mirror(line) if ST_MIRROR in imported(m) else _record(imported(m)) for m in members]
    if elided & ONLY_SWIPE_REASONING:
        record = line["swipe_info"][0]
        line["swipe_info"] = [{**record, "extra": {**record["extra"], "reasoning": imported(chosen).get("reasoning")}}]
    return line


def _members(tree: SessionTree, holder: Entry) -> list[Entry] | None:
    """The swipes a line was split into, in swipe order: the first entry with each index among the
    holder's siblings (an edit's copy comes after its original)."""
    found: dict[int, Entry] = {}
    for kid in tree.children(holder.parent_id):
        if kid.type != "message":
            continue
        kept = kid.message
        index = kept.get(ST_SWIPE)
        if kept.get(ST_LINE) == holder.id and isinstance(index, int) and index not in found:
            found[index] = kid
    if sorted(found) != list(range(len(found))):
        return None
    return [found[index] for index in range(len(found))]


def _mirror(line: dict[str, Any]) -> dict[str, Any]:
    """The chosen swipe's record as the line's own copy of its fields."""
    return {key: line[key] for key in _MIRRORED if key in line}


def _same(a: Any, b: Any) -> bool:
    """The same JSON, key order included (``==`` takes ``1`` for ``true`` and ignores the order)."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def _record(message: dict[str, Any]) -> Any:
    """A swipe's own ``swipe_info`` record as it was in the file."""
    record = message.get(ST_INFO)
    if message.get(ST_INFO_REASONING) and isinstance(record, dict) and isinstance(record.get("extra"), dict):
        return {**record, "extra": {**record["extra"], "reasoning": message.get("reasoning")}}
    return record


def _finished(entry: Entry) -> bool:
    """A reply the model ended without calling a tool: what follows it is someone else's turn."""
    return entry.type == "message" and entry.role == "assistant" and not entry.message.get("tool_calls")


def _picture(entry: Entry) -> bool:
    """A picture message (SillyTavern's ``extra.image``, written by the image generation): a line of its
    own, never a round of the reply before it."""
    extra = entry.message.get("extra") if entry.type == "message" else None
    return isinstance(extra, dict) and bool(extra.get("image"))


def _beat_reply(tree: SessionTree, head: Entry) -> tuple[str, str | None, str, dict[str, dict[str, Any]]]:
    """The final reply of the beat starting at *head*, following newest children only as far as the
    reply goes (see :func:`export_chat`): its text, its reasoning, the id of the entry that holds it,
    and the notes found along the way."""
    text, reasoning = str(head.message.get("content") or ""), head.message.get("reasoning")
    final = head.id
    current = head
    chain: list[Entry] = []
    ended = _finished(head)
    while True:
        kids = [kid for kid in tree.children(current.id) if not (kid.type == "message" and kid.role == "user")]
        if not kids or (ended and kids[-1].type == "message") or _picture(kids[-1]):
            break  # once the reply ended, only the entries about it (its variables notes) follow
        current = kids[-1]
        chain.append(current)
        if current.type == "message" and current.role == "assistant" and current.message.get("content"):
            text, reasoning, final = str(current.message["content"]), current.message.get("reasoning"), current.id
        ended = ended or _finished(current)
    return text, reasoning if isinstance(reasoning, str) else None, final, message_notes(chain)


def _st_line(
    message: dict[str, Any], original: dict[str, Any] | None, text: str, fallback_name: str, timestamp: str
) -> dict[str, Any]:
    split = ST_SWIPE in message  # one of several swipes: _swiped_line writes them
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
    if isinstance(message.get("extra"), dict):  # written as SillyTavern writes it (a picture's image, title …)
        extra.update(message["extra"])
    if message.get("reasoning"):
        extra["reasoning"] = message["reasoning"]
    own = message.get("extra")
    if message.get("model") and not (isinstance(own, dict) and "model" in own):  # (the model asked, when kept)
        extra["model"] = message["model"]
    base["extra"] = extra
    return base


def _swipe_info(tree: SessionTree, sibling: Entry, reasoning: str | None) -> Any:
    """The sibling's own ``swipe_info`` item from its imported line, else one made like ST's."""
    message = sibling.message
    if ST_INFO in message:
        return _record(message)
    original = st_original(tree, sibling)
    index = message.get(ST_SWIPE)
    infos = original.get("swipe_info") if isinstance(original, dict) else None
    if isinstance(index, int) and isinstance(infos, list) and 0 <= index < len(infos):
        return infos[index]
    if isinstance(original, dict) and index is None and isinstance(infos, list) and len(infos) == 1:
        return infos[0]
    kept = message.get("st_swipe_info")  # sessions imported before whole lines were kept
    if isinstance(kept, dict):
        return kept
    return {"send_date": sibling.timestamp, "extra": {"reasoning": reasoning} if reasoning else {}}


def _swiped_line(
    tree: SessionTree,
    line: dict[str, Any],
    entry: Entry,
    original: dict[str, Any] | None,
    kin: list[Entry],
    replies: list[tuple[str, str | None]],
) -> None:
    """Give *line* the swipes of *entry*'s siblings (or keep the single swipe ST writes)."""
    chosen = kin.index(entry)
    texts = [text for text, _ in replies]
    unchanged = isinstance(original, dict) and original.get("mes") == line["mes"] and original.get("swipes") == texts
    if unchanged and isinstance(original, dict) and original.get("swipe_id") == chosen:
        line.clear()
        line.update(original)  # every swipe and the choice as imported
        return
    if len(kin) == 1 and ST_SWIPE not in entry.message:
        return  # _st_line kept (or had none of) the line's own swipes
    line["swipes"] = texts
    line["swipe_id"] = chosen
    line["swipe_info"] = [_swipe_info(tree, sibling, r) for sibling, (_, r) in zip(kin, replies, strict=True)]


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


def _with_extra(line: dict[str, Any], note: dict[str, Any] | None) -> None:
    """The ``extra`` a card's script gave the message, in place of the line's own (as SillyTavern's
    ``setChatMessages`` replaces it), and the swipes it set, in place of the siblings'."""
    extra = note.get("extra") if note is not None else None
    if isinstance(extra, dict):
        line["extra"] = dict(extra)
    kept = note.get("swipes") if note is not None else None
    if isinstance(kept, dict):
        line.update({key: kept[key] for key in ("swipes", "swipe_id", "swipe_info", "variables") if key in kept})


def export_chat(
    tree: SessionTree,
    header: dict[str, Any],
    user_name: str,
    character_name: str,
    create_date: str = "",
) -> list[dict[str, Any]]:
    """The active branch as ST chat lines (header first).  *header* is the imported ST header (kept
    as it was); an empty one is made like ST's, with *create_date*.  A reply ends where the model
    stopped without calling a tool: the next assistant message is the next line (a group's next
    speaker; a message a script, ``/sys`` or ``/sendas`` put after a reply — a hidden narrator's line
    once shared the reply's number, and every later message's variables were one off)."""
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
            line = _st_line(message, st_original(tree, entry), text, user_name, entry.timestamp)
            _with_records(line, _records([notes.get(entry.id)]))
            _with_extra(line, notes.get(entry.id))
            out.append(line)
            continue
        fallback = character_name
        # An assistant reply: collapse its tool rounds, and offer its siblings as swipes.
        head_at = index - 1
        last = entry
        while index < len(path) and roles[index] != "user":
            if roles[index] == "assistant" and _finished(last):
                break  # the reply ended (no tool called): a message after it is a line of its own
            if roles[index] and (_picture(path[index]) or _picture(entry)):
                break  # a picture is a line of its own, and the reply before it ends there
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
            other, other_reasoning, other_final, chain = _beat_reply(tree, sibling)
            note = {**chain.get(other_final, {}), **notes.get(other_final, {})}
            replies.append((shown_text({other_final: note}, other_final, other), other_reasoning))
            swipe_notes.append(note or None)
        shown = replies[kin.index(entry)][0]
        original = st_original(tree, entry)
        line = _st_line({**message, "reasoning": reasoning}, original, shown, fallback, entry.timestamp)
        _swiped_line(tree, line, entry, original, kin, replies)
        _with_records(line, _records(swipe_notes))
        _with_extra(line, notes.get(final))
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

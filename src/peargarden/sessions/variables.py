"""Variables in the session tree: TavernHelper's message variables and SillyTavern's chat metadata.

A message's variables (TavernHelper's ``chat[i].variables[swipe_id]``: MVU keeps its ``stat_data``
there) are a ``custom`` entry of type :data:`MESSAGE_VARIABLES_TYPE` on the branch after the message:
``{"message": <entry id>, "variables": {...}, "text": "..."}``.  ``message`` names the entry whose
text the message shows (a reply's last text entry; swipes are siblings, so each swipe's variables sit
in its own branch); ``text``, when present, is the message as shown and sent from then on (MVU
appends its status placeholder to a reply, the stage strips an update block): the model's own words
stay in the message entry, nothing is rewritten; ``extra``, when present, is SillyTavern's ``extra`` of
the message as a card's script set it (``setChatMessages``: a swipe's info shown, a role's type);
``swipes``, when present, SillyTavern's swipes of the message as a script set them (``{"swipes",
"swipe_id", "swipe_info", "variables"}``: a message's swipes that are not replies of their own, or
another swipe shown on a message with later ones), in place of its siblings, ``text`` the shown
one.  On one branch the latest note for a message wins, key by key.  The edits of :mod:`.ops` carry notes
along with the messages they copy.

The chat's variables (``chat_metadata.variables``, the ``/setvar`` store TavernHelper also calls chat
variables) are the ``variables`` of the chat's SillyTavern metadata: the latest
:data:`CHAT_METADATA_TYPE` entry on the branch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .entries import Entry

MESSAGE_VARIABLES_TYPE = "message-variables"
# SillyTavern's chat metadata (timed world info, chat variables, the in-context marker), kept on the branch.
CHAT_METADATA_TYPE = "tavern-metadata"

# Custom entries that describe one message (``data["message"]``): copies follow the message they name.
MESSAGE_BOUND_TYPES = frozenset({MESSAGE_VARIABLES_TYPE})
_NOTE_KEYS = ("variables", "text", "extra", "swipes")


def note_data(
    message_id: str,
    *,
    variables: Any = None,
    text: str | None = None,
    extra: dict[str, Any] | None = None,
    swipes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The data of a message-variables entry (``None``: that part is not said)."""
    data: dict[str, Any] = {"message": message_id}
    if swipes is not None:
        data["swipes"] = swipes
    if variables is not None:
        data["variables"] = variables
    if text is not None:
        data["text"] = text
    if extra is not None:
        data["extra"] = extra
    return data


def bound_message(entry: Entry) -> str | None:
    """The message a message-bound custom entry names, else ``None``."""
    if entry.type != "custom" or entry.body.get("customType") not in MESSAGE_BOUND_TYPES:
        return None
    data = entry.body.get("data")
    target = data.get("message") if isinstance(data, dict) else None
    return target if isinstance(target, str) else None


def message_notes(entries: Iterable[Entry]) -> dict[str, dict[str, Any]]:
    """Message id → its note (``variables``, ``text``), the later entries' keys over the earlier ones'."""
    return note_records(customs_as_data(entries))


def note_records(custom_entries: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """:func:`message_notes` over custom entries as a request builder sees them (``{"customType", "data"}``)."""
    notes: dict[str, dict[str, Any]] = {}
    for custom in custom_entries:
        if custom.get("customType") not in MESSAGE_BOUND_TYPES:
            continue
        data = custom.get("data")
        target = data.get("message") if isinstance(data, dict) else None
        if not isinstance(target, str):
            continue
        assert isinstance(data, dict)
        said = {key: data[key] for key in _NOTE_KEYS if key in data}
        merged = notes.get(target)
        if merged is None:
            notes[target] = said
        else:
            merged.update(said)
    return notes


def shown_text(notes: Mapping[str, Mapping[str, Any]], entry_id: str | None, text: str) -> str:
    """A message's text as shown: its note's ``text`` when it has one."""
    note = notes.get(entry_id) if entry_id is not None else None
    override = note.get("text") if note is not None else None
    return override if isinstance(override, str) else text


def chat_metadata(customs: Iterable[Mapping[str, Any]], header: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The chat's SillyTavern metadata on a branch: the latest metadata entry's data, else the
    ``chat_metadata`` of the SillyTavern header the chat was imported with (``header``)."""
    latest: dict[str, Any] | None = None
    for custom in customs:
        if custom.get("customType") == CHAT_METADATA_TYPE and isinstance(custom.get("data"), dict):
            latest = custom["data"]
    if latest is not None:
        return dict(latest)
    imported = (header or {}).get("chat_metadata")
    return dict(imported) if isinstance(imported, dict) else {}


def customs_as_data(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """Custom entries as a request builder sees them (``BeatInput.custom_entries``)."""
    return [{"customType": e.body.get("customType"), "data": e.body.get("data")} for e in entries if e.type == "custom"]


def chat_variables(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``chat_metadata.variables`` (``{}`` when there are none)."""
    found = metadata.get("variables")
    return dict(found) if isinstance(found, dict) else {}

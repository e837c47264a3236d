"""SillyTavern content formats (see docs/formats.md): read and write, unknown fields kept.  Pure: bytes in, values out.

Callers pass bytes (check ``len`` against ``MAX_INPUT_BYTES`` before reading a file) and a file
name used only in error messages.  Every problem raises ``peargarden.errors.FormatError`` with a
one-line Chinese-first message and ``path=filename``.

Detect::

    detect_kind(data, filename) -> "card_png" | "card_json" | "charx" | "lorebook" | "preset" | "chat_jsonl"

Cards (V1, V2 ``chara_card_v2``, V3 ``chara_card_v3``; JSON, PNG, CHARX)::

    card = read_card(data, filename)        # any container; PNG prefers ccv3 over chara
    card.name, card.data, card.character_book, card.extensions, card.top, card.assets, card.icon()
    Card.new("青梧", description=..., first_mes=...)
    card_to_json(card, spec="v3"|"v2") -> bytes            # v2 = SillyTavern's hybrid
    card_to_png(card, image_png, spec="v3") -> bytes        # chara (+ ccv3) before IEND
    card_to_charx(card, assets=None, icon=None) -> bytes
    read_zip(data, filename) -> {path: bytes}    # any zip, as safely as a CHARX (paths, sizes, bombs)
    card_to_object(card, spec) -> dict ; card_from_object(obj, filename) -> Card

Lorebooks (standalone ``{"entries": {uid: entry}}`` ⇄ embedded ``character_book``)::

    read_lorebook(data, filename) -> dict   # standalone shape, entries as stored
    lorebook_from_character_book(book, name="", editor_resave=True) -> dict
    character_book_from_lorebook(book, name="") -> dict
    new_entry(uid, **fields), fill_entry_defaults(entry), new_lorebook(entries), next_uid(book),
    WI_ENTRY_DEFAULTS

Presets (stored verbatim)::

    read_preset(data, filename) -> dict ; load_preset(data, filename) -> PresetFile(data, raw)

Chats (SillyTavern JSONL, 1.12 and 1.18 headers)::

    read_chat_jsonl(data, filename) -> TavernChat(header, messages, torn_line)
    write_chat_jsonl(chat) -> bytes ; TavernChat.new(style=...) ; TavernMessage.new(...)
    format_send_date(datetime, style) ; format_create_date(datetime)
    parse_send_date(value) -> datetime | None   # every send_date shape ST has written

Groups (``groups/<id>.json``; a group chat is a chat file whose bot messages carry
``original_avatar``, ``force_avatar`` and ``extra.gen_id``)::

    read_group(data, filename) -> GroupFile(raw) ; write_group(group) -> bytes
    new_group(id, name, members, chat_id=...) ; avatar_thumbnail(avatar) -> force_avatar URL

JSON text (lone UTF-16 surrogates, legal in SillyTavern's JavaScript strings, written as ``\\udXXX``)::

    dumps_json(value, indent=None, compact=False) ; escape_lone_surrogates(json_text)
    replace_lone_surrogates(text)   # → U+FFFD, for model requests

SillyTavern theme files (``themes/<name>.json``; fields in its order, unknown ones kept)::

    read_theme(data, filename) -> dict ; theme_from_object(obj, filename) ; theme_to_json(theme) -> bytes
    is_theme_object(obj) -> bool

Regex-script files (one script object, or an array)::

    read_regex_scripts(data, filename) -> list[dict]

TavernHelper scripts of a card or a preset, read, never run (``formats.helper_scripts``)::

    helper_scripts(extensions) -> list[HelperScript] ; script_report(script, owner) -> str

Personas (SillyTavern ``power_user``)::

    Persona, PERSONA_* ; personas_from_power_user(pu) ; personas_to_power_user(personas, pu)
    read_personas(data, filename) ; persona_to_json(p) ; personas_to_backup_json(personas)
"""

from ._charx import read_archive as read_zip
from ._common import (
    MAX_INPUT_BYTES,
    decode_utf8,
    dumps_json,
    escape_lone_surrogates,
    has_lone_surrogate,
    parse_json_bytes,
    replace_lone_surrogates,
)
from .card_files import card_like, card_to_charx, card_to_json, card_to_png, read_card, read_card_png, read_charx
from .cards import SPEC_V2, SPEC_V3, Card, card_from_object, card_to_object
from .chats import (
    TavernChat,
    TavernMessage,
    format_create_date,
    format_send_date,
    is_chat_text,
    iter_chat_jsonl,
    parse_send_date,
    read_chat_jsonl,
    write_chat_jsonl,
)
from .detect import Kind, detect_kind
from .groups import GroupFile, avatar_thumbnail, new_group, read_group, write_group
from .lorebooks import (
    WI_ENTRY_DEFAULTS,
    character_book_from_lorebook,
    fill_entry_defaults,
    lorebook_from_character_book,
    lorebook_from_object,
    new_entry,
    new_lorebook,
    next_uid,
    normalized_character_book,
    read_lorebook,
)
from .personas import (
    PERSONA_AFTER_CHAR,
    PERSONA_AT_DEPTH,
    PERSONA_BOTTOM_AN,
    PERSONA_IN_PROMPT,
    PERSONA_NONE,
    PERSONA_TOP_AN,
    Persona,
    persona_from_object,
    persona_to_json,
    personas_from_power_user,
    personas_to_backup_json,
    personas_to_power_user,
    read_personas,
)
from .presets import PresetFile, load_preset, read_preset
from .regex_files import read_regex_scripts
from .themes import is_theme_object, read_theme, theme_from_object, theme_to_json

__all__ = [
    "MAX_INPUT_BYTES",
    "PERSONA_AFTER_CHAR",
    "PERSONA_AT_DEPTH",
    "PERSONA_BOTTOM_AN",
    "PERSONA_IN_PROMPT",
    "PERSONA_NONE",
    "PERSONA_TOP_AN",
    "SPEC_V2",
    "SPEC_V3",
    "WI_ENTRY_DEFAULTS",
    "Card",
    "GroupFile",
    "Kind",
    "Persona",
    "PresetFile",
    "TavernChat",
    "TavernMessage",
    "avatar_thumbnail",
    "card_from_object",
    "card_like",
    "card_to_charx",
    "card_to_json",
    "card_to_object",
    "card_to_png",
    "character_book_from_lorebook",
    "decode_utf8",
    "detect_kind",
    "dumps_json",
    "escape_lone_surrogates",
    "fill_entry_defaults",
    "format_create_date",
    "format_send_date",
    "has_lone_surrogate",
    "is_chat_text",
    "is_theme_object",
    "iter_chat_jsonl",
    "load_preset",
    "lorebook_from_character_book",
    "lorebook_from_object",
    "new_entry",
    "new_group",
    "new_lorebook",
    "next_uid",
    "normalized_character_book",
    "parse_json_bytes",
    "parse_send_date",
    "persona_from_object",
    "persona_to_json",
    "personas_from_power_user",
    "personas_to_backup_json",
    "personas_to_power_user",
    "read_card",
    "read_card_png",
    "read_charx",
    "read_chat_jsonl",
    "read_group",
    "read_lorebook",
    "read_personas",
    "read_preset",
    "read_regex_scripts",
    "read_theme",
    "read_zip",
    "replace_lone_surrogates",
    "theme_from_object",
    "theme_to_json",
    "write_chat_jsonl",
    "write_group",
]

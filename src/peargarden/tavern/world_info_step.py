"""The world-info step of a generation: pick the books, run the scan, write its results back.

Books come from the global selection, the character's linked world (plus ST's extra books) and the
chat's book, de-duplicated as ST does; parsed books live in the state's ``LorebookCache`` (the
engine keeps its per-entry plans on them, so a caller that keeps the cache between generations
scans ~3x cheaper) and the sorted entry list is cached in the state.  The scan gets ST's
full-string token count, the WORLD_INFO regex hook, the table entries marked for scanning and
the length of the core chat (for timed effects); afterwards the Author's Note is wrapped with
AN-top/bottom entries and @depth entries become ``customDepthWI-<depth>-<role>`` table entries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.text.regex_scripts import Placement
from peargarden.text.tokens import full_text_tokens
from peargarden.worldinfo import CharacterContext, ScanMessage, WorldInfoEntry, WorldInfoSettings, check_world_info
from peargarden.worldinfo.placement import wrap_authors_note
from peargarden.worldinfo.sources import sort_entries

from . import defaults as d
from .context import _MAX_SCAN_DEPTH, GenerationContext, _dict
from .lazy_chat import ChatPair


def _depth(value: float) -> int:
    if value != value or value <= 0:  # NaN or not positive: the scan reads nothing
        return 0
    return min(math.ceil(value), _MAX_SCAN_DEPTH)


def _scan_window(entries: Sequence[WorldInfoEntry]) -> int:
    """The deepest per-entry ``scanDepth`` (any odd value means: the whole reachable chat)."""
    deepest = 0
    for entry in entries:
        value = entry.raw.get("scanDepth")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return _MAX_SCAN_DEPTH
        deepest = max(deepest, _depth(float(value)))
    return deepest


OUTLET_PREFIX = "customWIOutlet_"


def _new_scan_options(g: GenerationContext) -> dict[str, Any]:
    """The 1.18 scan inputs: generation-type triggers, match sources, ``ignoreBudget``."""
    compat = g.compat
    options: dict[str, Any] = {}
    if compat.wi_entry_triggers:
        options["trigger"] = g.type
    if compat.wi_ignore_budget:
        options["ignore_budget"] = True
    if compat.wi_match_sources:
        s = g.s
        fields = g.card_fields
        depth_prompt = _dict(s.card_extensions.get("depth_prompt")).get("prompt")
        options["match_texts"] = {
            "matchPersonaDescription": fields.persona,
            "matchCharacterDescription": fields.description,
            "matchCharacterPersonality": fields.personality,
            "matchCharacterDepthPrompt": g.base_replace(js_trim(depth_prompt) if isinstance(depth_prompt, str) else ""),
            "matchScenario": fields.scenario,
            "matchCreatorNotes": g.base_replace(s.card_data.get("creator_notes")),
        }
    return options


def world_info(
    g: GenerationContext, core: Sequence[ChatPair], an_active: bool
) -> tuple[str, str, list[tuple[str, str]]]:
    """Run the scan; ``core`` is the chat newest first as (message, text after regex)."""
    s = g.s
    wis = s.wi_settings
    selection = _dict(wis.get("world_info"))
    global_names = [n for n in (selection.get("globalSelect") or []) if isinstance(n, str)]
    char_names: list[str] = []
    char_world = s.card_extensions.get("world")
    if isinstance(char_world, str) and char_world:
        char_names.append(char_world)
    file_name = s.avatar.rsplit(".", 1)[0] if "." in s.avatar else s.avatar
    for lore in selection.get("charLore") or []:
        if isinstance(lore, dict) and lore.get("name") == file_name:
            char_names.extend(b for b in lore.get("extraBooks") or [] if isinstance(b, str))
    chat_name = s.chat_metadata.get("world_info")
    chat_name = chat_name if isinstance(chat_name, str) and chat_name else None

    def load(name: str) -> Any:
        data = s.worlds.get(name)
        if data is None:
            g.warnings.append(f"找不到世界书 {name!r}，已跳过")
            return None
        try:
            return s.lorebooks.get(name, data)
        except Exception as error:  # a damaged book must not stop the assembly
            g.warnings.append(f"世界书 {name!r} 无法读取：{error}")
            return None

    persona_name = s.power_user.get("persona_description_lorebook") if g.compat.wi_persona_lorebook else None
    if not isinstance(persona_name, str) or not persona_name or persona_name == chat_name:
        persona_name = None
    if persona_name in global_names:
        persona_name = None
    chat_book = load(chat_name) if chat_name and chat_name not in global_names else None
    persona_book = load(persona_name) if persona_name else None
    global_books = [b for b in (load(n) for n in dict.fromkeys(global_names)) if b is not None]
    character_books = [
        b
        for b in (
            load(n)
            for n in dict.fromkeys(char_names)
            if n not in global_names and n != chat_name and (persona_name is None or n != persona_name)
        )
        if b is not None
    ]
    settings = WorldInfoSettings.from_st(wis)
    # The sorted list is cached with the very book objects it came from (identity, not id():
    # a replaced book must never match a stale list).
    books = (*global_books, None, *character_books, None, chat_book, None, persona_book)
    cached_sort = s.book_cache.get("\0sorted")
    if (
        cached_sort is not None
        and cached_sort[0][0] == settings.character_strategy
        and len(cached_sort[0][1]) == len(books)
        and all(a is b for a, b in zip(cached_sort[0][1], books, strict=True))
    ):
        entries, window = cached_sort[1]
    else:
        entries = sort_entries(
            global_books=global_books,
            character_books=character_books,
            chat_book=chat_book,
            strategy=settings.character_strategy,
            persona_book=persona_book,
        )
        window = _scan_window(entries)
        s.book_cache["\0sorted"] = ((settings.character_strategy, books), (entries, window))
    needed = _MAX_SCAN_DEPTH if settings.min_activations > 0 else max(window, _depth(settings.depth))
    max_context = g.context_size - g.response_length

    def transform(content: str, entry: Any) -> str:
        raw = entry.raw
        depth = None
        if raw.get("position") == 4:
            # ``entry.depth ?? 4``: a depth that is not a number (a string from a hand-edited book)
            # is passed as is, and getRegexedString then skips its depth limits altogether.
            dv = raw.get("depth")
            if dv is None:
                depth = 4
            elif isinstance(dv, int | float) and not isinstance(dv, bool) and float(dv).is_integer():
                depth = int(dv)
        return g.regexed(content, Placement.WORLD_INFO, is_prompt=True, depth=depth)

    result = check_world_info(
        entries,
        # Only the newest messages the scan can reach are converted (at most MAX_SCAN_DEPTH); the
        # length of the whole core chat goes in separately: timed effects count ST's ``chat``
        # handed to the scan (hidden messages and the swiped one left out), not the chat file.
        [ScanMessage(str(m.get("name", "")), text) for m, text in reversed(core[: min(needed, len(core))])],
        settings,
        max_context=max_context,
        count_tokens=lambda text: full_text_tokens(g.counter, text),
        random=s.random,
        macro=lambda text: g.sub(text),
        transform=transform,
        inject_scan=[g.sub(v) for v in s.table.scan_values()],
        timed_world_info=s.chat_metadata.get("timedWorldInfo"),
        chat_length=len(core),
        dry_run=g.dry_run,
        character=CharacterContext(avatar=s.avatar),
        **_new_scan_options(g),
    )
    g.warnings.extend(result.warnings)
    if not g.dry_run:
        s.chat_metadata["timedWorldInfo"] = dict(result.timed_world_info)
    g.activated = [f"{a.entry.world}#{a.entry.uid}" for a in result.activated]
    g.fired = [{"title": _title(a.entry.raw), "book": a.entry.world, "uid": str(a.entry.uid)} for a in result.activated]
    if an_active:
        note = s.table.get(d.NOTE_KEY)
        md = s.chat_metadata
        s.table.set(
            d.NOTE_KEY,
            wrap_authors_note(note.value if note else "", result.an_top, result.an_bottom),
            md.get("note_position"),
            md.get("note_depth"),
            s.note_settings.get("allowWIScan"),
            md.get("note_role"),
        )
    s.table.delete_prefix("customDepthWI")
    s.table.delete_prefix(OUTLET_PREFIX)
    for inj in result.depth:
        key = inj.table_key
        if g.compat.wi_depth_key_underscore:
            key = key.replace("customDepthWI-", "customDepthWI_").replace("-", "_")
        s.table.set(key, inj.content, d.IN_CHAT, inj.depth, False, inj.role)
    if g.compat.wi_outlets:
        for name, texts in result.outlets.items():
            s.table.set(OUTLET_PREFIX + name, "\n".join(texts), d.NONE, 0)
    examples = [(x.position, x.content) for x in result.examples]
    return result.wi_before, result.wi_after, examples


def _title(raw: Mapping[str, Any]) -> str:
    """What a reader calls an entry: its comment (SillyTavern's title/memo), else its first key."""
    comment = raw.get("comment")
    if isinstance(comment, str) and comment.strip():
        return comment.strip()
    keys = raw.get("key")
    first = next((k for k in keys if isinstance(k, str) and k.strip()), "") if isinstance(keys, list) else ""
    return first.strip() or f"#{raw.get('uid')}"

"""SillyTavern 1.12.6 world-info (lorebook) activation, as pure functions.

Public interface (stable; other packages code against it)::

    from peargarden.worldinfo import (
        check_world_info, sort_entries, select_book_names, book_from_st, entry_from_st,
        character_book_to_world,
        wrap_authors_note, WorldInfoEntry, Lorebook, ScanMessage, WorldInfoSettings,
        CharacterContext, WorldInfoResult, DepthInjection, ExampleInjection, ActivatedEntry,
        Position, SelectiveLogic, Strategy,
    )

Building the entry list (SillyTavern ``getSortedEntries``)
    ``book_from_st(name, data)`` turns a standalone book file (``{"entries": {uid: entry}}``) into a
    :class:`Lorebook` whose entries follow JavaScript object-key order (integer-like uids ascending,
    then other keys in file order).  ``sort_entries(global_books=..., character_books=...,
    chat_book=..., strategy=...)`` returns the scan order: chat book (by descending ``order``), then
    global/character books merged per strategy (``EVENLY`` = one list sorted by descending order,
    ``CHARACTER_FIRST``, ``GLOBAL_FIRST``).  ``select_book_names(global_select=...,
    character_world=..., character_extra_books=..., chat_world=...)`` applies ST's de-duplication
    first (a character book already global or the chat book is skipped, a chat book already
    global is skipped) and returns ``(global, character, chat)`` names.  The engine caches what it
    derives from each entry (keys, flags, decorators) on the :class:`WorldInfoEntry`; keep the
    same entries between generations (``LorebookCache().get(name, data)`` returns the same
    :class:`Lorebook` while ``data`` is the same object) and a 1k-entry scan is ~3x cheaper.
    ``character_book_to_world(book, char_name)``
    is ST's "Import Card Lore" (``convertCharacterBook``) plus the 1.12.6 editor re-save that forces
    ``selective = true`` on every entry (oracle case 18); it returns ``(world_name, world_json)``.

Running a scan: ``check_world_info(entries, messages, settings, *, max_context, count_tokens,
random, macro=identity, transform=None, inject_scan=(), timed_world_info=None, chat_length=None,
dry_run=False, character=None) -> WorldInfoResult``

    entries          the output of ``sort_entries``.
    messages         the core chat, OLDEST FIRST, as ``ScanMessage(name, text)``; hidden messages and
                     system notices removed, prompt-time regex already applied.  The engine builds
                     SillyTavern's buffer itself: newest first, ``"name: text"`` when
                     ``settings.include_names``, each message trimmed, segments ``"\\x01" + msg``
                     joined by ``"\\n"``.
    settings         :class:`WorldInfoSettings` (``WorldInfoSettings.from_st(settings_json)``).
    max_context      max prompt tokens = context size − response length; the budget is
                     ``round(budget_percent * max_context / 100) or 1``, then capped by ``budget_cap``.
    count_tokens     SillyTavern's WI count: ``{role:'system', content:text}`` counted with
                     full=true, i.e. ``tiktoken(text) + 6`` for cl100k.  The engine never calls it
                     with ``''`` (that counts 0).  Cache it on your side if you like.
    random           ``() -> float in [0, 1)``, used for probability rolls and inclusion-group weights
                     (in SillyTavern's order: one roll per group needing a weighted pick, one per
                     entry with ``useProbability`` and ``probability != 100``).
    macro            ST ``substituteParams`` for keys and contents (``{{char}}`` etc.).
    transform        ``(content, entry) -> str``: regex scripts with placement WORLD_INFO
                     (``isPrompt=True``; depth = ``entry.raw['depth'] or 4`` for @depth entries, else
                     none).  Applied while placing; an empty result drops the entry from the output.
    inject_scan      values of extension-prompt table entries with ``scan=true`` (Author's Note when
                     "include in WI scan", persona at depth, ``/inject scan=true``, quiet prompt…),
                     each macro-expanded (ST ``getExtensionPromptByName``), in the table's key
                     INSERTION order (JS ``Object.keys``), empty ones may be left out.  Added to every
                     scan text after the messages.
    timed_world_info ``chat_metadata.timedWorldInfo`` as stored (``{"sticky": {}, "cooldown": {}}``);
                     never mutated.  The updated value is ``result.timed_world_info``.
    chat_length      ``chat.length`` as SillyTavern's timed effects see it: the number of CORE chat
                     messages (hidden ones and the swiped message excluded), not the length of the
                     chat file.  Defaults to ``len(messages)``; pass it only if you shortened
                     ``messages`` (the scan never reads past 1,000 messages).
    dry_run          SillyTavern dry runs skip timed effects entirely (1.12.6).
    character        avatar file name and tag ids, for entries with ``characterFilter``.

Result (:class:`WorldInfoResult`)
    ``wi_before`` / ``wi_after``   entries joined with ``\\n``, ascending ``order`` top to bottom,
                                   ties in reverse activation order (feed the worldInfoBefore /
                                   worldInfoAfter markers through ``wi_format``).
    ``an_top`` / ``an_bottom``     texts for the Author's Note; ``wrap_authors_note(an, top,
                                   bottom)`` builds SillyTavern's wrapped note (only when the note
                                   is active this turn).
    ``examples``                   ``ExampleInjection("before"|"after", text)`` in ST's list order
                                   (``before`` ones are unshifted onto the example list one by one,
                                   ``after`` ones pushed).
    ``depth``                      ``DepthInjection(depth, role, entries)``: write ``.content`` to the
                                   extension table under ``.table_key`` (IN_CHAT, scan false), in
                                   this order.  ``depth`` is None when the first entry of the group
                                   had no ``depth`` field: SillyTavern then inserts it nowhere.
    ``activated``                  every activated entry, in activation order (for the ledger), with
                                   its text after macros (``content``) and as placed (``placed``).
    ``timed_world_info``           the new timed-effects metadata (a fresh dict).
    ``budget`` / ``overflowed``    the budget in tokens, and whether it was reached.
    ``warnings``                   human-readable notes (budget reached, invalid regex key…).
"""

from .engine import check_world_info
from .placement import wrap_authors_note
from .sources import (
    LorebookCache,
    book_from_st,
    character_book_to_world,
    entry_from_st,
    select_book_names,
    sort_by_order,
    sort_entries,
)
from .types import (
    ActivatedEntry,
    CharacterContext,
    DepthInjection,
    ExampleInjection,
    Lorebook,
    Position,
    ScanMessage,
    SelectiveLogic,
    Strategy,
    WorldInfoEntry,
    WorldInfoResult,
    WorldInfoSettings,
)

__all__ = [
    "ActivatedEntry",
    "CharacterContext",
    "DepthInjection",
    "ExampleInjection",
    "Lorebook",
    "LorebookCache",
    "Position",
    "ScanMessage",
    "SelectiveLogic",
    "Strategy",
    "WorldInfoEntry",
    "WorldInfoResult",
    "WorldInfoSettings",
    "book_from_st",
    "character_book_to_world",
    "check_world_info",
    "entry_from_st",
    "select_book_names",
    "sort_by_order",
    "sort_entries",
    "wrap_authors_note",
]

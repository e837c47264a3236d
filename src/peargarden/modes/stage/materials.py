"""Reading a card's stage materials from the data folder (the I/O edge of the pure ``stage`` package).

:func:`load_stage_materials` gathers, for one card: the prompt files (``SYSTEM.md``, global and card
``APPEND_SYSTEM.md``, ``AGENTS.md``), the card's fields, the effective settings (``config.toml`` with
``卡.json`` on top) and the lore corpus (mounted library books in mount order, then the card's
supplement book ``补充设定集.json``, de-duplicated by content, ``disabledLore`` applied).

The corpus (with its keyword automaton) is cached by the files' size and mtime, so a beat on an
unchanged library does not rebuild it; likewise the parsed card (by its file's stamp: inode, size,
mtime, ctime — every write of ours replaces the file, so it gets a new inode) and the parsed
``config.toml`` (by its bytes, which are cheap to read and exact to compare).  The small prompt files
and ``卡.json`` are read every beat.  :func:`sync_agents_mirror` writes the constant-lore mirror
into ``AGENTS.md`` when books changed (nothing happens without an ``AGENTS.md``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.errors import BadInput, NotFound
from peargarden.stage import (
    LoreCorpus,
    Macros,
    PromptFiles,
    StageCard,
    StageSettings,
    card_from_data,
    card_language,
    stage_macros,
)
from peargarden.stage.agents_file import agents_from_projection, sync_lorebook_mirror
from peargarden.stage.language import user_name_for
from peargarden.stage.lore.entries import LoreEntry, entries_from_book, merge_books
from peargarden.tavern.version import for_version
from peargarden.text.regex_scripts import (
    RegexSet,
    load_scripts,  # the regex library only when a beat runs
)
from peargarden.text.rolls import live_random
from peargarden.variables.marks import UPDATE_RULES_MARK
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.config import Settings, load_settings, parse_settings
from peargarden.workspace.home import SUPPLEMENT_BOOK_FILE, Home
from peargarden.workspace.library import lorebook_name, lorebook_path, read_library_lorebook
from peargarden.workspace.regex_scripts import card_regex_scripts, global_regex_scripts, regex_allowance
from peargarden.workspace.seed import bundled
from peargarden.workspace.text_files import read_user_text

__all__ = [
    "AGENTS_FILE",
    "CARD_APPEND_FILE",
    "SUPPLEMENT_BOOK_NAME",
    "BookSource",
    "StageMaterials",
    "create_agents_file",
    "forget_corpus",
    "load_corpus",
    "load_stage_materials",
    "sync_agents_mirror",
    "with_synced_mirror",
]

AGENTS_FILE = "AGENTS.md"
CARD_APPEND_FILE = "APPEND_SYSTEM.md"
SUPPLEMENT_BOOK_NAME = SUPPLEMENT_BOOK_FILE.removesuffix(".json")


class BookSource(msgspec.Struct, frozen=True):
    """One book of a card's corpus: where it lives and whether it is the supplement book."""

    name: str
    path: Path
    overlay: bool = False


class StageMaterials(msgspec.Struct):
    home: Home
    folder: CardFolder
    card: StageCard
    files: PromptFiles
    settings: Settings
    stage: StageSettings
    corpus: LoreCorpus
    books: list[BookSource]
    disabled_lore: tuple[str, ...] = ()
    warnings: list[str] = msgspec.field(default_factory=list)

    @property
    def creation_mode(self) -> str:
        return self.settings.creation_mode


def _read_text(path: Path) -> str | None:
    try:
        return read_user_text(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadInput(f"无法读取：{exc}", path=path) from None


def _bundled_system() -> str:

    return bundled("SYSTEM.md").decode("utf-8")


def read_book_file(path: Path) -> dict[str, Any]:
    """A book JSON as stored (the supplement book is ours; library books go through ``formats``)."""
    text = _read_text(path)
    if text is None:
        raise NotFound("世界书文件不存在", path=path)
    try:
        value = json.loads(text) if text.strip() else {"entries": {}}
    except json.JSONDecodeError as exc:
        raise BadInput(f"世界书不是合法的 JSON：第 {exc.lineno} 行", path=path) from None
    if not isinstance(value, dict):
        raise BadInput("世界书应是一个 JSON 对象", path=path)
    return value


def book_sources(home: Home, folder: CardFolder, settings: Settings) -> list[BookSource]:
    """The card's books in corpus order: mounted library books, then the supplement book."""
    sources: list[BookSource] = []
    seen: set[str] = set()
    for raw in settings.lorebooks:
        name = lorebook_name(raw)
        if not name or name in seen:
            continue
        seen.add(name)
        try:
            sources.append(BookSource(name, lorebook_path(home, name)))
        except BadInput:
            continue
    sources.append(BookSource(SUPPLEMENT_BOOK_NAME, folder.supplement_book_file, overlay=True))
    return sources


def _stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (str(path), stat.st_size, stat.st_mtime_ns)


# One cached corpus per card (its book files): (stamps, disabled) → corpus; a few cards at most.
_CORPUS_CACHE_SIZE = 8
_CORPUS_CACHE: dict[str, tuple[tuple[Any, ...], LoreCorpus, list[str]]] = {}


def load_corpus(home: Home, books: Sequence[BookSource], disabled: Sequence[str] = ()) -> tuple[LoreCorpus, list[str]]:
    """The merged corpus of *books* and the warnings about books that could not be read."""
    key = str(home.root) + "\0" + "\0".join(str(b.path) for b in books)
    stamps = (tuple(_stamp(b.path) for b in books), tuple(disabled))
    cached = _CORPUS_CACHE.get(key)
    if cached is not None and cached[0] == stamps:
        return cached[1], list(cached[2])
    warnings: list[str] = []
    parts: list[list[LoreEntry]] = []
    for book in books:
        if book.overlay:
            if not book.path.is_file():
                continue
            try:
                raw = read_book_file(book.path)
            except (BadInput, NotFound) as error:
                warnings.append(f"补充设定集读不出来，本拍先不用它：{error}")
                continue
        else:
            try:
                raw = read_library_lorebook(home, book.name)
            except (BadInput, NotFound) as error:
                warnings.append(f"挂载的世界书「{book.name}」读不出来，本拍先不用它：{error.message}")
                continue
        # A card's MVU update rules are the variables tool's guidance on the stage, not lore.
        entries = entries_from_book(raw, book.name, overlay=book.overlay)
        parts.append([entry for entry in entries if UPDATE_RULES_MARK not in entry.comment.lower()])
    corpus = LoreCorpus(merge_books(parts, disabled))
    _CORPUS_CACHE.pop(key, None)
    while len(_CORPUS_CACHE) >= _CORPUS_CACHE_SIZE:
        _CORPUS_CACHE.pop(next(iter(_CORPUS_CACHE)))  # the least recently built
    _CORPUS_CACHE[key] = (stamps, corpus, warnings)
    return corpus, list(warnings)


def forget_corpus() -> None:
    """Drop cached corpora and parsed files (after a write, so the next read cannot see a stale file
    of equal size and mtime)."""
    _CORPUS_CACHE.clear()
    _PARSED.clear()


# Parsed files, by path: (what proves the file unchanged, the parsed value); a few cards and configs.
_PARSED_SIZE = 16
_PARSED: dict[str, tuple[object, object]] = {}


def _remember(key: str, proof: object, value: object) -> None:
    _PARSED.pop(key, None)
    while len(_PARSED) >= _PARSED_SIZE:
        _PARSED.pop(next(iter(_PARSED)))  # the least recently parsed
    _PARSED[key] = (proof, value)


def _file_stamp(path: Path) -> tuple[int, int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _global_settings(home: Home) -> Settings:
    """``load_settings(home.config_file)``, parsed again only when the file's bytes changed."""
    path = home.config_file
    try:
        raw = path.read_bytes()
    except OSError:
        return load_settings(path)  # the default settings, or its one-line error
    key = "config\0" + str(path)
    known = _PARSED.get(key)
    if known is not None and known[0] == raw and isinstance(known[1], Settings):
        return known[1]
    settings = parse_settings(raw, where=path)
    _remember(key, raw, settings)
    return settings


def _stage_card(folder: CardFolder) -> StageCard:
    """``card_from_data(folder.load_card().data)``, parsed again only when the card file's stamp changed."""
    path = folder.card_file()
    stamp = _file_stamp(path) if path is not None else None  # taken before reading: a racing write re-reads
    key = "card\0" + str(path)
    known = _PARSED.get(key)
    if stamp is not None and known is not None and known[0] == stamp and isinstance(known[1], StageCard):
        return known[1]
    card = card_from_data(folder.load_card().data)
    if stamp is not None:
        _remember(key, stamp, card)
    return card


def _card_scripts(folder: CardFolder) -> tuple[Any, ...]:
    """The card's own regex scripts, parsed again only when the card file's stamp changed."""
    path = folder.card_file()
    stamp = _file_stamp(path) if path is not None else None
    key = "regex\0" + str(path)
    known = _PARSED.get(key)
    if stamp is not None and known is not None and known[0] == stamp and isinstance(known[1], tuple):
        return known[1]

    scripts = tuple(load_scripts(card_regex_scripts(folder.load_card())))
    if stamp is not None:
        _remember(key, stamp, scripts)
    return scripts


def regex_set(home: Home, folder: CardFolder) -> tuple[Any, list[str]]:
    """The scripts a stage beat runs (a ``RegexSet``): the library's global ones, then the card's own
    if allowed."""

    global_raw, warnings = global_regex_scripts(home)
    allowed = regex_allowance(folder) is True
    scoped = _card_scripts(folder) if allowed else ()
    return RegexSet(global_scripts=load_scripts(global_raw), scoped_scripts=scoped, scoped_allowed=allowed), warnings


def _disabled_lore(folder: CardFolder) -> tuple[str, ...]:
    value = folder.settings().get("disabledLore", [])
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def load_stage_materials(home: Home, card_name: str | CardFolder) -> StageMaterials:
    """Everything a stage beat of *card_name* needs from disk."""
    folder = card_name if isinstance(card_name, CardFolder) else open_card(home, card_name)
    card = _stage_card(folder)
    settings = folder.effective_settings(_global_settings(home))
    files = PromptFiles(
        system=_read_text(home.system_file),
        bundled_system=_bundled_system(),
        working_directory=folder.path.as_posix(),
        global_append=_read_text(home.append_system_file),
        card_append=_read_text(folder.path / CARD_APPEND_FILE),
        agents=_read_text(folder.path / AGENTS_FILE),
    )
    books = book_sources(home, folder, settings)
    disabled = _disabled_lore(folder)
    corpus, warnings = load_corpus(home, books, disabled)
    regex, regex_warnings = regex_set(home, folder)
    warnings = [*warnings, *regex_warnings]
    # The user's language when set, else the card's own (an English card is played in English).
    language = settings.language.strip() or card_language(card)
    # The seeded 旅人 is no name for an English card's user: "User", unless chosen (a persona wins too).
    user_name = user_name_for(language, settings.user_name, Settings().user_name)
    stage = StageSettings(
        user_name=user_name,
        user_persona=settings.user_persona,
        language=language,
        scan_depth=settings.scan_depth,
        max_lore_hits=settings.max_lore_injections,
        macros=_macros(card, settings, user_name, settings.user_persona),
        regex=regex,
    )
    return StageMaterials(home, folder, card, files, settings, stage, corpus, books, disabled, warnings)


def _macros(card: StageCard, settings: Settings, user_name: str, user_persona: str) -> Macros:
    """One beat's macro function: live rolls, the local clock, the engine tavern assembly uses for
    this folder's SillyTavern release."""
    return stage_macros(
        card,
        user_name=user_name,
        user_persona=user_persona,
        random=live_random(),
        clock=lambda: datetime.now().astimezone(),
        engine="new" if for_version(settings.st_version).new_macro_engine else "legacy",
    )


def with_user(materials: StageMaterials, user_name: str, user_persona: str) -> StageSettings:
    """The stage settings for a chosen persona (name and text win over the settings'), macros too."""
    # (The chat's user with no persona chosen is the settings' name: 旅人 becomes "User" in English.)
    name = user_name_for(materials.stage.language, user_name, Settings().user_name) or materials.stage.user_name
    persona = user_persona or materials.stage.user_persona
    macros = _macros(materials.card, materials.settings, name, persona)
    return replace(materials.stage, user_name=name, user_persona=persona, macros=macros)


def create_agents_file(materials: StageMaterials) -> bool:
    """Create the card's ``AGENTS.md`` from the projection (declaration, work mode); False when the
    card already has one (it belongs to the user and is never replaced)."""
    path = materials.folder.path / AGENTS_FILE
    current = _read_text(path)
    if current is not None and current.strip():
        return False
    atomic.write_text(path, agents_from_projection(materials.card, materials.corpus.constants))
    return True


def with_synced_mirror(materials: StageMaterials) -> StageMaterials:
    """*materials* as :func:`sync_agents_mirror` would leave them, without writing: a preview and the
    beat after it read the same ``AGENTS.md`` text."""
    current = materials.files.agents
    if current is None or not current.strip():
        return materials
    synced = sync_lorebook_mirror(current, materials.corpus.constants)
    if synced == current:
        return materials
    return replace(materials, files=replace(materials.files, agents=synced))


def sync_agents_mirror(materials: StageMaterials) -> bool:
    """Rewrite the ``（世界书·…）`` entries of the card's ``AGENTS.md``; True when the file changed."""
    path = materials.folder.path / AGENTS_FILE
    current = _read_text(path)
    if current is None or not current.strip():
        return False
    synced = sync_lorebook_mirror(current, materials.corpus.constants)
    if synced == current:
        return False
    atomic.write_text(path, synced)
    return True

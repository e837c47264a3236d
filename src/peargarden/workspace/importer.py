"""``pear import``: bring SillyTavern files into the data folder.

Two phases, so a failing import writes nothing: :func:`plan_import` reads and validates every
file and decides every target path without touching the data folder; :func:`apply_plan` then
writes (seeding the data folder first if it was never set up), each file atomically, and removes
what it wrote if a later write fails.

What goes where:

- card (PNG / JSON / CHARX) → ``cards/<name>/<name>.<ext>``, bytes untouched, plus ``卡.json``;
  its embedded lorebook, unless ``book="skip"``, → ``library/lorebooks/<book>.json`` and, with
  ``book="mount"`` (the default), into the card's ``lorebooks``;
- lorebook JSON → ``library/lorebooks/<stem>.json`` (mounted on ``card`` when one is named);
- a card's linked world (``data.extensions.world``, a book SillyTavern finds by its file name): with
  no embedded book mounted, the book of that name is mounted on the card — one imported in the same
  run (``pear import 卡.png 书.json``), else one already in the library; when there is none, the card's
  report line says so (an MVU card whose ``[initvar]`` lives there would start with no variables);
- preset JSON → ``library/presets/<stem>.json``, byte for byte;
- chat JSONL (needs ``card``) → ``cards/<card>/chats/<stem>/session.jsonl``: converted into a
  session as it is read, a line at a time (:mod:`.chat_import`; a chat may be far larger than the
  files read whole), and nothing else is kept of it: an export gives the file back;
- regex-script JSON (one script or an array, as SillyTavern exports them) →
  ``library/regex/<stem>.json``, byte for byte: a global script from then on.

A card with regex scripts of its own gets the user's answer to "allow them?" in its ``卡.json``
when the caller passes ``regex_answer`` (asked once, see :mod:`.regex_scripts`); one with TavernHelper
scripts the answer of ``scripts_answer`` (see :mod:`.script_allowance`).  Every TavernHelper script of
a card or a preset gets a line of the report: what will run here, what will not, what it loads from
where (:func:`peargarden.formats.helper_scripts.script_report`); the scripts stay in the file as they were.

A name already taken gets ``-2``, ``-3`` …; a library file with exactly the same bytes is reused.  A
card whose folder exists already is, by ``on_conflict``: imported beside it as ``-2`` (``copy``, the
default), put in its place (``replace``: the card file replaced; its chats, ``卡.json`` and mounted books
kept, the new embedded book mounted too), or refused with :class:`CardExists` naming every such card
(``ask``: nothing is written; the front asks the user, then imports again with the answer).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from peargarden.errors import BadInput, ConflictError, FormatError, PearError, storage_error
from peargarden.formats import (
    Card,
    card_like,
    detect_kind,
    dumps_json,
    lorebook_from_character_book,
    normalized_character_book,
    read_card,
    read_lorebook,
    read_preset,
    read_regex_scripts,
)
from peargarden.formats.helper_scripts import HelperScript, helper_scripts, script_report
from peargarden.stscript.quickreplies import QuickReplySet
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.zod_schema import MvuSchema, SchemaScript

from . import atomic
from .cards import CHATS_DIR, CardFolder, list_cards, open_card, unique_name
from .chat_import import SESSION_FILE, ChatConversion, ChatSource, is_streamed_chat, scan_chat
from .home import Home, sanitize_name
from .inputs import file_size, read_input
from .library import JSON_SUFFIX, list_lorebook_names, list_preset_names, list_regex_names
from .regex_scripts import ALLOW_KEY, card_regex_scripts
from .script_allowance import SCRIPTS_KEY, card_helper_scripts
from .seed import DEFAULT_CARD, DEFAULT_LOREBOOK, bundled, seed_home

T = TypeVar("T")

BookMode = Literal["mount", "keep", "skip"]
BOOK_MODES: tuple[BookMode, ...] = ("mount", "keep", "skip")
OnConflict = Literal["copy", "replace", "ask"]
ON_CONFLICT: tuple[OnConflict, ...] = ("copy", "replace", "ask")


class CardExists(ConflictError):
    """Cards of this import that are in the data folder already (``on_conflict="ask"``)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"这些角色卡已经有了：{'、'.join(names)}（替换，还是另存一份？）")
        self.names = names


_CARD_SUFFIX = {"card_png": ".png", "card_json": ".json", "charx": ".charx"}
_KIND_LABEL = {
    "card_png": "角色卡",
    "card_json": "角色卡",
    "charx": "角色卡",
    "lorebook": "世界书",
    "preset": "预设",
    "chat_jsonl": "聊天记录",
    "regex_script": "正则脚本",
}


class ImportedItem(msgspec.Struct, frozen=True):
    """One line of the import report."""

    source: Path
    kind: str
    target: Path
    note: str = ""


class ImportPlan(msgspec.Struct):
    home: Home
    # What to write: bytes, or a chat converted while it is written.
    writes: list[tuple[Path, bytes | ChatConversion]] = msgspec.field(default_factory=list)
    items: list[ImportedItem] = msgspec.field(default_factory=list)
    # Card settings to write, by card folder: the mounted books after this import.
    mounts: dict[str, list[str]] = msgspec.field(default_factory=dict)
    # Files the import replaces by a file of another name (a card's old file of another kind).
    removes: list[Path] = msgspec.field(default_factory=list)


class _Batch(msgspec.Struct):
    """What the files imported so far in this run have claimed (names are not on disk yet)."""

    cards: dict[str, str] = msgspec.field(default_factory=dict)  # folder → card name
    lorebooks: dict[str, bytes] = msgspec.field(default_factory=dict)  # stem → bytes
    presets: dict[str, bytes] = msgspec.field(default_factory=dict)
    regex: dict[str, bytes] = msgspec.field(default_factory=dict)
    chats: dict[str, list[str]] = msgspec.field(default_factory=dict)  # card folder → chat ids
    # Cards whose linked world (data.extensions.world) is still to be found: folder → book name.
    worlds: dict[str, str] = msgspec.field(default_factory=dict)
    # Cards that do not exist yet but will: the imported ones ({} settings) and, when this import
    # sets the data folder up, the bundled card with the settings seeding gives it.
    pending_settings: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)

    def card_settings(self, home: Home, folder: str) -> dict[str, Any]:
        if folder in self.pending_settings:
            return dict(self.pending_settings[folder])
        return CardFolder(home, folder).settings()

    def card_lorebooks(self, home: Home, folder: str) -> list[str]:
        if folder in self.pending_settings:
            return list(self.pending_settings[folder].get("lorebooks", []))
        return CardFolder(home, folder).lorebooks()

    def chat_ids(self, home: Home, folder: str) -> list[str]:
        """The names taken in the card's chats folder.  An empty folder takes none: it is what an
        import killed mid-write leaves once its temp file is cleared, and each one made the next
        import of that chat ``-2``, ``-3`` …"""
        if folder in self.pending_settings:
            return []
        chats = CardFolder(home, folder).chats_dir
        return [name for name in CardFolder(home, folder).chat_ids() if not _empty_dir(chats / name)]


def _empty_dir(path: Path) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


ProgressFn = Callable[[Path, int], None]
# The user's answer for a card with regex scripts: True / False, or None to ask at the first play.
RegexAnswerFn = Callable[[Card], bool | None]
# The same for a card's TavernHelper scripts (None: not asked; the built-in MVU then runs).
ScriptsAnswerFn = Callable[[Card], bool | None]


def book_mode(value: str) -> BookMode:
    """``--book`` checked: ``mount``, ``keep`` or ``skip``."""
    for mode in BOOK_MODES:
        if value == mode:
            return mode
    raise BadInput(f"世界书的处理（book）只能是 mount、keep 或 skip，实际是 {value!r}", hint="--book")


def plan_import(
    home: Home,
    files: Sequence[Path],
    *,
    book: BookMode = "mount",
    card: str | None = None,
    progress: ProgressFn | None = None,
    regex_answer: RegexAnswerFn | None = None,
    scripts_answer: ScriptsAnswerFn | None = None,
    on_conflict: OnConflict = "copy",
) -> ImportPlan:
    """Read and check every file; decide every write.  Touches nothing on disk."""
    book = book_mode(book)
    if on_conflict not in ON_CONFLICT:
        raise BadInput(f"已有的卡：只能替换（replace）、另存（copy）或询问（ask），实际是 {on_conflict!r}")
    if card is not None and not sanitize_name(card):
        raise BadInput(f"卡名「{card}」只有标点或空白（unusable card name）")
    plan = ImportPlan(home)
    batch = _Batch()
    if not home.exists():
        _reserve_seeded_content(home, batch)
    deferred: list[tuple[Path, str, bytes | ChatSource]] = []  # lorebooks and chats need --card resolved
    existing: list[str] = []  # cards of this import already in the data folder (on_conflict="ask")
    for path in files:
        if is_streamed_chat(path):  # a chat is read a line at a time, never whole
            deferred.append((path, "chat_jsonl", ChatSource(path, streamed=True)))
            if progress is not None:
                progress(path, file_size(path))
            continue
        data = read_input(path)
        kind = _guarded(path, detect_kind, data, str(path))
        if kind in _CARD_SUFFIX:
            parsed = _guarded(path, read_card, data, str(path))
            taken = _existing_card(plan.home, parsed.name, path)
            if taken is not None and on_conflict == "ask":
                existing.append(taken.folder)
                continue
            _plan_card(plan, batch, path, kind, data, parsed, book, regex_answer,
                       taken if on_conflict == "replace" else None)  # fmt: skip
            _plan_card_scripts(plan, batch, path, parsed, scripts_answer)
        elif kind == "preset":
            preset = _guarded(path, read_preset, data, str(path))
            _plan_preset(plan, batch, path, data)
            _report_scripts(plan, path, helper_scripts(preset.get("extensions")), "预设")
        elif kind == "regex_script":
            scripts = _guarded(path, read_regex_scripts, data, str(path))
            _plan_regex(plan, batch, path, data, len(scripts))
        elif kind == "quick_reply_set":
            _plan_quick_replies(plan, path, data)
        elif kind == "lorebook":
            deferred.append((path, kind, data))
        elif kind == "chat_jsonl":  # one that cannot be read a line at a time (UTF-16)
            deferred.append((path, kind, ChatSource(path, streamed=False)))
        else:  # a kind formats learned after this module was written
            raise BadInput(f"不支持导入这种文件（{kind}）", path=path)
        if progress is not None:
            progress(path, len(data))
    if existing:
        raise CardExists(existing)
    # Lorebooks and chats may belong to a card imported in the same run: plan them last.
    for later, _kind, later_data in deferred:
        if isinstance(later_data, ChatSource):
            messages = _guarded(later, scan_chat, later_data)
            _plan_chat(plan, batch, later, later_data, messages, card)
        else:
            parsed_book = _guarded(later, read_lorebook, later_data, str(later))
            _plan_lorebook(plan, batch, later, later_data, parsed_book, card)
    _link_worlds_from_library(plan, batch)
    for folder, books in plan.mounts.items():
        target = CardFolder(home, folder)
        settings = batch.card_settings(home, folder)
        if books or "lorebooks" in settings:
            settings["lorebooks"] = books
        plan.writes.append((target.settings_file, _json_bytes(settings)))
    return plan


def apply_plan(plan: ImportPlan) -> list[Path]:
    """Write the plan; on a failure remove what this call created and re-raise."""
    if not plan.writes:
        return []
    created_root = not plan.home.exists()
    before = _existing_dirs(plan.home, [p for p, _ in plan.writes])
    written: list[Path] = []
    originals: dict[Path, bytes] = {}
    try:
        seeded = seed_home(plan.home) if created_root else []
        for path, data in plan.writes:
            try:
                if path.is_file():
                    originals[path] = path.read_bytes()
                if isinstance(data, ChatConversion):
                    atomic.write_chunks(path, data.chunks())
                else:
                    atomic.write_bytes(path, data)
            except OSError as exc:
                raise write_failure(exc) from None
            written.append(path)
        for path in plan.removes:  # replaced by a file of another name, written above
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    except BaseException:
        for path in reversed(written):
            with contextlib.suppress(OSError):
                if path in originals:
                    atomic.write_bytes(path, originals[path])
                else:
                    path.unlink()
        for folder in sorted(_existing_dirs(plan.home, [p for p, _ in plan.writes]) - before, key=len, reverse=True):
            with contextlib.suppress(OSError):
                Path(folder).rmdir()
        raise
    return [*seeded, *written]


def write_failure(exc: OSError) -> PearError:
    """A one-line error for a write the operating system refused (full disk, no permission)."""
    return storage_error(exc) or PearError(f"无法写入：{exc.strerror or exc}（write failed）", path=exc.filename)


def _existing_dirs(home: Home, paths: list[Path]) -> set[str]:
    """Folders between the data folder and *paths* that exist now (for the rollback)."""
    found: set[str] = set()
    for path in paths:
        for parent in path.parents:
            if parent == home.root.parent:
                break
            if parent.is_dir():
                found.add(str(parent))
    return found


def _guarded(path: Path, read: Callable[..., T], *args: Any) -> T:
    """Run a reader; anything but a ``PearError`` becomes a one-line ``FormatError`` for *path*."""
    try:
        return read(*args)
    except PearError:
        raise
    except RecursionError:
        raise FormatError("JSON 嵌套过深（JSON nested too deeply）", path=path) from None
    except MemoryError:
        raise FormatError("文件展开后过大（file too large when decoded）", path=path) from None
    except Exception as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FormatError(f"无法读取：{detail}", path=path) from None


def _plan_card(
    plan: ImportPlan,
    batch: _Batch,
    path: Path,
    kind: str,
    data: bytes,
    card: Card,
    book: BookMode,
    regex_answer: RegexAnswerFn | None = None,
    replacing: CardFolder | None = None,
) -> None:
    name = card.name
    base = _card_base(name, path)
    kept: list[str] = []
    if replacing is not None and replacing.folder not in batch.cards:
        folder = replacing.folder  # in its place: the folder, its chats and 卡.json stay
        kept = replacing.lorebooks()
        old_file = replacing.card_file()
        if old_file is not None and old_file.name != f"{folder}{_CARD_SUFFIX[kind]}":
            plan.removes.append(old_file)
    else:
        folder = unique_name(base, [c.folder for c in list_cards(plan.home)] + list(batch.pending_settings))
        batch.pending_settings[folder] = {}
    batch.cards[folder] = name
    regex_note = ""
    if card_regex_scripts(card):
        answer = regex_answer(card) if regex_answer is not None else None
        if answer is not None and folder in batch.pending_settings:
            batch.pending_settings[folder][ALLOW_KEY] = answer
        verdict = "待首次游玩时确认" if answer is None else "已允许" if answer else "未允许"
        regex_note = f"卡内正则脚本{verdict}"
    target_dir = plan.home.card_dir(folder)
    card_file = target_dir / f"{folder}{_CARD_SUFFIX[kind]}"
    note = ""
    try:
        fixed = normalized_character_book(card.character_book) if card.character_book else None
    except FormatError as error:
        raise FormatError(error.message, path=path) from None
    if fixed is not None:
        # Stored as the list every reader expects (tavern mode reads the card file itself); only the
        # card chunks change, never the image.
        card.character_book = fixed
        data = _guarded(path, card_like, card, data, str(path))
        note = "内嵌世界书的 entries 已整理成列表"
    plan.writes.append((card_file, data))
    book_item: ImportedItem | None = None
    books: list[str] = []
    embedded = card.character_book
    if embedded is not None and book != "skip":
        standalone = _guarded(path, lorebook_from_character_book, embedded, name)
        book_bytes = _json_bytes(standalone, indent=4)
        stem = sanitize_name(str(embedded.get("name") or "")) or folder
        names = list_lorebook_names(plan.home)
        stem, is_new = _library_slot(plan.home.lorebooks_dir, names, batch.lorebooks, stem, book_bytes)
        book_path = plan.home.lorebooks_dir / f"{stem}{JSON_SUFFIX}"
        if is_new:
            plan.writes.append((book_path, book_bytes))
        book_item = ImportedItem(path, "世界书（内嵌）", book_path, "" if is_new else "与已有的相同")
        if book == "mount":
            books.append(stem)
            note = _joined(note, f"已挂载世界书「{stem}」")
        else:
            note = _joined(note, f"内嵌世界书已存为「{stem}」，未挂载")
    elif embedded is not None:
        note = _joined(note, "内嵌世界书未导入")
    world = _linked_world(card)
    if world and book == "mount" and not books and world not in kept:
        batch.worlds[folder] = world  # found among this run's books, or the library's, at the end
    # The card's 卡.json is written at the end of the plan, with every book mounted in this run.
    plan.mounts[folder] = [*kept, *(b for b in books if b not in kept)]
    note = "，".join(part for part in (note, regex_note) if part)
    plan.items.append(ImportedItem(path, "角色卡", card_file, note))
    if book_item is not None:
        plan.items.append(book_item)


def _linked_world(card: Card) -> str:
    """The book the card links by name (SillyTavern's ``data.extensions.world``), "" for none."""
    extensions = card.data.get("extensions")
    world = extensions.get("world") if isinstance(extensions, dict) else None
    return sanitize_name(world) if isinstance(world, str) else ""


def _mount(plan: ImportPlan, batch: _Batch, folder: str, stem: str) -> None:
    mounted = plan.mounts.get(folder)
    if mounted is None:
        mounted = batch.card_lorebooks(plan.home, folder)
    if stem not in mounted:
        plan.mounts[folder] = [*mounted, stem]


def _note_card(plan: ImportPlan, folder: str, note: str) -> None:
    """*note* added to the report line of the card imported into *folder*."""
    for index, item in enumerate(plan.items):
        if item.kind == "角色卡" and item.target.parent.name == folder:
            plan.items[index] = msgspec.structs.replace(item, note=_joined(item.note, note))
            return


def _link_worlds_from_library(plan: ImportPlan, batch: _Batch) -> None:
    """Cards whose linked world no book of this run answered: the library's book of that name, or a
    note that it is missing."""
    names = set(list_lorebook_names(plan.home))
    for folder, world in batch.worlds.items():
        if world in names:
            _mount(plan, batch, folder, world)
            _note_card(plan, folder, f"已挂载它指定的世界书「{world}」（库中已有）")
        else:
            missing = f"它指定的世界书「{world}」不在这次导入里，库中也没有"
            _note_card(plan, folder, f"{missing}：用 pear import {world}.json --card {folder} 导入并挂载")
    batch.worlds.clear()


def _card_base(name: str, path: Path) -> str:
    base = sanitize_name(name)
    if not base:
        what = f"角色名「{name}」" if name.strip() else "角色名为空，"
        raise BadInput(f"{what}只有标点或空白，无法用作文件夹名（unusable name）", path=path)
    return base


def _existing_card(home: Home, name: str, path: Path) -> CardFolder | None:
    """The card folder a card called *name* would go to, when it exists already."""
    base = _card_base(name, path).casefold()
    return next((folder for folder in list_cards(home) if folder.folder.casefold() == base), None)


def _plan_card_scripts(plan: ImportPlan, batch: _Batch, path: Path, card: Card, answer: ScriptsAnswerFn | None) -> None:
    """The card's TavernHelper scripts: the user's answer (when given) and a report line for each."""
    scripts = card_helper_scripts(card)
    if not scripts:
        return
    folder = list(batch.cards)[-1]  # the card _plan_card just placed
    allowed = answer(card) if answer is not None else None
    if allowed is not None and folder in batch.pending_settings:  # a card replaced keeps its own answer
        batch.pending_settings[folder][SCRIPTS_KEY] = allowed
    _report_scripts(plan, path, scripts, f"卡「{card.name}」", mvu_on=allowed is not False)


def _report_scripts(
    plan: ImportPlan, path: Path, scripts: Sequence[HelperScript], owner: str, *, mvu_on: bool = True
) -> None:
    target = next((item.target for item in reversed(plan.items) if item.source == path and item.kind != "脚本"), path)
    budget = ScriptBudget(time.thread_time)  # the card's scripts together, as in one beat
    for script in scripts:
        tried = script.registers_schema and script.enabled and mvu_on
        failure = _schema_failure(script, budget) if tried else None
        line = script_report(script, owner, mvu_on=mvu_on, schema_failure=failure)
        plan.items.append(ImportedItem(path, "脚本", target, line))


def _schema_failure(script: HelperScript, budget: ScriptBudget) -> str | None:
    """The script tried once in the schema sandbox: why it registers no schema here, or ``None``."""
    run = MvuSchema((SchemaScript(script.name, script.content),), budget).check()
    if run.registered:
        return None
    return run.warnings[0].split("：", 1)[-1] if run.warnings else "它没有注册变量结构"


def _joined(first: str, second: str) -> str:
    return f"{first}，{second}" if first else second


def _plan_preset(plan: ImportPlan, batch: _Batch, path: Path, data: bytes) -> None:
    stem = _stem(path)
    stem, is_new = _library_slot(plan.home.presets_dir, list_preset_names(plan.home), batch.presets, stem, data)
    target = plan.home.presets_dir / f"{stem}{JSON_SUFFIX}"
    if is_new:
        plan.writes.append((target, data))
    plan.items.append(ImportedItem(path, "预设", target, "" if is_new else "与已有的相同"))


def _plan_regex(plan: ImportPlan, batch: _Batch, path: Path, data: bytes, count: int) -> None:
    stem = _stem(path)
    stem, is_new = _library_slot(plan.home.regex_dir, list_regex_names(plan.home), batch.regex, stem, data)
    target = plan.home.regex_dir / f"{stem}{JSON_SUFFIX}"
    if is_new:
        plan.writes.append((target, data))
    note = f"{count} 个全局脚本" + ("" if is_new else "，与已有的相同")
    plan.items.append(ImportedItem(path, "正则脚本", target, note))


def _plan_quick_replies(plan: ImportPlan, path: Path, data: bytes) -> None:
    """A Quick Reply set file, checked whole, kept as it is under its set's name (a set of that name is
    replaced, as SillyTavern replaces it)."""
    try:
        found = QuickReplySet.from_json(json.loads(data.decode("utf-8-sig")))
    except (ValueError, UnicodeDecodeError) as error:
        raise FormatError(str(error), path=path) from None
    stem = sanitize_name(found.name)
    if not stem:
        raise FormatError(f"Quick Reply 集的名字 {found.name!r} 不能用作文件名", path=path)
    target = plan.home.quick_replies_dir / f"{stem}{JSON_SUFFIX}"
    plan.writes.append((target, data))
    plan.items.append(ImportedItem(path, "Quick Reply 集", target, f"{len(found.replies)} 个按钮"))


def _plan_lorebook(
    plan: ImportPlan, batch: _Batch, path: Path, data: bytes, parsed: dict[str, Any], card: str | None
) -> None:
    stem = _stem(path)
    # A standalone book is kept byte for byte; other shapes (lorebook_v3, a bare embedded book)
    # are stored converted, because the library holds SillyTavern standalone books.
    try:
        verbatim = json.loads(data.decode("utf-8-sig")) == parsed
    except (UnicodeDecodeError, json.JSONDecodeError):
        verbatim = False
    stored = data if verbatim else _json_bytes(parsed, indent=4)
    stem, is_new = _library_slot(plan.home.lorebooks_dir, list_lorebook_names(plan.home), batch.lorebooks, stem, stored)
    target = plan.home.lorebooks_dir / f"{stem}{JSON_SUFFIX}"
    if is_new:
        plan.writes.append((target, stored))
    note = "" if is_new else "与已有的相同"
    if card is not None:
        folder = _resolve_card(plan, batch, card)
        _mount(plan, batch, folder, stem)
        note = (note + "，" if note else "") + f"已挂载到卡「{folder}」"
    # A card of this run that links this book by name (its file name, as SillyTavern finds it, or
    # the name the book gives itself) gets it mounted.
    own_names = {_stem(path), sanitize_name(str(parsed.get("name") or ""))}
    for folder, world in list(batch.worlds.items()):
        if world in own_names:
            _mount(plan, batch, folder, stem)
            del batch.worlds[folder]
            note = _joined(note, f"已挂载到卡「{folder}」（卡指定的世界书）")
    plan.items.append(ImportedItem(path, "世界书", target, note))


def _plan_chat(
    plan: ImportPlan, batch: _Batch, path: Path, source: ChatSource, messages: int, card: str | None
) -> None:
    if card is None:
        raise BadInput("导入聊天记录需要指明角色卡（a chat needs a card）", path=path, hint="--card NAME")
    folder = _resolve_card(plan, batch, card)
    base = sanitize_name(path.stem)
    if not base:
        raise BadInput("文件名只有标点或空白，无法用作对话名（unusable name）", path=path)
    chats_dir = plan.home.card_dir(folder) / CHATS_DIR
    existing = batch.chat_ids(plan.home, folder)
    taken = batch.chats.setdefault(folder, [])
    chat_id = unique_name(base, existing + taken)
    taken.append(chat_id)
    target = chats_dir / chat_id / SESSION_FILE
    plan.writes.append((target, ChatConversion(source, chat_id, path.name)))
    plan.items.append(ImportedItem(path, "聊天记录", target, f"属于卡「{folder}」，{messages} 条消息，已转为对话"))


def _reserve_seeded_content(home: Home, batch: _Batch) -> None:
    """This import will set the data folder up first: what seeding creates is taken already."""
    if not home.card_dir(DEFAULT_CARD).exists():
        batch.pending_settings[DEFAULT_CARD] = {"lorebooks": [DEFAULT_LOREBOOK]}
        batch.cards[DEFAULT_CARD] = DEFAULT_CARD
    if not (home.lorebooks_dir / f"{DEFAULT_LOREBOOK}{JSON_SUFFIX}").exists():
        batch.lorebooks[DEFAULT_LOREBOOK] = bundled("lorebooks", f"{DEFAULT_LOREBOOK}{JSON_SUFFIX}")


def _resolve_card(plan: ImportPlan, batch: _Batch, card: str) -> str:
    """The folder of *card*: a card imported earlier in this run, or one already on disk."""
    wanted = card.strip()
    for folder, name in batch.cards.items():
        if wanted in (folder, name) or sanitize_name(wanted) == folder:
            return folder
    return open_card(plan.home, wanted).folder  # NotFound names the cards it may have meant


def _stem(path: Path) -> str:
    name = path.name
    stem = name[: -len(path.suffix)] if path.suffix else name
    cleaned = sanitize_name(stem)
    if not cleaned:
        raise BadInput("文件名只有标点或空白，无法用作名字（unusable name）", path=path)
    return cleaned


def _library_slot(
    folder: Path, existing: list[str], claimed: dict[str, bytes], stem: str, data: bytes
) -> tuple[str, bool]:
    """Where *data* goes in a library folder: (name, True) for a new file, (name, False) when a
    file with exactly these bytes is already there under that name or its ``-N`` variants."""
    taken = existing + list(claimed)
    candidates = [stem] + [f"{stem}-{n}" for n in range(2, len(taken) + 2)]
    for name in candidates:
        if name in claimed and claimed[name] == data:
            return name, False
        if name in existing and _same_bytes(folder / f"{name}{JSON_SUFFIX}", data):
            return name, False
    name = unique_name(stem, taken)
    claimed[name] = data
    return name, True


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _json_bytes(value: Any, *, indent: int = 2) -> bytes:
    return (dumps_json(value, indent=indent) + "\n").encode("utf-8")


def describe_kind(kind: str) -> str:
    return _KIND_LABEL.get(kind, kind)

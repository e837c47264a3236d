"""Groups as data, for the fronts: make, list, edit, mute, delete, import and export group chats.

A group is a folder ``groups/<name>/`` (:mod:`peargarden.workspace.groups`): SillyTavern's own group
file ``group.json``, our settings ``群.json`` and the chats.  Every change is checked first and
written atomically; a delete takes a vault snapshot first.  Import reads SillyTavern's
``groups/<id>.json`` (kept byte for byte) and its ``group chats/<chat id>.jsonl`` files (each a
chat of the group, every line kept); export writes them back in SillyTavern's layout.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, ConflictError, PearError
from peargarden.formats import TavernChat, TavernMessage, read_chat_jsonl, write_chat_jsonl
from peargarden.formats.groups import ACTIVATION_STRATEGIES, GroupFile, new_group, read_group
from peargarden.sessions.entries import Entry, custom_entry
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.chat_import import ChatSource, is_streamed_chat
from peargarden.workspace.chats import ChatFile, utc_now
from peargarden.workspace.config import load_settings
from peargarden.workspace.groups import (
    GroupFolder,
    list_groups,
    member_avatar,
    member_card,
    new_group_folder,
    open_group,
)
from peargarden.workspace.home import Home, sanitize_name
from peargarden.workspace.inputs import read_input

from .snapshots import undo_point

# Names people type for SillyTavern's numbers.
STRATEGIES = {name: number for number, name in ACTIVATION_STRATEGIES.items()}
GENERATION_MODES = {"swap": 0, "join": 1, "join-muted": 2}
SPEAKER_CHOICES = ("strategy", "model")
GROUP_MODES = ("stage", "tavern")


def strategy_number(value: str) -> int:
    """``natural`` / ``list`` / ``manual`` / ``pooled`` (or SillyTavern's 0–3)."""
    key = value.strip().lower()
    if key in STRATEGIES:
        return STRATEGIES[key]
    if key.isdigit() and int(key) in ACTIVATION_STRATEGIES:
        return int(key)
    raise BadInput(f"发言策略只能是 {' | '.join(STRATEGIES)}，收到 {value!r}")


def generation_number(value: str) -> int:
    """``swap`` / ``join`` / ``join-muted`` (or SillyTavern's 0–2)."""
    key = value.strip().lower().replace("_", "-")
    if key in GENERATION_MODES:
        return GENERATION_MODES[key]
    if key.isdigit() and int(key) in GENERATION_MODES.values():
        return int(key)
    raise BadInput(f"角色卡合并方式只能是 {' | '.join(GENERATION_MODES)}，收到 {value!r}")


def _strategy_name(number: int) -> str:
    return ACTIVATION_STRATEGIES.get(number, "natural")


def _generation_name(number: int) -> str:
    return next((k for k, v in GENERATION_MODES.items() if v == number), "swap")


# -- reading -----------------------------------------------------------------------------------


def group_summary(folder: GroupFolder) -> dict[str, Any]:
    """One group as ``pear group list --json`` prints it."""
    group = folder.read()
    settings = folder.settings()
    members = []
    for avatar in group.members:
        card = member_card(folder.home, avatar)
        name = avatar.rsplit(".", 1)[0]
        if card is not None:
            with contextlib.suppress(PearError):
                name = card.load_card().name or card.folder
        members.append({"avatar": avatar, "card": card.folder if card is not None else None, "name": name,
                        "muted": avatar in group.disabled_members})  # fmt: skip
    return {
        "folder": folder.folder,
        "name": group.name or folder.folder,
        "id": group.id,
        "members": members,
        "strategy": _strategy_name(group.activation_strategy),
        "generation": _generation_name(group.generation_mode),
        "allow_self_responses": bool(group.raw.get("allow_self_responses")),
        "mode": str(settings.get("mode") or ""),
        "speaker_choice": str(settings.get("speaker_choice") or "strategy"),
        "chats": len(folder.chat_ids()),
    }


def groups(home: Home) -> list[dict[str, Any]]:
    """Every group (a damaged one with ``"error"``), by folder name."""
    out: list[dict[str, Any]] = []
    for folder in list_groups(home):
        try:
            out.append(group_summary(folder))
        except PearError as error:
            out.append({"folder": folder.folder, "name": None, "error": str(error)})
    return out


def group(home: Home, name: str) -> GroupFolder:
    return open_group(home, name)


# -- making and changing -------------------------------------------------------------------------


def _member_avatars(home: Home, cards: Sequence[str]) -> list[str]:
    avatars: list[str] = []
    for name in cards:
        avatar = member_avatar(open_card(home, name))
        if avatar in avatars:
            raise BadInput(f"卡「{name}」在群里出现了两次")
        avatars.append(avatar)
    return avatars


def create_group(
    home: Home,
    name: str,
    cards: Sequence[str],
    *,
    strategy: str | None = None,
    generation: str | None = None,
    mode: str | None = None,
    speaker_choice: str | None = None,
) -> GroupFolder:
    """A new group of *cards* (at least one), written as SillyTavern's "create group" writes it."""
    if not cards:
        raise BadInput("群聊至少要有一个成员", hint="--member CARD")
    avatars = _member_avatars(home, cards)
    fields: dict[str, Any] = {}
    if strategy is not None:
        fields["activation_strategy"] = strategy_number(strategy)
    if generation is not None:
        fields["generation_mode"] = generation_number(generation)
    settings = _checked_settings({}, mode=mode, speaker_choice=speaker_choice)
    folder = GroupFolder(home, new_group_folder(home, name))
    if folder.path.exists():
        raise ConflictError(f"已有群聊「{folder.folder}」", path=folder.path)
    raw = new_group(str(int(time.time() * 1000)), name.strip(), avatars, chat_id="", **fields)
    raw.raw["chats"] = []
    folder.write(raw)
    if settings:
        folder.write_settings(settings)
    return folder


def _checked_settings(
    settings: dict[str, Any], *, mode: str | None = None, speaker_choice: str | None = None
) -> dict[str, Any]:
    out = dict(settings)
    if mode is not None:
        if mode not in GROUP_MODES:
            raise BadInput(f"群聊的对话方式只能是 {' | '.join(GROUP_MODES)}，收到 {mode!r}")
        out["mode"] = mode
    if speaker_choice is not None:
        if speaker_choice not in SPEAKER_CHOICES:
            raise BadInput(f"谁来发言只能是 {' | '.join(SPEAKER_CHOICES)}，收到 {speaker_choice!r}")
        out.pop("speakerChoice", None)
        out["speaker_choice"] = speaker_choice
    return out


def edit_group(
    home: Home,
    name: str,
    *,
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    title: str | None = None,
    strategy: str | None = None,
    generation: str | None = None,
    self_responses: bool | None = None,
    join_prefix: str | None = None,
    join_suffix: str | None = None,
    mode: str | None = None,
    speaker_choice: str | None = None,
) -> GroupFolder:
    """Change the group: members added (at the end) or removed, its name, strategy, how cards are
    joined, self-responses, the join prefix and suffix (``group.json``), its mode and who chooses
    speakers (``群.json``).  Everything is checked before anything is written."""
    folder = open_group(home, name)
    group_file = folder.read()
    raw = dict(group_file.raw)
    members = list(group_file.members)
    for card in add:
        avatar = member_avatar(open_card(home, card))
        if avatar in members:
            raise BadInput(f"卡「{card}」已经在群里")
        members.append(avatar)
    for card in remove:
        avatar = _avatar_in(folder, members, card)
        members.remove(avatar)
        raw["disabled_members"] = [m for m in group_file.disabled_members if m != avatar]
    if not members:
        raise BadInput("群聊至少要有一个成员")
    raw["members"] = members
    if title is not None:
        if not title.strip():
            raise BadInput("群聊名不能为空")
        raw["name"] = title.strip()
    if strategy is not None:
        raw["activation_strategy"] = strategy_number(strategy)
    if generation is not None:
        raw["generation_mode"] = generation_number(generation)
    if self_responses is not None:
        raw["allow_self_responses"] = self_responses
    if join_prefix is not None:
        raw["generation_mode_join_prefix"] = join_prefix
    if join_suffix is not None:
        raw["generation_mode_join_suffix"] = join_suffix
    settings = _checked_settings(folder.settings(), mode=mode, speaker_choice=speaker_choice)
    if raw != group_file.raw:
        folder.write(GroupFile(raw))
    if settings != folder.settings():
        folder.write_settings(settings)
    return folder


def _avatar_in(folder: GroupFolder, members: Sequence[str], card: str) -> str:
    """The member *card* names: its card folder, its avatar file name or its character's name."""
    wanted = card.strip()
    for avatar in members:
        stem = avatar.rsplit(".", 1)[0]
        found = member_card(folder.home, avatar)
        names = {avatar, stem, sanitize_name(stem)}
        if found is not None:
            names.add(found.folder)
            with contextlib.suppress(PearError):
                names.add(found.load_card().name)
        if wanted in names:
            return avatar
    raise BadInput(f"群聊「{folder.folder}」里没有成员「{card}」")


def set_muted(home: Home, name: str, card: str, muted: bool = True) -> bool:
    """Mute a member (it answers only when forced: ``/trigger``) or unmute it; ``False`` when
    nothing changes."""
    folder = open_group(home, name)
    group_file = folder.read()
    avatar = _avatar_in(folder, group_file.members, card)
    disabled = list(group_file.disabled_members)
    if (avatar in disabled) == muted:
        return False
    disabled = [*disabled, avatar] if muted else [m for m in disabled if m != avatar]
    folder.write(GroupFile({**group_file.raw, "disabled_members": disabled}))
    return True


def delete_group(home: Home, name: str) -> dict[str, str]:
    """Remove the group's folder (its chats too) after a vault snapshot: ``{"snapshot", "path"}``."""
    folder = open_group(home, name)
    snapshot = undo_point(home, f"删除群聊 {folder.folder}")
    shutil.rmtree(folder.path)
    return {"snapshot": snapshot, "path": folder.path.relative_to(home.root).as_posix()}


# -- SillyTavern files -----------------------------------------------------------------------------


# A chat's lines as SillyTavern wrote them: its header (when it has one), then its messages.
ChatLines = list[dict[str, Any]]


def import_group(
    home: Home, data: bytes, filename: str, chats: Sequence[tuple[bytes, str]] = (), *, name: str | None = None
) -> tuple[GroupFolder, list[str]]:
    """A SillyTavern group file and its chats as a new group: (the group, the chat ids).  Every
    member must be a card here already (import the cards first); every file is read and checked
    before anything is written.  The group file is kept byte for byte; a chat keeps its name."""
    group_file = read_group(data, filename)
    _members_here(home, group_file, filename)
    parsed = [(_lines(read_chat_jsonl(chat, chat_name)), chat_name) for chat, chat_name in chats]
    return _import(home, group_file, data, filename, parsed, name)


def import_group_files(home: Home, group_file: Path, chats: Sequence[Path] = (), *, name: str | None = None
                       ) -> tuple[GroupFolder, list[str]]:  # fmt: skip
    """:func:`import_group` of files on disk.  A chat is read as ``pear import`` reads a card's: a line
    at a time, within the same limits (a 100,000-message group chat of 83.5 MiB was refused by the
    64 MiB limit of a file read whole, while a card's chat of 108.6 MB came in)."""
    data = read_input(group_file)
    parsed_group = read_group(data, str(group_file))
    _members_here(home, parsed_group, str(group_file))
    parsed = [(list(ChatSource(path, streamed=is_streamed_chat(path)).objects()), path.name) for path in chats]
    return _import(home, parsed_group, data, str(group_file), parsed, name)


def _members_here(home: Home, group_file: GroupFile, filename: str) -> None:
    missing = [avatar for avatar in group_file.members if member_card(home, avatar) is None]
    if missing:
        raise BadInput(f"群聊的成员在数据文件夹里没有卡：{'、'.join(missing)}（先导入这些卡）", path=filename,
                       hint="pear import 这些卡的文件")  # fmt: skip


def _import(home: Home, group_file: GroupFile, data: bytes, filename: str, chats: Sequence[tuple[ChatLines, str]],
            name: str | None) -> tuple[GroupFolder, list[str]]:  # fmt: skip
    folder = GroupFolder(home, new_group_folder(home, name or group_file.name or Path(filename).stem))
    atomic.write_bytes(folder.group_file, data)
    ids = [import_chat_lines(folder, lines, chat_name).chat_id for lines, chat_name in chats]
    return folder, ids


def _lines(tavern: TavernChat) -> ChatLines:
    return ([tavern.header] if tavern.header else []) + [m.raw for m in tavern.messages]


def import_chat_file(folder: GroupFolder, tavern: TavernChat, filename: str) -> ChatFile:
    """A read SillyTavern group chat as a chat of *folder* (see :func:`import_chat_lines`)."""
    return import_chat_lines(folder, _lines(tavern), filename)


def import_chat_lines(folder: GroupFolder, lines: ChatLines, filename: str) -> ChatFile:
    """A SillyTavern group chat's lines as a chat of *folder*, named after its file when that name is
    free; the group file names it as its current chat."""
    counter = iter(range(1, 1 << 31))
    now = utc_now()
    imported = import_chat(lines, lambda: f"{next(counter):08x}", now)
    entries = _with_metadata(imported.entries, imported.header, now)
    settings = folder.settings()
    mode = settings.get("mode") if settings.get("mode") in GROUP_MODES else None
    header: dict[str, Any] = {"group": folder.folder, "imported": filename, "st_header": imported.header}
    if mode:
        header["mode"] = mode
    stem = Path(filename).name.removesuffix(".jsonl")
    chat = ChatFile.create_with(folder.chats_dir, entries, imported.leaf or entries[-1].id if entries else None,
                                chat_id=stem, **header)  # fmt: skip
    remember_chat(folder, chat.chat_id)
    return chat


def _with_metadata(entries: list[Entry], header: dict[str, Any], timestamp: str) -> list[Entry]:
    """The chat's SillyTavern metadata (its Author's Note, scenario override, timed world info…)
    as the branch's first entry, where tavern mode reads a chat's metadata, on every branch."""
    from peargarden.modes.tavern.setup import METADATA_TYPE  # the chat machinery, not for a group list

    metadata = header.get("chat_metadata")
    if not isinstance(metadata, dict) or not metadata:
        return entries
    root = custom_entry("00000000", None, timestamp, METADATA_TYPE, metadata)
    return [root, *(entry.with_parent(root.id) if entry.parent_id is None else entry for entry in entries)]


def remember_chat(folder: GroupFolder, chat_id: str) -> None:
    """The group file names *chat_id* as its current chat (``chat_id``, and in ``chats``), as
    SillyTavern's does; not rewritten when it already does."""
    group_file = folder.read()
    chats = group_file.chats
    if group_file.chat_id == chat_id and chat_id in chats:
        return
    raw = {**group_file.raw, "chat_id": chat_id, "chats": chats if chat_id in chats else [*chats, chat_id]}
    folder.write(GroupFile(raw))


def group_chat_jsonl(chat: ChatFile, user_name: str, title: str) -> bytes:
    """The chat's active branch as a SillyTavern group chat: the 1.18 header (or the imported
    one) and each reply with its ``original_avatar``, ``force_avatar`` and ``extra.gen_id``."""
    header = chat.header.get("st_header")
    if not isinstance(header, dict) or not header:
        header = {"chat_metadata": {}, "user_name": "unused", "character_name": "unused"}
    lines = export_chat(chat.tree, dict(header), user_name, title)
    return write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))


def export_group(home: Home, name: str, out: Path, user_name: str | None = None) -> list[Path]:
    """``<out>/groups/<id>.json`` (the group file as stored) and ``<out>/group chats/<chat id>.jsonl``
    for each chat: SillyTavern's data layout, ready to copy into ``data/<user>/``."""
    folder = open_group(home, name)
    group_file = folder.read()
    if out.exists() and not out.is_dir():
        raise BadInput("导出群聊要给一个文件夹（-o DIR）", path=out)
    title = group_file.name or folder.folder
    if user_name is None:
        user_name = load_settings(home.config_file).user_name
    chats = [(chat_id, ChatFile.open(folder.chats_dir, chat_id)) for chat_id in folder.chat_ids()]
    written = [out / "groups" / f"{sanitize_name(group_file.id) or folder.folder}.json"]
    atomic.write_bytes(written[0], read_input(folder.group_file))  # as stored: SillyTavern's own bytes
    for chat_id, chat in chats:
        path = out / "group chats" / f"{chat_id}.jsonl"
        atomic.write_bytes(path, group_chat_jsonl(chat, user_name, title))
        written.append(path)
    return written


__all__ = [
    "GENERATION_MODES",
    "STRATEGIES",
    "create_group",
    "delete_group",
    "edit_group",
    "export_group",
    "generation_number",
    "group",
    "group_chat_jsonl",
    "group_summary",
    "groups",
    "import_chat_file",
    "import_group",
    "import_group_files",
    "remember_chat",
    "set_muted",
    "strategy_number",
]

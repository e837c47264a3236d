"""Group chats on disk: one group = one folder ``groups/<folder>/``, as a card is one ``cards/<folder>/``.

- ``group.json`` — the group exactly as SillyTavern keeps it (``groups/<id>.json``: ``id``,
  ``name``, ``members`` as avatar file names, ``disabled_members``, ``activation_strategy``,
  ``generation_mode``, join prefix/suffix, ``chat_id`` / ``chats``…), read and written through
  :mod:`peargarden.formats.groups` so an imported file round-trips byte for byte and exports as is.
- ``群.json`` — what is ours only (the mode a new chat starts in, the preset, the stage's way of
  choosing speakers, tavern settings for the group), as ``卡.json`` is for a card: SillyTavern
  never sees it.
- ``chats/<chat id>/session.jsonl`` — the group's chats, the same session files as a card's (so
  the session index, the chat lock, the vault and every tool that reads a session work unchanged).

A member is named by its SillyTavern avatar file name (``林月.png``); the card it stands for is the
card folder of that stem, else the folder whose card file has that name (an imported card keeps its
file name).  A group made here names its members ``<card folder>.png``: the file name the card
exports under, so the group file is SillyTavern's as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, NotFound, PearError, storage_error
from peargarden.formats.groups import GroupFile, read_group, write_group
from peargarden.text.names import did_you_mean

from . import atomic
from .cards import CardFolder, list_cards, read_settings_file, unique_name, write_settings_file
from .home import Home, sanitize_name
from .inputs import read_input

GROUPS_DIR = "groups"
GROUP_FILE = "group.json"
GROUP_SETTINGS_FILE = "群.json"
CHATS_DIR = "chats"


def groups_dir(home: Home) -> Path:
    return home.root / GROUPS_DIR


class GroupFolder(msgspec.Struct, frozen=True):
    """One group's folder.  Constructing one touches nothing on disk."""

    home: Home
    folder: str

    @property
    def path(self) -> Path:
        return groups_dir(self.home) / self.folder

    @property
    def group_file(self) -> Path:
        return self.path / GROUP_FILE

    @property
    def settings_file(self) -> Path:
        return self.path / GROUP_SETTINGS_FILE

    @property
    def chats_dir(self) -> Path:
        return self.path / CHATS_DIR

    def read(self) -> GroupFile:
        """``group.json`` (``FormatError`` naming the file when it is damaged)."""
        path = self.group_file
        if not path.is_file():
            raise NotFound(f"群聊「{self.folder}」的文件夹里没有 {GROUP_FILE}（no group file）", path=self.path)
        return read_group(read_input(path), str(path))

    def write(self, group: GroupFile) -> None:
        try:
            atomic.write_bytes(self.group_file, write_group(group))
        except OSError as exc:  # read-only or full: its line and exit 5, as for a card or a chat
            failed = PearError(f"无法写入：{exc.strerror or exc}（write failed）", path=self.group_file)
            raise storage_error(exc, self.home.root) or failed from None

    def settings(self) -> dict[str, Any]:
        """``群.json`` as a dict; ``{}`` when the group has none."""
        return read_settings_file(self.settings_file, "群聊设置")

    def write_settings(self, settings: dict[str, Any]) -> None:
        write_settings_file(self.settings_file, settings)

    def chat_ids(self) -> list[str]:
        try:
            return sorted(p.name for p in self.chats_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return []


def list_groups(home: Home) -> list[GroupFolder]:
    """Every group folder, sorted by folder name (hidden folders skipped)."""
    try:
        names = [p.name for p in groups_dir(home).iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []
    return [GroupFolder(home, name) for name in sorted(names)]


def open_group(home: Home, name: str) -> GroupFolder:
    """The group called *name*: its folder name, or the folder the name would be sanitised to."""
    wanted = name.strip()
    for candidate in (wanted, sanitize_name(wanted)):
        if candidate and "/" not in candidate and candidate not in (".", ".."):
            folder = GroupFolder(home, candidate)
            if folder.group_file.is_file():
                return folder
    near = did_you_mean(wanted, [g.folder for g in list_groups(home)])
    listing = "" if near else "用 pear group list 查看已有的群聊"
    raise NotFound(f"没有名为「{name}」的群聊（no such group）{near}", hint=listing)


def new_group_folder(home: Home, name: str) -> str:
    """A free folder name for a new group called *name* (``BadInput`` for a name of only punctuation)."""
    cleaned = sanitize_name(name)
    if not cleaned:
        raise BadInput(f"群聊名「{name}」里没有可用的字符（name has no letters or digits）")
    return unique_name(cleaned, [g.folder for g in list_groups(home)])


def member_avatar(card: CardFolder) -> str:
    """The avatar file name a card is a group member under (the file its PNG export is called)."""
    return f"{card.folder}.png"


def member_card(home: Home, avatar: str) -> CardFolder | None:
    """The card a member's avatar file name stands for, or ``None`` when no card matches."""
    stem = avatar.rsplit(".", 1)[0] if "." in avatar else avatar
    for candidate in (stem, sanitize_name(stem)):
        if candidate and "/" not in candidate and (home.card_dir(candidate)).is_dir():
            return CardFolder(home, candidate)
    for card in list_cards(home):
        found = card.card_file()
        if found is not None and found.name == avatar:
            return card
    return None


__all__ = [
    "CHATS_DIR",
    "GROUPS_DIR",
    "GROUP_FILE",
    "GROUP_SETTINGS_FILE",
    "GroupFolder",
    "groups_dir",
    "list_groups",
    "member_avatar",
    "member_card",
    "new_group_folder",
    "open_group",
]
